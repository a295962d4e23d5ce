import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { UploadNode } from '../../domain/case-types/definition.ts';
import { loadApplicantIntake, removeApplicantDocument, uploadApplicantDocument, type ApplicantDocument, type UploadProblem } from '../../domain/intake/applicant-intake.ts';
import { CSRF_FIELD, csrfMatches } from '../csrf.ts';
import { formText, queryText } from '../page-route.ts';
import type { Translate } from '../i18n/index.ts';
import { html, sendPage } from '../render.ts';
import { button, notification, tag, type ErrorItem } from '../ui/components.ts';
import { fileInput, hiddenInput } from '../ui/fields.ts';
import { afterStep, applicantOf, beforeStep, CSRF_PURPOSE, labelled, paths, stepsOf, type AppRouteDeps, type ApplicantRequest } from './context.ts';
import { formatOneDecimal } from './formats.ts';
import { sendAppError } from './errors.ts';
import { appPage, csrfInput } from './layout.ts';
import { sampleControls, sampleForms } from './sample-controls.ts';
import { appRoute, stepParams } from './route.ts';

type Kind = UploadNode['documents'][number];

/** What a person calls each accepted type. */
const TYPE_NAMES: Record<string, string> = {
  'application/pdf': 'PDF',
  'image/jpeg': 'JPG',
  'image/png': 'PNG',
  'text/plain': 'TXT',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'DOCX',
};

/** "PDF, JPG or PNG" / "PDF, JPG ou PNG". */
export function typeList(kind: Kind, t: Translate): string {
  const names = kind.accept.map((m) => TYPE_NAMES[m] ?? m);
  if (names.length === 1) return names[0]!;
  return `${names.slice(0, -1).join(', ')} ${t('common.or')} ${names.at(-1)}`;
}

function acceptsImages(kind: Kind): boolean {
  return kind.accept.some((m) => m.startsWith('image/'));
}

export function fileSize(bytes: number | null, t: Translate, locale = 'en'): string {
  if (bytes === null) return '';
  return bytes >= 1_000_000 ? t('upload.size_mb', { n: formatOneDecimal(locale, bytes / 1_000_000) }) : t('upload.size_kb', { n: Math.max(1, Math.round(bytes / 1000)) });
}

/** `unreadable`: the request's own body could not be read (cut off, past the part limits), a client fault told in the words of `failed`. */
type UploadError = UploadProblem | 'none_chosen' | 'failed' | 'unreadable';

const STATUS_OF: Record<UploadError, number> = {
  none_chosen: 400,
  wrong_type: 415,
  too_big: 413,
  empty: 400,
  password_protected: 422,
  too_many_files: 409,
  failed: 503,
  unreadable: 400,
  closed: 409,
};

function uploadErrorText(problem: UploadError, kind: Kind, a: ApplicantRequest): string {
  const params = { types: typeList(kind, a.t), max: kind.max_files };
  if (problem === 'none_chosen' || problem === 'too_many_files') return labelled(a, `upload.error.${problem}`, kind.label, params);
  return a.t(`upload.error.${problem === 'unreadable' ? 'failed' : problem}`, params);
}

interface UploadView {
  node: UploadNode;
  returnTo?: string;
  errors: ErrorItem[];
  notice?: string | undefined;
}

/** What to do about a file we could not read, by why it failed: a blurry photo and a damaged file need different advice. */
export function failedHelp(failureReason: string | null, t: Translate): string {
  if (failureReason === 'too_many_pages') return t('upload.failed_help.too_many_pages');
  if (failureReason === 'corrupt_document' || failureReason === 'unsupported_type' || failureReason === 'empty_document' || failureReason === 'encrypted_pdf') return t('upload.failed_help.damaged');
  return t('upload.failed_help.unreadable');
}

/** The remove buttons of every listed file belong to this one form, outside the page's upload form (forms do not nest). */
const REMOVE_FORM = 'remove-form';
const replaceFormId = (docId: string) => `replace-${docId}-form`;

