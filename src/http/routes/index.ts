import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../app-context.ts';
import { healthRoutes } from './health.ts';
import { openApiRoute } from './openapi.get.ts';

/** Every route of the service, one file per operation. */
export const apiRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  await app.register(healthRoutes, { ctx });
  await app.register(openApiRoute);
};
