import type { DashboardRouteDeps } from './context.ts';
import type { WebPage } from '../page-route.ts';

/** Who may open a dashboard page; the dashboard's access hook enforces it before the handler runs. */
export type PageAuth = 'public' | 'operator' | 'admin';

export type DashboardPage<P = unknown, Q = unknown, B = unknown> = WebPage<DashboardRouteDeps, PageAuth, P, Q, B>;

/** Declares a dashboard page: the identity function that lets TypeScript infer P, Q and B from the schemas. */
export function dashboardRoute<P = Record<string, never>, Q = Record<string, never>, B = Record<string, never>>(page: DashboardPage<P, Q, B>): DashboardPage<P, Q, B> {
  return page;
}