function fileRow(a: ApplicantRequest, kind: Kind, doc: ApplicantDocument, errors: ErrorItem[]) {
  const { t } = a;
  const failed = doc.status === 'failed';
  const name = doc.filename ?? '';
  const replaceId = `replace-${doc.doc_id}`;
  const error = errors.find((e) => e.href === replaceId)?.text;
  const formId = replaceFormId(doc.doc_id);
  return html`<li class=${failed ? 'file-list__item file-list__item--failed' : 'file-list__item'} data-doc-id=${doc.doc_id}>
    <div class="file-list__row">
      <span><span class="file-list__name">${doc.filename}</span> <span class="muted small">${fileSize(doc.byte_size, t, a.locale)}</span></span>
      <span class="cluster">
        ${failed ? tag(t('upload.status.failed'), 'danger') : tag(t(`upload.status.${doc.status as 'uploaded'}`), 'success')}
        <button class="button button--link" type="submit" form=${REMOVE_FORM} name="doc_id" value=${doc.doc_id}>${t('upload.remove')}<span class="visually-hidden"> ${doc.filename}</span></button>
      </span>
    </div>
    ${failed
      ? html`<div class="file-list__help">
          <p>${failedHelp(doc.failure_reason, t)}</p>
          <input type="hidden" name=${CSRF_FIELD} value=${a.csrf} form=${formId} />
          <input type="hidden" name="kind" value=${kind.document_kind} form=${formId} />
          <input type="hidden" name="replaces" value=${doc.doc_id} form=${formId} />
          <div class=${error ? 'form-group form-group--error' : 'form-group'}>
            <label class="label" for=${replaceId}>${t('upload.replace_label', { file: name })}</label>
            ${error ? html`<p id=${`${replaceId}-error`} class="error-message"><span class="visually-hidden">${t('common.error_prefix')} </span>${error}</p>` : null}
            <input class=${`file-input${error ? ' input--error' : ''}`} id=${replaceId} name="file" type="file" accept=${kind.accept.join(',')} form=${formId} aria-describedby=${error ? `${replaceId}-error` : undefined} aria-invalid=${error ? 'true' : undefined} />
          </div>
          <button class="button button--secondary" type="submit" form=${formId}>${t('upload.replace_button', { file: name })}</button>
        </div>`
      : null}
  </li>`;
}

function kindSection(deps: AppRouteDeps, a: ApplicantRequest, node: UploadNode, kind: Kind, errors: ErrorItem[], headed: boolean) {
  const { t } = a;
  const docs = a.intake.documents.filter((d) => d.document_kind === kind.document_kind);
  const fileId = `file-${kind.document_kind}`;
  const photoId = `photo-${kind.document_kind}`;
  const error = errors.find((e) => e.href === fileId)?.text;
  const hint = kind.max_files > 1 ? t('upload.hint_many', { types: typeList(kind, t), max: kind.max_files }) : t('upload.hint_one', { types: typeList(kind, t) });
  const live = docs.filter((d) => d.status !== 'failed').length;
  return html`<section class="upload-kind" aria-labelledby=${`${kind.document_kind}-heading`} data-upload-kind=${kind.document_kind}>
    <h2 id=${`${kind.document_kind}-heading`} class=${headed ? undefined : 'visually-hidden'}>${kind.label}${kind.required ? null : ` ${t('common.optional')}`}</h2>
    <div class="dropzone" data-dropzone="">
      ${fileInput({ id: fileId, name: fileId, label: labelled(a, 'upload.choose_label', kind.label), hint, error, errorPrefix: t('common.error_prefix'), accept: kind.accept.join(',') })}
      ${acceptsImages(kind)
        ? // Shown by the script on touch screens only: elsewhere "take a photo" means nothing, and without
          // the script the one file control above already offers the camera on a phone (its accept has images).
          html`<div class="camera" data-camera="" hidden>${fileInput({ id: photoId, name: photoId, label: labelled(a, 'upload.photo_label', kind.label), hint: t('upload.photo_hint'), accept: kind.accept.filter((m) => m.startsWith('image/')).join(','), capture: 'environment' })}</div>`
        : null}
      <p class="dropzone__hint" data-drop-hint="" hidden>${t('upload.drop')}</p>
      <div class="preview-area" data-preview="" data-preview-alt=${t('upload.preview_alt')}></div>
    </div>
    ${kind.max_files > 1 && live < kind.max_files
      ? // Without the script, "Continue" uploads what was chosen; this button uploads it and stays, to add another.
        html`<button class="button button--secondary" type="submit" formaction=${paths(deps.prefix, a.intake.session_id).uploadFiles(node.node_id)} data-upload-button="">${t('upload.add_another')}</button>`
      : null}
    ${sampleControls(deps, a, node, kind)}
    <h3 class="file-list__heading">${t('upload.uploaded_heading')}</h3>
    <p class="muted" data-empty-list="" hidden=${docs.length > 0}>${t('upload.none_yet')}</p>
    <ul class="file-list" data-file-list="" hidden=${docs.length === 0}>${docs.map((d) => fileRow(a, kind, d, errors))}</ul>
  </section>`;
}

