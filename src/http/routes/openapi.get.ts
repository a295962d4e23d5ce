import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/** GET /api/v1/openapi.json — public, no key (contract §10). */
export const openApiRoute: FastifyPluginAsyncZod = async (app) => {
  app.get('/api/v1/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());
};
