import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../domain/deps.ts';
import { AssetRegistry } from './assets.ts';
import { dashboardFace } from './dashboard/index.ts';
import { registerFaceBasics } from './face.ts';
import { DASHBOARD_PREFIX } from './dashboard/context.ts';
import { applicantFace } from './app/index.ts';
import { apiReferencePages } from './dashboard/developers/api-reference.ts';
import { faviconPage } from './favicon.ts';
import { registerPages } from './page-route.ts';

/**
 * The two faces for people: the applicant app under {app_url}'s path and the dashboard under
 * /dashboard, in one encapsulated scope, so cookies, form parsing, compression and the page
 * security headers never reach the API's routes.
 */
export const webFaces: FastifyPluginAsync<{ ctx: AppContext }> = async (web, { ctx }) => {
  const assets = new AssetRegistry();
  // Pages are not API operations: keep them out of the OpenAPI document the client is generated from.
  web.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await registerFaceBasics(web);
  await web.register(dashboardFace, { ctx, assets, prefix: DASHBOARD_PREFIX });
  registerPages(web, undefined, [...apiReferencePages, faviconPage]);
  if (ctx.config.appUrl !== null) {
    const prefix = applicantAppPrefix(ctx.config.appUrl);
    await web.register(applicantFace, { ctx, assets, prefix });
  }
};

/** The path the applicant app is mounted on: APP_URL's path (`/app` by default), '' for a host of its own. */
export function applicantAppPrefix(appUrl: string): string {
  return new URL(appUrl).pathname.replace(/\/+$/, '');
}
