import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../domain/deps.ts';
import type { Environment } from '../../config.ts';
import { resolveOperatorSession } from '../../domain/operators/operator-sessions.ts';
import { DoneCountCache } from '../../domain/console/queue-page.ts';
import type { AssetRegistry } from '../assets.ts';
import { CSRF_FIELD, csrfMatches } from '../csrf.ts';
import { cookieBase, formField } from '../face.ts';
import { signInPage, signInPost } from './auth/sign-in.ts';
import { environmentPost, signOutPost } from './auth/session-actions.ts';
import { joinPage, joinPost } from './auth/join.ts';
import { CSRF_PURPOSE, DASHBOARD_COOKIE, DASHBOARD_PREFIX, type DashboardRouteDeps } from './context.ts';
import { dashboardErrorHandler, sendDashboardError } from './errors.ts';
import { overviewPage } from './overview.ts';
import { registerPages } from '../page-route.ts';
import { developerPages } from './developers/index.ts';
import { CASE_TYPE_UPLOAD_PARSER, caseTypeUploadPost } from './developers/case-types/upload.ts';
import { casePages } from './cases/index.ts';
import { CASE_TYPE_TRY_PARSER, caseTypeTryPost } from './developers/case-types/try.ts';

/**
 * The workspace dashboard at /dashboard. Access is decided before any handler runs:
 * - every route must declare `auth` (`public`, `operator` or `admin`), or start-up fails;
 * - a non-public route needs a live operator session (else: to the sign-in page);
 * - an `admin` route (developer settings, erasure) refuses reviewers with 403, whatever the page shows;
 * - every POST carries the session's CSRF token (the sign-in form has its own double-submit nonce).
 */
export const dashboardFace: FastifyPluginAsync<{ ctx: AppContext; assets: AssetRegistry }> = async (scope, { ctx, assets }) => {
  const deps: DashboardRouteDeps = { ctx, assets, secret: ctx.secret, acceptedEnvironments: ctx.config.acceptedKeyEnvironments, doneCounts: new DoneCountCache() };
  scope.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (auth !== 'public' && auth !== 'operator' && auth !== 'admin') {
      throw new Error(`dashboard route ${String(route.method)} ${route.url} must declare config.auth: 'public', 'operator' or 'admin'`);
    }
  });

  scope.addHook('onRequest', async (request, reply) => {
    const auth = request.routeOptions.config.auth;
    if (auth === 'public' || auth === undefined) return;
    const resolved = await resolveOperatorSession(ctx, { token: request.cookies[DASHBOARD_COOKIE] });
    if (resolved.kind !== 'active') {
      if (resolved.kind === 'expired') reply.clearCookie(DASHBOARD_COOKIE, { ...cookieBase(ctx.config.baseUrl), sameSite: 'strict', path: DASHBOARD_PREFIX });
      const next = request.method === 'GET' ? `&next=${encodeURIComponent(request.url)}` : '';
      return reply.redirect(`${DASHBOARD_PREFIX}/login?reason=${resolved.kind === 'expired' ? 'expired' : 'none'}${next}`, 303);
    }
    request.operatorSession = resolved.value;
    if (auth === 'admin' && resolved.value.operator.role !== 'admin') {
      const what = request.url.startsWith(`${DASHBOARD_PREFIX}/developers`) ? 'Developer settings are' : 'This is';
      return sendDashboardError(request, reply, deps, 403, `${what} for workspace admins. Ask an admin if you need access.`);
    }
  });

  scope.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || !request.operatorSession) return;
    if (!csrfMatches(ctx.secret, CSRF_PURPOSE, request.operatorSession.session.session_id, formField(request.body, CSRF_FIELD))) {
      return sendDashboardError(request, reply, deps, 403, 'This form had expired or did not come from this page. Go back, reload the page and try again.');
    }
  });

  scope.setErrorHandler(dashboardErrorHandler(deps));
  scope.setNotFoundHandler({}, (request, reply) => sendDashboardError(request, reply, deps, 404));

  assets.register(scope);
  registerPages(scope, deps, [signInPage, signInPost, joinPage, joinPost, signOutPost, environmentPost, overviewPage, ...casePages, ...developerPages]);
  // The case type upload is a multipart form: its parser, with its limits, only in a scope of its own.
  scope.register(async (upload) => {
    await upload.register(multipart, CASE_TYPE_UPLOAD_PARSER);
    registerPages(upload, deps, [caseTypeUploadPost]);
  });
  // Trying a sample document: a file up to the upload limit, in a scope of its own with that limit.
  scope.register(async (sample) => {
    await sample.register(multipart, CASE_TYPE_TRY_PARSER);
    registerPages(sample, deps, [caseTypeTryPost]);
  });
};

export type DashboardScope = FastifyInstance;
