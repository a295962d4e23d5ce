import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';

const healthSchema = z.object({ status: z.enum(['ok', 'ready', 'unavailable']) });

/** Liveness and readiness for orchestrators; not part of the versioned API. */
export const healthRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/healthz',
    { config: { auth: 'public' }, schema: { hide: true, response: { 200: healthSchema } } },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    { config: { auth: 'public' }, schema: { hide: true, response: { 200: healthSchema, 503: healthSchema } } },
    async (_request, reply) =>
      (await ctx.databaseReachable()) ? { status: 'ready' as const } : reply.code(503).send({ status: 'unavailable' }),
  );
};
