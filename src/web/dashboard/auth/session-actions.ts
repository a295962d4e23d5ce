import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../domain/deps.ts';
import { ENVIRONMENTS, type Environment } from '../../../config.ts';
import { signOut, switchEnvironment } from '../../../domain/operators/operator-sessions.ts';
import { AppError } from '../../../domain/errors.ts';
import { cookieBase, formField, safeLocalPath } from '../../face.ts';
import { DASHBOARD_COOKIE, DASHBOARD_PREFIX, operatorSessionOf } from '../context.ts';

/** POST /dashboard/logout and POST /dashboard/environment (the test/live switch). */
export function registerSessionActions(scope: FastifyInstance, ctx: AppContext): void {
  scope.post('/logout', { config: { auth: 'operator' } }, async (request, reply) => {
    await signOut(ctx, { sessionId: operatorSessionOf(request).session.session_id });
    reply.clearCookie(DASHBOARD_COOKIE, { ...cookieBase(ctx.config.baseUrl), sameSite: 'strict', path: DASHBOARD_PREFIX });
    return reply.redirect(`${DASHBOARD_PREFIX}/login?reason=signed_out`, 303);
  });

  scope.post('/environment', { config: { auth: 'operator' } }, async (request, reply) => {
    const environment = formField(request.body, 'environment');
    if (!(ENVIRONMENTS as readonly string[]).includes(environment)) throw new AppError('invalid_request', 'Choose test or live.');
    const switched = await switchEnvironment(ctx, { sessionId: operatorSessionOf(request).session.session_id, environment: environment as Environment });
    if (!switched.ok) throw AppError.from(switched);
    const back = safeLocalPath(formField(request.body, 'return_to'), DASHBOARD_PREFIX) ?? DASHBOARD_PREFIX;
    return reply.redirect(listPageOf(back), 303);
  });
}

/**
 * Where the switch returns: the page it was pressed on, cut back to its list page when the path
 * names an item (ids hold `_` or digits, page names never do), since that item belongs to the
 * environment just left.
 */
export function listPageOf(path: string): string {
  const segments = path.split('/');
  const item = segments.findIndex((s, i) => i > 1 && /[_0-9]/.test(s));
  return item === -1 ? path : segments.slice(0, item).join('/');
}
