import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../domain/deps.ts';
import type { Environment } from '../../config.ts';
import type { DoneCountCache } from '../../domain/console/queue-page.ts';
import type { OperatorSession } from '../../domain/operators/operator-sessions.ts';
import type { AssetRegistry } from '../assets.ts';
import { csrfToken } from '../csrf.ts';
import type { Tenant } from '../../ports/tenant.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in operator, set by the dashboard's access hook on every non-public route. */
    operatorSession?: OperatorSession;
  }
}

export const DASHBOARD_PREFIX = '/dashboard';
export const DASHBOARD_COOKIE = 'dossier_dash';
export const CSRF_PURPOSE = 'dashboard';

/** What every dashboard page module receives. */
export interface DashboardRouteDeps {
  ctx: AppContext;
  assets: AssetRegistry;
  secret: string;
  acceptedEnvironments: readonly Environment[];
  /** The queue tabs' `done` counts, reused for a minute by this process. */
  doneCounts: DoneCountCache;
}

/** Everything a dashboard view needs to know about who is looking, and at which environment. */
export interface DashboardViewer {
  operatorId: string;
  email: string;
  role: 'admin' | 'reviewer';
  orgId: string;
  orgName: string;
  environment: Environment;
  /** The CSRF token every form of this session carries. */
  csrf: string;
  /** The page's own path (navigation state, and where the environment switch returns). */
  path: string;
  stylesheet: string;
  scripts: string[];
  acceptedEnvironments: readonly Environment[];
  /** Unread integration notifications, shown in the navigation on every page; null for reviewers (they cannot read them). */
  unreadNotifications: number | null;
}

export function operatorSessionOf(request: FastifyRequest): OperatorSession {
  if (!request.operatorSession) throw new Error('operatorSessionOf called on a public dashboard route');
  return request.operatorSession;
}

export function tenantOf(request: FastifyRequest): Tenant {
  const { session } = operatorSessionOf(request);
  return { orgId: session.org_id, environment: session.environment };
}

export function viewerOf(
  request: FastifyRequest,
  deps: { secret: string; assets: AssetRegistry; acceptedEnvironments: readonly Environment[] },
): DashboardViewer {
  const { session, operator, orgName, unreadNotifications } = operatorSessionOf(request);
  return {
    operatorId: operator.operator_id,
    email: operator.email,
    role: operator.role,
    orgId: session.org_id,
    orgName,
    environment: session.environment,
    csrf: csrfToken(deps.secret, CSRF_PURPOSE, session.session_id),
    path: request.url.split('?')[0]!,
    stylesheet: deps.assets.url(DASHBOARD_PREFIX, 'dashboard.css'),
    scripts: [deps.assets.url(DASHBOARD_PREFIX, 'js/dashboard.js')],
    acceptedEnvironments: deps.acceptedEnvironments,
    unreadNotifications: operator.role === 'admin' ? unreadNotifications : null,
  };
}
