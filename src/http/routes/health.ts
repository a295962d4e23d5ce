import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';

const healthSchema = z.object({ status: z.enum(['ok', 'ready', 'unavailable']) });

/** Liveness and readiness for orchestrators; not part of the versioned API. */
export const healthRoutes: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/healthz',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'checkHealth',
        summary: 'Liveness',
        description: 'Answers 200 while the process serves requests. Not versioned; no key needed.',
        tags: ['Operations'],
        security: [],
        response: { 200: healthSchema.meta({ description: 'The process is alive.' }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  app.get(
    '/readyz',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'checkReadiness',
        summary: 'Readiness',
        description: 'Answers 200 when the database answers, 503 when it does not: route traffic only to ready processes. No key needed.',
        tags: ['Operations'],
        security: [],
        response: { 200: healthSchema, 503: healthSchema },
      },
    },
    async (_request, reply) =>
      (await ctx.databaseReachable()) ? { status: 'ready' as const } : reply.code(503).send({ status: 'unavailable' }),
  );
};