export function uploadPage(deps: AppRouteDeps, a: ApplicantRequest, v: UploadView) {
  const { intake, t, locale } = a;
  const steps = stepsOf(intake);
  const index = steps.findIndex((s) => s.node_id === v.node.node_id);
  const p = paths(deps.prefix, intake.session_id);
  const failed = intake.documents.filter((d) => d.status === 'failed' && v.node.documents.some((k) => k.document_kind === d.document_kind));
  return appPage(deps, {
    locale,
    t,
    title: v.node.title,
    orgName: intake.org_name,
    testMode: intake.environment === 'test',
    back: v.returnTo === 'check' ? p.check : beforeStep(deps.prefix, intake, v.node),
    errors: v.errors,
    languages: a.languages,
    children: html`
      ${steps.length > 1 ? html`<span class="caption">${t('common.step_of', { n: index + 1, total: steps.length })}</span>` : null}
      <h1>${v.node.title}</h1>
      <div role="status" aria-live="polite" id="live-status" class=${v.notice ? 'notification notification--success' : 'visually-hidden'}>${v.notice ? html`<p>${v.notice}</p>` : null}</div>
      <form method="post" enctype="multipart/form-data" action=${p.step(v.node)} novalidate data-upload-form="" data-files-url=${p.uploadFiles(v.node.node_id)}
        data-uploading-text=${t('upload.uploading')} data-failed-text=${t('upload.error.failed')} data-retry-text=${t('upload.retry')}
        data-remove-text=${t('upload.remove')} data-uploaded-text=${t('upload.status.uploaded')} data-waiting-text=${t('upload.waiting')}>
        ${csrfInput(a.csrf)}
        ${v.returnTo ? hiddenInput('return', v.returnTo) : null}
        ${v.node.documents.map((kind) => kindSection(deps, a, v.node, kind, v.errors, v.node.documents.length > 1))}
        ${button({ text: t('common.continue'), data: { 'prevent-double-submit': '', 'continue': '' } })}
      </form>
      <form id=${REMOVE_FORM} method="post" action=${p.removeFile(v.node.node_id)}>${csrfInput(a.csrf)}</form>
      ${sampleForms(deps, a, v.node)}
      ${failed.map((d) => html`<form id=${replaceFormId(d.doc_id)} method="post" enctype="multipart/form-data" action=${p.uploadFiles(v.node.node_id)} novalidate></form>`)}`,
  });
}

/** One chosen file, with the kind its control is for. */
interface ChosenFile {
  kind: string;
  /** The control it came from (`file-pay_stub`, `photo-pay_stub`): a refusal is shown there. */
  field: string;
  filename: string;
  bytes: Buffer;
  truncated: boolean;
}

interface ReadUpload {
  csrfOk: boolean;
  /** Fields other than files (`return`, `kind`, `replaces`). */
  fields: Record<string, string>;
  files: ChosenFile[];
  /** The stream broke off or went past a limit; what was read before it is kept. */
  failed?: unknown;
}

/**
 * Reads the multipart body as it streams: the CSRF field must come before any file (the forms put
 * it first), so nothing of a forged request is kept. Each kind has a file control and, on touch
 * screens, a camera control (`file-<kind>`, `photo-<kind>`); browsers send every control, the
 * unused ones empty and unnamed. A replacement form sends `kind`, `replaces` and one `file`.
 */
async function readUpload(request: FastifyRequest, a: ApplicantRequest, node: UploadNode | undefined, secret: string): Promise<ReadUpload> {
  const out: ReadUpload = { csrfOk: false, fields: {}, files: [] };
  // Two controls per kind, one per failed file's replacement: anything beyond that is not our form.
  // With no such step the body is read only for its token (a forged post learns nothing first).
  const files = (node?.documents.length ?? 0) * 2 + 1;
  try {
    await readParts(request, a, secret, out, files);
  } catch (err) {
    out.failed = err;
  }
  return out;
}

