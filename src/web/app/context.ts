import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../domain/deps.ts';
import type { FormNode, UploadNode } from '../../domain/case-types/definition.ts';
import type { ApplicantIntake } from '../../domain/intake/applicant-intake.ts';
import type { ApplicantProof } from '../../domain/intake/applicant-access.ts';
import { localizeCaseType, type LocalizedCaseType } from '../../domain/case-types/translations.ts';
import type { AssetRegistry } from '../assets.ts';
import { csrfToken } from '../csrf.ts';
import { cookieBase } from '../face.ts';
import { negotiateLocale, translator, type LabelledKey, type Locale, type MessageKey, type Translate } from '../i18n/index.ts';
import { chosenLanguage, languageLinks, type LanguageLink } from './language.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The applicant's session, read with the link's token by the access hook of every `applicant` route. */
    applicant?: ApplicantRequest;
  }
  interface FastifyContextConfig {
    /**
     * The route reads a multipart stream and checks the CSRF token from the stream's first field
     * before it keeps a byte (uploads). Only such a route may skip the access hook's token check,
     * and only for a multipart body.
     */
    csrfInStream?: true;
  }
}

export const APPLICANT_COOKIE = 'dossier_applicant';
export const CSRF_PURPOSE = 'applicant';

/** What every applicant page module receives. */
export interface AppRouteDeps {
  ctx: AppContext;
  assets: AssetRegistry;
  /** The path the app is mounted on (`/app` by default, '' when APP_URL is a host of its own). */
  prefix: string;
}

export interface ApplicantRequest {
  proof: ApplicantProof;
  /** The session, its case type's texts already in `locale` (English where a translation is missing). */
  intake: ApplicantIntake;
  locale: Locale;
  t: Translate;
  /** The case type in `locale`: option texts, and whether a text is really in the page's language. */
  texts: LocalizedCaseType;
  /** The header's language links; none when the session fixes the locale. */
  languages: LanguageLink[] | undefined;
  csrf: string;
}

export type Step = FormNode | UploadNode;

export function applicantOf(request: FastifyRequest): ApplicantRequest {
  if (!request.applicant) throw new Error('applicantOf called on a public applicant route');
  return request.applicant;
}

/** The CSRF token of one session's forms: bound to the session and its secret token, so it is useless elsewhere. */
export function applicantCsrf(secret: string, proof: ApplicantProof): string {
  return csrfToken(secret, CSRF_PURPOSE, `${proof.sessionId}:${proof.token}`);
}

export function localeFor(request: FastifyRequest, sessionLocale: string | null): { locale: Locale; t: Translate } {
  const locale = negotiateLocale(sessionLocale, request.headers['accept-language'], chosenLanguage(request));
  return { locale, t: translator(locale) };
}

/** The applicant's language for one request, and the session with its case type's texts in it. */
export function applicantLanguage(request: FastifyRequest, intake: ApplicantIntake): Pick<ApplicantRequest, 'intake' | 'locale' | 't' | 'texts' | 'languages'> {
  const { locale, t } = localeFor(request, intake.locale);
  const texts = localizeCaseType(intake.definition, locale);
  return { intake: { ...intake, definition: texts.definition }, locale, t, texts, languages: languageLinks(request, intake.locale, locale) };
}

/**
 * A message about a case-type text (a label): whole in the page's language with the label, or,
 * when the label has no translation into it, the same message without the label. Never a
 * sentence of one language around a label of another.
 */
export function labelled(a: Pick<ApplicantRequest, 't' | 'texts'>, key: LabelledKey, label: string, params: Readonly<Record<string, string | number>> = {}): string {
  if (a.texts.inLocale(label)) return a.t(key, { ...labelParams(label), ...params });
  return a.t(`${key}.unnamed` as MessageKey, params);
}

/** Addresses inside one session: everything lives under the session's own path, which the cookie is scoped to. */
export function paths(prefix: string, sessionId: string) {
  const base = `${prefix}/s/${sessionId}`;
  return {
    base,
    step: (step: Step) => `${base}/${step.type === 'form' ? 'form' : 'upload'}/${step.node_id}`,
    uploadFiles: (nodeId: string) => `${base}/upload/${nodeId}/files`,
    removeFile: (nodeId: string) => `${base}/upload/${nodeId}/remove`,
    confirm: (nodeId: string) => `${base}/confirm/${nodeId}`,
    pageImage: (docId: string, pageIndex: number) => `${base}/documents/${docId}/pages/${pageIndex + 1}`,
    tasks: `${base}/tasks`,
    check: `${base}/check`,
    submit: `${base}/submit`,
    status: `${base}/status`,
    statusJson: `${base}/status.json`,
    followUps: `${base}/follow-ups`,
  };
}

