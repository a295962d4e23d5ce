import type { FastifyInstance } from 'fastify';
import { html, sendPage } from '../render.ts';
import { dashboardPage } from './layout.ts';
import type { DashboardRouteDeps } from './index.ts';
import { viewerOf } from './context.ts';

/** GET /dashboard: the overview. (The operator-console work replaces this with counts and charts.) */
export function registerOverview(scope: FastifyInstance, deps: DashboardRouteDeps): void {
  scope.get('/', { config: { auth: 'operator' } }, async (request, reply) => {
    const viewer = viewerOf(request, deps);
    return sendPage(
      reply,
      dashboardPage({
        viewer,
        title: 'Overview',
        nav: 'overview',
        children: html`<div class="page-header"><h1>Overview</h1></div>
          <div class="card"><p>Signed in as ${viewer.email}. <a href="/dashboard/cases">Go to the case queue</a>.</p></div>`,
      }),
    );
  });
}
