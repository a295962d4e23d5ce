import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UploadNode } from '../../domain/case-types/definition.ts';
import { removeApplicantDocument, uploadApplicantDocument, type ApplicantDocument, type UploadProblem } from '../../domain/intake/applicant-intake.ts';
import { CSRF_FIELD, csrfMatches } from '../csrf.ts';
import { formField } from '../face.ts';
import type { Translate } from '../i18n/index.ts';
import { html, sendPage } from '../render.ts';
import { button, notification, tag, type ErrorItem } from '../ui/components.ts';
import { fileInput, hiddenInput } from '../ui/fields.ts';
import { afterStep, applicantOf, beforeStep, CSRF_PURPOSE, labelParams, paths, stepsOf, type AppRouteDeps, type ApplicantRequest } from './context.ts';
import { sendAppError } from './errors.ts';
import { appPage, csrfInput } from './layout.ts';

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

export function fileSize(bytes: number | null, t: Translate): string {
  if (bytes === null) return '';
  return bytes >= 1_000_000 ? t('upload.size_mb', { n: (bytes / 1_000_000).toFixed(1) }) : t('upload.size_kb', { n: Math.max(1, Math.round(bytes / 1000)) });
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

function uploadErrorText(problem: UploadError, kind: Kind, t: Translate): string {
  const params = { ...labelParams(kind.label), types: typeList(kind, t), max: kind.max_files };
  return t(`upload.error.${problem === 'unreadable' ? 'failed' : problem}`, params);
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

function fileRow(deps: AppRouteDeps, a: ApplicantRequest, node: UploadNode, kind: Kind, doc: ApplicantDocument, errors: ErrorItem[]) {
  const { t } = a;
  const failed = doc.status === 'failed';
  const p = paths(deps.prefix, a.intake.session_id);
  const name = doc.filename ?? '';
  const replaceId = `replace-${doc.doc_id}`;
  return html`<li class=${failed ? 'file-list__item file-list__item--failed' : 'file-list__item'}>
    <div class="file-list__row">
      <span><span class="file-list__name">${doc.filename}</span> <span class="muted small">${fileSize(doc.byte_size, t)}</span></span>
      <span class="cluster">
        ${failed ? tag(t('upload.status.failed'), 'danger') : tag(t(`upload.status.${doc.status as 'uploaded'}`), 'success')}
        <form method="post" action=${p.removeFile(node.node_id)}>
          ${csrfInput(a.csrf)}${hiddenInput('doc_id', doc.doc_id)}
          <button class="button button--link" type="submit">${t('upload.remove')}<span class="visually-hidden"> ${doc.filename}</span></button>
        </form>
      </span>
    </div>
    ${failed
      ? html`<div class="file-list__help">
          <p>${failedHelp(doc.failure_reason, t)}</p>
          <form method="post" enctype="multipart/form-data" action=${p.uploadFiles(node.node_id)} novalidate>
            ${csrfInput(a.csrf)}${hiddenInput('kind', kind.document_kind)}${hiddenInput('replaces', doc.doc_id)}
            ${fileInput({ id: replaceId, name: 'file', label: t('upload.replace_label', { file: name }), error: errors.find((e) => e.href === replaceId)?.text, errorPrefix: t('common.error_prefix'), accept: kind.accept.join(',') })}
            ${button({ text: t('upload.replace_button', { file: name }), variant: 'secondary', data: { 'prevent-double-submit': '' } })}
          </form>
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
  return html`<section class="upload-kind" aria-labelledby=${`${kind.document_kind}-heading`}>
    <h2 id=${`${kind.document_kind}-heading`} class=${headed ? undefined : 'visually-hidden'}>${kind.label}${kind.required ? null : ` ${t('common.optional')}`}</h2>
    <form method="post" enctype="multipart/form-data" action=${paths(deps.prefix, a.intake.session_id).uploadFiles(node.node_id)} novalidate data-upload-form="" data-uploading-text=${t('upload.uploading')} data-failed-text=${t('upload.error.failed')} data-retry-text=${t('upload.retry')}>
      ${csrfInput(a.csrf)}${hiddenInput('kind', kind.document_kind)}
      <div class="dropzone" data-dropzone="">
        ${fileInput({ id: fileId, name: 'file', label: t('upload.choose_label', { label: kind.label }), hint, error, errorPrefix: t('common.error_prefix'), accept: kind.accept.join(',') })}
        ${acceptsImages(kind)
          ? fileInput({ id: photoId, name: 'photo', label: t('upload.photo_label', { label: kind.label }), hint: t('upload.photo_hint'), accept: kind.accept.filter((m) => m.startsWith('image/')).join(','), capture: 'environment' })
          : null}
        <p class="dropzone__hint" data-drop-hint="" hidden>${t('upload.drop')}</p>
        <div class="preview-area" data-preview="" data-preview-title=${t('upload.preview')} data-preview-alt=${t('upload.preview_alt')}></div>
      </div>
      ${button({ text: t('upload.button', labelParams(kind.label)), variant: 'secondary', data: { 'prevent-double-submit': '' } })}
    </form>
    <h3 class="file-list__heading">${t('upload.uploaded_heading')}</h3>
    ${docs.length === 0
      ? html`<p class="muted" data-empty-list="">${t('upload.none_yet')}</p>`
      : html`<ul class="file-list">${docs.map((d) => fileRow(deps, a, node, kind, d, errors))}</ul>`}
  </section>`;
}

function uploadPage(deps: AppRouteDeps, a: ApplicantRequest, v: UploadView) {
  const { intake, t, locale } = a;
  const steps = stepsOf(intake);
  const index = steps.findIndex((s) => s.node_id === v.node.node_id);
  const p = paths(deps.prefix, intake.session_id);
  return appPage(deps, {
    locale,
    t,
    title: v.node.title,
    orgName: intake.org_name,
    testMode: intake.environment === 'test',
    back: v.returnTo === 'check' ? p.check : beforeStep(deps.prefix, intake, v.node),
    errors: v.errors,
    children: html`
      ${steps.length > 1 ? html`<span class="caption">${t('common.step_of', { n: index + 1, total: steps.length })}</span>` : null}
      <h1>${v.node.title}</h1>
      ${v.notice ? notification({ tone: 'success', role: 'status', children: html`<p>${v.notice}</p>` }) : html`<div role="status" class="visually-hidden" id="live-status" aria-live="polite"></div>`}
      ${v.node.documents.map((kind) => kindSection(deps, a, v.node, kind, v.errors, v.node.documents.length > 1))}
      <form method="post" action=${p.step(v.node)} novalidate>
        ${csrfInput(a.csrf)}
        ${v.returnTo ? hiddenInput('return', v.returnTo) : null}
        ${button({ text: t('common.continue'), data: { 'prevent-double-submit': '' } })}
      </form>`,
  });
}

interface ReadUpload {
  csrfOk: boolean;
  /** The stream broke off or went past a limit; what was read before it is kept here. */
  failed?: unknown;
  kind: string;
  /** A file that could not be read, which this one replaces. */
  replaces: string;
  file?: { filename: string; bytes: Buffer; truncated: boolean };
}

/**
 * Reads the multipart body as it streams: the CSRF field must come before the file (the form puts
 * it first), so nothing of a forged request is kept; the first chosen file wins (the form has a
 * file input and a camera input, and browsers send both, the unused one empty and unnamed).
 */
async function readUpload(request: FastifyRequest, a: ApplicantRequest, secret: string): Promise<ReadUpload> {
  const out: ReadUpload = { csrfOk: false, kind: '', replaces: '' };
  try {
    await readParts(request, a, secret, out);
  } catch (err) {
    out.failed = err;
  }
  return out;
}

async function readParts(request: FastifyRequest, a: ApplicantRequest, secret: string, out: ReadUpload): Promise<void> {
  for await (const part of request.parts()) {
    if (part.type === 'field') {
      if (part.fieldname === CSRF_FIELD) out.csrfOk = csrfMatches(secret, CSRF_PURPOSE, `${a.proof.sessionId}:${a.proof.token}`, part.value);
      if (part.fieldname === 'kind') out.kind = String(part.value);
      if (part.fieldname === 'replaces') out.replaces = String(part.value);
      continue;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of part.file) if (out.csrfOk && !out.file) chunks.push(chunk as Buffer);
    if (!out.csrfOk || out.file) continue;
    const bytes = Buffer.concat(chunks);
    if (part.filename === '' && bytes.byteLength === 0) continue;
    out.file = { filename: part.filename, bytes, truncated: part.file.truncated };
  }
}

function uploadNode(a: ApplicantRequest, nodeId: string): UploadNode | undefined {
  const node = a.intake.definition.workflow.nodes.find((n) => n.node_id === nodeId);
  return node?.type === 'upload' ? node : undefined;
}

function wantsJson(request: FastifyRequest): boolean {
  return String(request.headers.accept ?? '').startsWith('application/json');
}

/**
 * The upload step: GET shows each document kind's file and camera inputs and the files so far;
 * POST …/files takes one file (multipart, streamed, ≤ 20 MB), POST …/remove erases one, POST
 * the step itself checks every required kind has a file and moves on. Every refusal has its own
 * message. With `Accept: application/json` (the page's script) the same posts answer JSON, so
 * drag-and-drop and progress bars need no second set of rules.
 */
export function registerUploadStep(scope: FastifyInstance, deps: AppRouteDeps): void {
  const closed = (reply: FastifyReply, a: ApplicantRequest) => reply.redirect(paths(deps.prefix, a.intake.session_id).status, 303);
  const nodeOf = (request: FastifyRequest) => uploadNode(applicantOf(request), (request.params as { nodeId: string }).nodeId);

  scope.get('/s/:sessionId/upload/:nodeId', { config: { auth: 'applicant' } }, async (request, reply) => {
    const a = applicantOf(request);
    if (a.intake.status !== 'open') return closed(reply, a);
    const node = nodeOf(request);
    if (!node) return sendAppError(request, reply, deps, 'not_found');
    const query = request.query as { added?: string; removed?: string; return?: string };
    const added = query.added ? a.intake.documents.find((d) => d.doc_id === query.added) : undefined;
    const notice = added ? a.t('upload.added', { file: added.filename ?? '' }) : query.removed ? a.t('upload.removed') : undefined;
    return sendPage(reply, uploadPage(deps, a, { node, errors: [], notice, returnTo: query.return === 'check' ? 'check' : '' }));
  });

  scope.post('/s/:sessionId/upload/:nodeId/files', { config: { auth: 'applicant', csrfInStream: true } }, async (request, reply) => {
    const a = applicantOf(request);
    // The token first, whatever else is wrong with the request: a forged post learns nothing.
    if (!request.isMultipart()) return sendAppError(request, reply, deps, 'csrf');
    const read = await readUpload(request, a, deps.ctx.secret);
    if (!read.csrfOk) return sendAppError(request, reply, deps, 'csrf');
    if (a.intake.status !== 'open') return closed(reply, a);
    const node = nodeOf(request);
    if (!node) return sendAppError(request, reply, deps, 'not_found');
    if (read.failed !== undefined) {
      request.log.info({ err: read.failed }, 'applicant upload could not be read');
      return refuse(request, reply, a, node, node.documents[0]!, 'unreadable');
    }
    const kind = node.documents.find((k) => k.document_kind === read.kind) ?? node.documents[0]!;
    // A replacement's errors show on its own file input, beside the file it replaces.
    const replaced = a.intake.documents.find((d) => d.doc_id === read.replaces && d.status === 'failed');
    const at = replaced ? `replace-${replaced.doc_id}` : undefined;
    if (!read.file) return refuse(request, reply, a, node, kind, 'none_chosen', at);
    if (read.file.truncated) return refuse(request, reply, a, node, kind, 'too_big', at);
    let outcome;
    try {
      outcome = await uploadApplicantDocument(deps.ctx, { ...a.proof, documentKind: kind.document_kind, filename: read.file.filename, bytes: new Uint8Array(read.file.bytes), traceId: String(request.id), replaces: replaced?.doc_id });
    } catch (err) {
      request.log.error({ err }, 'applicant upload failed');
      return refuse(request, reply, a, node, kind, 'failed', at);
    }
    if (!outcome.ok) return outcome.code === 'forbidden' ? sendAppError(request, reply, deps, 'forbidden') : refuse(request, reply, a, node, kind, 'failed', at);
    if (outcome.value.kind === 'refused') {
      if (outcome.value.problem === 'closed') return closed(reply, a);
      return refuse(request, reply, a, node, kind, outcome.value.problem, at);
    }
    const docId = outcome.value.doc_id;
    if (wantsJson(request)) return reply.code(201).header('cache-control', 'no-store').send({ ok: true, doc_id: docId, message: a.t('upload.added', { file: read.file.filename }) });
    return reply.redirect(`${paths(deps.prefix, a.intake.session_id).step(node)}?added=${encodeURIComponent(docId)}`, 303);
  });

  const refuse = (request: FastifyRequest, reply: FastifyReply, a: ApplicantRequest, node: UploadNode, kind: Kind, problem: UploadError, href = `file-${kind.document_kind}`) => {
    const text = uploadErrorText(problem, kind, a.t);
    if (wantsJson(request)) return reply.code(STATUS_OF[problem]).header('cache-control', 'no-store').send({ ok: false, problem, message: text });
    return sendPage(reply, uploadPage(deps, a, { node, errors: [{ href, text }] }), STATUS_OF[problem]);
  };

  scope.post('/s/:sessionId/upload/:nodeId/remove', { config: { auth: 'applicant' } }, async (request, reply) => {
    const a = applicantOf(request);
    if (a.intake.status !== 'open') return closed(reply, a);
    const node = nodeOf(request);
    if (!node) return sendAppError(request, reply, deps, 'not_found');
    const removed = await removeApplicantDocument(deps.ctx, { ...a.proof, docId: formField(request.body, 'doc_id'), traceId: String(request.id) });
    if (!removed.ok && removed.code === 'forbidden') return sendAppError(request, reply, deps, 'forbidden');
    if (!removed.ok && removed.code === 'not_found') return sendAppError(request, reply, deps, 'not_found');
    if (!removed.ok) return closed(reply, a);
    return reply.redirect(`${paths(deps.prefix, a.intake.session_id).step(node)}?removed=1`, 303);
  });

  scope.post('/s/:sessionId/upload/:nodeId', { config: { auth: 'applicant' } }, async (request, reply) => {
    const a = applicantOf(request);
    if (a.intake.status !== 'open') return closed(reply, a);
    const node = nodeOf(request);
    if (!node) return sendAppError(request, reply, deps, 'not_found');
    const live = a.intake.documents.filter((d) => d.status !== 'failed');
    const errors = node.documents
      .filter((k) => k.required && !live.some((d) => d.document_kind === k.document_kind))
      .map((k) => ({ href: `file-${k.document_kind}`, text: a.t('upload.error.required', labelParams(k.label)) }));
    const returnTo = formField(request.body, 'return') === 'check' ? 'check' : '';
    if (errors.length > 0) return sendPage(reply, uploadPage(deps, a, { node, errors, returnTo }), 400);
    return reply.redirect(afterStep(deps.prefix, a.intake, node, returnTo), 303);
  });
}
