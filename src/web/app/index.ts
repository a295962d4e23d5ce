import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { consumeRateLimit } from '../../domain/rate-limit/rate-limit.ts';
import { loadApplicantIntake, MAX_DOCUMENT_BYTES } from '../../domain/intake/applicant-intake.ts';
import type { AssetRegistry } from '../assets.ts';
import { CSRF_FIELD, csrfMatches } from '../csrf.ts';
import { formField } from '../face.ts';
import { APPLICANT_COOKIE, applicantCsrf, applicantLanguage, CSRF_PURPOSE, setApplicantCookie, type AppRouteDeps } from './context.ts';
import { registerLanguageChoice } from './language-choice.ts';
import { appErrorHandler, sendAppError } from './errors.ts';
import { linkPage } from './link.ts';
import { formStepPage, saveFormStepPage } from './step-form.ts';
import { continueUploadPage, removeFilePage, uploadFilesPage, uploadStepPage } from './step-upload.ts';
import { sampleDocumentPage } from './sample-documents.ts';
import { checkAnswersPage, submitPage } from './check-answers.ts';
import { statusPage } from './status.ts';
import { statusJsonPage } from './status-json.ts';
import { answerFollowUpsPage, followUpsPage } from './follow-ups.ts';
import { answerConfirmPage, confirmExtractedPage } from './confirm-extracted.ts';
import { pageImagePage } from './page-image.ts';
import { taskListPage } from './task-list.ts';
import { registerPages } from '../page-route.ts';

/** Writes one applicant may make per minute: generous for a person, a wall for a script. */
export const APPLICANT_WRITES_PER_MINUTE = 60;

/**
 * The hosted applicant app under APP_URL's path. Access is decided before any handler runs:
 * - every route declares `auth`: `applicant` (the session's pages) or `public` (assets), or start-up fails;
 * - an `applicant` route reads the session with the token from the link (first visit) or the
 *   session cookie, through `loadApplicantIntake` (constant-time check); a wrong or missing token
 *   is a 403 page, an expired session a 410 page;
 * - every POST carries the session's CSRF token and counts against the session's write limit.
 * The token itself is the cookie: the domain operations demand it on every write (hardening §6).
 */
export const applicantFace: FastifyPluginAsync<{ ctx: AppContext; assets: AssetRegistry; prefix: string }> = async (scope, { ctx, assets, prefix }) => {
  const deps: AppRouteDeps = { ctx, assets, prefix };
  scope.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (auth !== 'public' && auth !== 'applicant') {
      throw new Error(`applicant route ${String(route.method)} ${route.url} must declare config.auth: 'public' or 'applicant'`);
    }
  });
  await scope.register(multipart, {
    // One file per upload, but browsers send every file input of the form (the picker and the
    // camera), the unused one empty. A file's size limit is the documents' limit plus one byte, so
    // "too big" is told apart from "exactly 20 MB". Fields are the CSRF token and the document kind.
    limits: { fileSize: MAX_DOCUMENT_BYTES + 1, files: 2, fields: 5, fieldSize: 1024, parts: 7 },
  });

  scope.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.auth !== 'applicant') return;
    const sessionId = SessionAddress.safeParse(request.params).data?.sessionId ?? '';
    const token = tokenOf(request);
    if (!token) return sendAppError(request, reply, deps, 'forbidden');
    const loaded = await loadApplicantIntake(ctx, { sessionId, token });
    if (!loaded.ok) return sendAppError(request, reply, deps, 'forbidden');
    const intake = loaded.value;
    const proof = { sessionId: intake.session_id, token };
    request.applicant = { proof, ...applicantLanguage(request, intake), csrf: applicantCsrf(ctx.secret, proof) };
    // A submitted session keeps its status page after expiry; only an open one stops working.
    if (intake.expired && intake.status !== 'submitted') {
      return sendAppError(request, reply, deps, 'expired', { returnUrl: intake.return_url, orgName: intake.org_name });
    }
    if (token !== request.cookies[APPLICANT_COOKIE]) {
      // First visit through the link: keep the token in an HttpOnly cookie and take it out of the
      // address bar, history, logs and any Referer at once.
      setApplicantCookie(reply, deps, proof, intake.expires_at);
      return reply.redirect(request.url.split('?')[0]!, 303);
    }
    if (request.method === 'POST') {
      const limited = await consumeRateLimit(ctx, { subject: `applicant:${intake.session_id}`, limit: APPLICANT_WRITES_PER_MINUTE });
      if (!limited.ok) return sendAppError(request, reply, deps, 'rate_limited');
    }
  });

  // Every POST shows the token before its handler runs, whatever its encoding (issue 23 §3: a
  // multipart submit used to pass unchecked). A body that is not parsed (multipart to a form
  // route, text/plain) has no token to show, so it is refused. Uploads read the same token from
  // the stream's first field, before keeping a byte, and declare it with `csrfInStream`.
  scope.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || !request.applicant) return;
    if (request.routeOptions.config.csrfInStream && request.isMultipart()) return;
    if (!csrfMatches(ctx.secret, CSRF_PURPOSE, `${request.applicant.proof.sessionId}:${request.applicant.proof.token}`, formField(request.body, CSRF_FIELD))) {
      return sendAppError(request, reply, deps, 'csrf');
    }
  });

  registerLanguageChoice(scope, deps);
  scope.setErrorHandler(appErrorHandler(deps));
  scope.setNotFoundHandler({}, (request, reply) => sendAppError(request, reply, deps, 'not_found'));

  assets.register(scope);
  registerPages(scope, deps, [
    linkPage,
    taskListPage,
    formStepPage,
    saveFormStepPage,
    uploadStepPage,
    continueUploadPage,
    uploadFilesPage,
    removeFilePage,
    sampleDocumentPage,
    confirmExtractedPage,
    answerConfirmPage,
    pageImagePage,
    checkAnswersPage,
    submitPage,
    statusPage,
    statusJsonPage,
    followUpsPage,
    answerFollowUpsPage,
  ]);
};

/** The session an `applicant` route's address names (its pages declare `:sessionId`). */
const SessionAddress = z.object({ sessionId: z.string().optional() });

/** The link's `?token=`: a text, not empty. */
const LinkToken = z.object({ token: z.string().min(1) });

/** The link's token on the first visit (GET of the session address), else the session cookie. */
function tokenOf(request: FastifyRequest): string | undefined {
  const link = LinkToken.safeParse(request.query);
  if (request.method === 'GET' && link.success) return link.data.token;
  return request.cookies[APPLICANT_COOKIE];
}