async function readParts(request: FastifyRequest, a: ApplicantRequest, secret: string, out: ReadUpload, files: number): Promise<void> {
  for await (const part of request.parts({ limits: { files, parts: files + 8 } })) {
    if (part.type === 'field') {
      if (part.fieldname === CSRF_FIELD) out.csrfOk = csrfMatches(secret, CSRF_PURPOSE, `${a.proof.sessionId}:${a.proof.token}`, part.value);
      else if (typeof part.value === 'string') out.fields[part.fieldname] = part.value;
      continue;
    }
    if (!out.csrfOk) {
      part.file.resume();
      continue;
    }
    const bytes = await part.toBuffer();
    if (part.filename === '' && bytes.byteLength === 0) continue;
    const named = /^(?:file|photo)-(.+)$/.exec(part.fieldname)?.[1];
    const kind = named ?? out.fields.kind ?? '';
    out.files.push({ kind, field: named ? part.fieldname : `replace-${out.fields.replaces ?? ''}`, filename: part.filename, bytes, truncated: part.file.truncated });
  }
}

interface Refusal {
  kind: Kind;
  problem: UploadError;
  /** The control the page shows the message at. */
  at: string;
  /** The control the file came from (the script shows the message there). */
  field?: string;
}

interface Stored {
  uploaded: { docId: string; filename: string; bytes: number; kind: string }[];
  refusal?: Refusal;
  forbidden?: boolean;
  closed?: boolean;
}

function uploadNode(a: ApplicantRequest, nodeId: string): UploadNode | undefined {
  const node = a.intake.definition.workflow.nodes.find((n) => n.node_id === nodeId);
  return node?.type === 'upload' ? node : undefined;
}

function wantsJson(request: FastifyRequest): boolean {
  return String(request.headers.accept ?? '').startsWith('application/json');
}

/** A closed session's pages give way to its status page. */
const closed = (reply: FastifyReply, deps: AppRouteDeps, a: ApplicantRequest) => reply.redirect(paths(deps.prefix, a.intake.session_id).status, 303);

/** The intake as it is now, after this request's own uploads. */
async function fresh(deps: AppRouteDeps, a: ApplicantRequest): Promise<ApplicantRequest> {
  const loaded = await loadApplicantIntake(deps.ctx, a.proof);
  // The pinned definition never changes: keep the one already in the applicant's language.
  return loaded.ok ? { ...a, intake: { ...loaded.value, definition: a.intake.definition } } : a;
}

/**
 * Stores every chosen file, one after another, and stops at the first refusal: files stored
 * before it stay (a chosen file is never lost), the refusal is shown at the control it came from.
 */
async function storeChosen(deps: AppRouteDeps, request: FastifyRequest, a: ApplicantRequest, node: UploadNode, read: ReadUpload): Promise<Stored> {
  const uploaded: Stored['uploaded'] = [];
  // A replacement's errors show on its own file input, beside the file it replaces.
  const replaced = a.intake.documents.find((d) => d.doc_id === read.fields.replaces && d.status === 'failed');
  for (const file of read.files) {
    const kind = node.documents.find((k) => k.document_kind === file.kind) ?? node.documents[0]!;
    const at = replaced ? `replace-${replaced.doc_id}` : `file-${kind.document_kind}`;
    const refused = (problem: UploadError): Stored => ({ uploaded, refusal: { kind, problem, at, field: file.field } });
    if (file.truncated) return refused('too_big');
    let outcome;
    try {
      outcome = await uploadApplicantDocument(deps.ctx, { ...a.proof, documentKind: kind.document_kind, filename: file.filename, bytes: new Uint8Array(file.bytes), traceId: String(request.id), replaces: replaced?.doc_id });
    } catch (err) {
      request.log.error({ err }, 'applicant upload failed');
      return refused('failed');
    }
    if (!outcome.ok) return outcome.code === 'forbidden' ? { uploaded, forbidden: true } : refused('failed');
    if (outcome.value.kind === 'refused') return outcome.value.problem === 'closed' ? { uploaded, closed: true } : refused(outcome.value.problem);
    uploaded.push({ docId: outcome.value.doc_id, filename: file.filename, bytes: file.bytes.byteLength, kind: kind.document_kind });
  }
  return { uploaded };
}

