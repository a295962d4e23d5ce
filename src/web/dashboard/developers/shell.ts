import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Markup } from '../../render.ts';
import { sendPage } from '../../render.ts';
import type { ErrorItem } from '../../ui/components.ts';
import { viewerOf, type DashboardViewer, type DashboardRouteDeps } from '../context.ts';
import { dashboardPage, type NavKey } from '../layout.ts';

export interface DeveloperPage {
  title: string;
  nav: NavKey;
  errors?: readonly ErrorItem[];
  status?: number;
  body: (viewer: DashboardViewer) => Markup;
}

/** Renders a developer settings page in the dashboard shell (the navigation's unread count comes with the viewer, on every page). */
export async function sendDeveloperPage(request: FastifyRequest, reply: FastifyReply, deps: DashboardRouteDeps, page: DeveloperPage): Promise<FastifyReply> {
  const viewer = viewerOf(request, deps);
  return sendPage(
    reply,
    dashboardPage({
      viewer,
      title: page.title,
      nav: page.nav,
      ...(page.errors ? { errors: page.errors } : {}),
      children: page.body(viewer),
    }),
    page.status ?? 200,
  );
}
