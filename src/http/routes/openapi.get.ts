import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/** GET /api/v1/openapi.json — public, no key (contract §10). */
export const openApiRoute: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/v1/openapi.json',
    {
      config: { auth: 'public' },
      schema: {
        operationId: 'getOpenApiDocument',
        summary: 'This API description',
        description: 'The OpenAPI 3.1 document of this deployment, generated from the schemas the routes validate with. No key needed.',
        tags: ['Operations'],
        security: [],
      },
    },
    async () => app.swagger(),
  );
};