/**
 * The multipart body of either post: its token first, whatever else is wrong with the request
 * (a forged post learns nothing, not even whether the step exists), then the step, then storing.
 * A reply when it cannot go on.
 */
async function readAndStore(deps: AppRouteDeps, request: FastifyRequest, reply: FastifyReply, a: ApplicantRequest, nodeId: string): Promise<{ read: ReadUpload; stored: Stored; node: UploadNode } | FastifyReply> {
  const read = await readUpload(request, a, uploadNode(a, nodeId), deps.ctx.secret);
  if (!read.csrfOk) return sendAppError(request, reply, deps, 'csrf');
  if (a.intake.status !== 'open') return closed(reply, deps, a);
  const node = uploadNode(a, nodeId);
  if (!node) return sendAppError(request, reply, deps, 'not_found');
  if (read.failed !== undefined) {
    request.log.info({ err: read.failed }, 'applicant upload could not be read');
    return refuse(deps, request, reply, a, node, { kind: node.documents[0]!, problem: 'unreadable', at: `file-${node.documents[0]!.document_kind}` });
  }
  const stored = await storeChosen(deps, request, a, node, read);
  if (stored.forbidden) return sendAppError(request, reply, deps, 'forbidden');
  if (stored.closed) return closed(reply, deps, a);
  if (stored.refusal) return refuse(deps, request, reply, await fresh(deps, a), node, stored.refusal, read.fields.return);
  return { read, stored, node };
}

function refuse(deps: AppRouteDeps, request: FastifyRequest, reply: FastifyReply, a: ApplicantRequest, node: UploadNode, r: Refusal, returnTo?: string) {
  const text = uploadErrorText(r.problem, r.kind, a);
  if (wantsJson(request)) return reply.code(STATUS_OF[r.problem]).header('cache-control', 'no-store').send({ ok: false, problem: r.problem, message: text, field: r.field ?? r.at });
  return sendPage(reply, uploadPage(deps, a, { node, errors: [{ href: r.at, text }], returnTo: returnTo === 'check' ? 'check' : '' }), STATUS_OF[r.problem]);
}

/** `?added=<doc_id>` and `?removed=1` from the posts that come back here, `?return=check` from a Change link. */
const uploadQuery = z.object({ added: queryText, removed: queryText, return: queryText });

/**
 * The upload step: GET shows each document kind's file and camera inputs and the files so far;
 * POST …/files takes one file (multipart, streamed, ≤ 20 MB), POST …/remove erases one, POST
 * the step itself checks every required kind has a file and moves on. Every refusal has its own
 * message. With `Accept: application/json` (the page's script) the same posts answer JSON, so
 * drag-and-drop and progress bars need no second set of rules.
 */
export const uploadStepPage = appRoute({
  method: 'GET',
  url: '/s/:sessionId/upload/:nodeId',
  auth: 'applicant',
  params: stepParams,
  query: uploadQuery,
  handler: async ({ request, reply, deps, params, query }) => {
    const a = applicantOf(request);
    if (a.intake.status !== 'open') return closed(reply, deps, a);
    const node = uploadNode(a, params.nodeId);
    if (!node) return sendAppError(request, reply, deps, 'not_found');
    const added = query.added ? a.intake.documents.find((d) => d.doc_id === query.added) : undefined;
    const notice = added ? a.t('upload.added', { file: added.filename ?? '' }) : query.removed ? a.t('upload.removed') : undefined;
    return sendPage(reply, uploadPage(deps, a, { node, errors: [], notice, returnTo: query.return === 'check' ? 'check' : '' }));
  },
});

