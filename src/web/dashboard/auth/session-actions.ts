import { z } from 'zod';
import { ENVIRONMENTS, type Environment } from '../../../config.ts';
import { signOut, switchEnvironment } from '../../../domain/operators/operator-sessions.ts';
import { AppError } from '../../../domain/errors.ts';
import { cookieBase, safeLocalPath } from '../../face.ts';
import { formText } from '../../page-route.ts';
import { DASHBOARD_COOKIE, DASHBOARD_PREFIX, operatorSessionOf } from '../context.ts';
import { dashboardRoute } from '../route.ts';

/** POST /dashboard/logout: ends the session and clears its cookie. */
export const signOutPost = dashboardRoute({
  method: 'POST',
  url: '/logout',
  auth: 'operator',
  handler: async ({ request, reply, deps }) => {
    await signOut(deps.ctx, { sessionId: operatorSessionOf(request).session.session_id });
    reply.clearCookie(DASHBOARD_COOKIE, { ...cookieBase(deps.ctx.config.baseUrl), sameSite: 'strict', path: DASHBOARD_PREFIX });
    return reply.redirect(`${DASHBOARD_PREFIX}/login?reason=signed_out`, 303);
  },
});

/** POST /dashboard/environment: the test/live switch, back to the page it was pressed on. */
export const environmentPost = dashboardRoute({
  method: 'POST',
  url: '/environment',
  auth: 'operator',
  body: z.object({ environment: formText, return_to: formText }),
  handler: async ({ request, reply, body, deps }) => {
    const environment = body.environment;
    if (!(ENVIRONMENTS as readonly string[]).includes(environment)) throw new AppError('invalid_request', 'Choose test or live.');
    const switched = await switchEnvironment(deps.ctx, { sessionId: operatorSessionOf(request).session.session_id, environment: environment as Environment });
    if (!switched.ok) throw AppError.from(switched);
    const back = safeLocalPath(body.return_to, DASHBOARD_PREFIX) ?? DASHBOARD_PREFIX;
    return reply.redirect(listPageOf(back), 303);
  },
});

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