/** The cookie outlives the link by a week, so a late visit is told "expired" (410) rather than "not valid" (403). */
const COOKIE_GRACE_MS = 7 * 86_400_000;

/** The session cookie: the link's token, readable only by us, sent only to this session's pages. */
export function setApplicantCookie(reply: FastifyReply, deps: AppRouteDeps, proof: ApplicantProof, expiresAt: Date): void {
  const now = deps.ctx.clock.now().getTime();
  const appUrl = deps.ctx.config.appUrl ?? deps.ctx.config.baseUrl;
  reply.setCookie(APPLICANT_COOKIE, proof.token, {
    ...cookieBase(appUrl),
    sameSite: 'lax',
    path: paths(deps.prefix, proof.sessionId).base,
    expires: new Date(Math.max(expiresAt.getTime(), now) + COOKIE_GRACE_MS),
  });
}

/** The applicant steps of a workflow, in order: form and upload nodes (gates and review are ours). */
export function stepsOf(intake: ApplicantIntake): Step[] {
  return intake.definition.workflow.nodes.filter((n): n is Step => n.type === 'form' || n.type === 'upload');
}

/** A form step is done once its answers were saved; an upload step once every required kind has a file. */
export function stepDone(intake: ApplicantIntake, step: Step): boolean {
  if (step.type === 'form') return step.fields.every((f) => f.field_id in intake.saved);
  const live = intake.documents.filter((d) => d.status !== 'failed');
  const requiredMet = step.documents.every((d) => !d.required || live.some((x) => x.document_kind === d.document_kind));
  const any = step.documents.some((d) => live.some((x) => x.document_kind === d.document_kind));
  return requiredMet && (any || step.documents.every((d) => !d.required));
}

/** Where the applicant carries on: the first step not done, else the check-answers page. */
export function resumePath(prefix: string, intake: ApplicantIntake): string {
  const p = paths(prefix, intake.session_id);
  if (intake.status === 'submitted') return intake.follow_ups.length > 0 ? p.followUps : p.status;
  const steps = stepsOf(intake);
  if (steps.length >= 3) return p.tasks;
  const next = steps.find((s) => !stepDone(intake, s));
  return next ? p.step(next) : p.check;
}

/** The page after a step: the next step, or the task list / check page. `return=check` from a Change link wins. */
export function afterStep(prefix: string, intake: ApplicantIntake, step: Step, returnTo: string): string {
  const p = paths(prefix, intake.session_id);
  if (returnTo === 'check') return p.check;
  const steps = stepsOf(intake);
  if (steps.length >= 3) return p.tasks;
  const at = steps.findIndex((s) => s.node_id === step.node_id);
  const next = steps[at + 1];
  return next ? p.step(next) : p.check;
}

/** The page before a step (the back link). */
export function beforeStep(prefix: string, intake: ApplicantIntake, step: Step): string | undefined {
  const p = paths(prefix, intake.session_id);
  const steps = stepsOf(intake);
  if (steps.length >= 3) return p.tasks;
  const at = steps.findIndex((s) => s.node_id === step.node_id);
  const prev = steps[at - 1];
  return prev ? p.step(prev) : undefined;
}

/** A label inside a sentence: "Full legal name" → "full legal name", but acronyms ("USD amount") stay. */
export function inSentence(label: string): string {
  const first = label.split(/\s/)[0] ?? '';
  // "I agree…" and acronyms ("USD amount", "IBAN") keep their capitals.
  if (first === 'I' || (first.length > 1 && first === first.toUpperCase())) return label;
  return label.charAt(0).toLowerCase() + label.slice(1);
}

/** Both spellings of a label for message placeholders: `{label}` mid-sentence, `{Label}` at the start. */
export function labelParams(label: string): Record<string, string> {
  return { label: inSentence(label), Label: label };
}