/** POST …/files: the chosen files, multipart, read from the stream (no body declared); its token is the stream's first field. */
export const uploadFilesPage = appRoute({
  method: 'POST',
  url: '/s/:sessionId/upload/:nodeId/files',
  auth: 'applicant',
  params: stepParams,
  config: { csrfInStream: true },
  handler: async ({ request, reply, deps, params }) => {
    const a = applicantOf(request);
    if (!request.isMultipart()) return sendAppError(request, reply, deps, 'csrf');
    const done = await readAndStore(deps, request, reply, a, params.nodeId);
    if (!('stored' in done)) return done;
    const { node } = done;
    const { read, stored } = done;
    const first = stored.uploaded[0];
    if (!first) {
      const replaced = read.fields.replaces ? `replace-${read.fields.replaces}` : undefined;
      const kind = node.documents.find((k) => k.document_kind === (read.fields.kind ?? read.fields.another)) ?? node.documents[0]!;
      return refuse(deps, request, reply, a, node, { kind, problem: 'none_chosen', at: replaced ?? `file-${kind.document_kind}` }, read.fields.return);
    }
    if (wantsJson(request)) {
      return reply.code(201).header('cache-control', 'no-store').send({ ok: true, doc_id: first.docId, filename: first.filename, size: fileSize(first.bytes, a.t, a.locale), message: a.t('upload.added', { file: first.filename }) });
    }
    const back = read.fields.return === 'check' ? '&return=check' : '';
    return reply.redirect(`${paths(deps.prefix, a.intake.session_id).step(node)}?added=${encodeURIComponent(first.docId)}${back}`, 303);
  },
});

/** POST …/remove: the remove form, its button naming the file. */
export const removeFilePage = appRoute({
  method: 'POST',
  url: '/s/:sessionId/upload/:nodeId/remove',
  auth: 'applicant',
  params: stepParams,
  body: z.object({ doc_id: formText }),
  handler: async ({ request, reply, deps, params, body }) => {
    const a = applicantOf(request);
    if (a.intake.status !== 'open') return closed(reply, deps, a);
    const node = uploadNode(a, params.nodeId);
    if (!node) return sendAppError(request, reply, deps, 'not_found');
    const removed = await removeApplicantDocument(deps.ctx, { ...a.proof, docId: body.doc_id, traceId: String(request.id) });
    if (!removed.ok && removed.code === 'forbidden') return sendAppError(request, reply, deps, 'forbidden');
    if (!removed.ok && removed.code === 'not_found') return sendAppError(request, reply, deps, 'not_found');
    if (!removed.ok) return closed(reply, deps, a);
    return reply.redirect(`${paths(deps.prefix, a.intake.session_id).step(node)}?removed=1`, 303);
  },
});

/**
 * "Continue": a plain post (a form without files, or an older page), or the page's multipart
 * form with whatever was chosen and not sent yet, which is uploaded first. Then every required
 * kind must have a file, counted on the intake as it is after those uploads.
 * Multipart when Continue carries a chosen file: that body's token and fields are read from the
 * stream, and the declared body (the plain post's `return`) reads as empty.
 */
export const continueUploadPage = appRoute({
  method: 'POST',
  url: '/s/:sessionId/upload/:nodeId',
  auth: 'applicant',
  params: stepParams,
  body: z.object({ return: formText }),
  config: { csrfInStream: true },
  handler: async ({ request, reply, deps, params, body }) => {
    let a = applicantOf(request);
    let returnTo = '';
    if (request.isMultipart()) {
      const done = await readAndStore(deps, request, reply, a, params.nodeId);
      if (!('stored' in done)) return done;
      returnTo = done.read.fields.return === 'check' ? 'check' : '';
      if (done.stored.uploaded.length > 0) a = await fresh(deps, a);
    } else {
      returnTo = body.return === 'check' ? 'check' : '';
    }
    if (a.intake.status !== 'open') return closed(reply, deps, a);
    const node = uploadNode(a, params.nodeId);
    if (!node) return sendAppError(request, reply, deps, 'not_found');
    const live = a.intake.documents.filter((d) => d.status !== 'failed');
    const errors = node.documents
      .filter((k) => k.required && !live.some((d) => d.document_kind === k.document_kind))
      .map((k) => ({ href: `file-${k.document_kind}`, text: labelled(a, 'upload.error.required', k.label) }));
    if (errors.length > 0) return sendPage(reply, uploadPage(deps, a, { node, errors, returnTo }), 400);
    // A step that asks the applicant to confirm what was read goes there first (issue 26).
    if (node.confirm_extracted) return reply.redirect(`${paths(deps.prefix, a.intake.session_id).confirm(node.node_id)}${returnTo ? `?return=${returnTo}` : ''}`, 303);
    return reply.redirect(afterStep(deps.prefix, a.intake, node, returnTo), 303);
  },
});
