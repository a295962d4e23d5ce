import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Config } from '../config.ts';
import { enrichReference } from './reference/reference-document.ts';

/**
 * The OpenAPI 3.1 document is generated from the zod schemas the routes validate with, so the
 * contract we publish and the one we enforce cannot drift apart.
 */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Dossier API',
        version: '1.0.0',
        summary: 'Case intake and handoff: hosted intake sessions, evidence-backed facts, signed webhook handoff.',
        description:
          'All endpoints live under /api/v1 and take `Authorization: Bearer <API_KEY>` (sk_test_… or sk_live_…). ' +
          'Errors share one envelope; every response carries X-Request-Id.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: config.baseUrl, description: 'This deployment' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: sk_test_… or sk_live_….' },
        },
      },
      tags: [
        { name: 'Sessions', description: 'Hosted intake sessions.' },
        { name: 'Cases', description: 'Case state, events and the review-ready package.' },
        { name: 'Documents', description: 'Document processing and erasure.' },
        { name: 'Webhooks', description: 'Signed webhook delivery, tests and acknowledgements.' },
        { name: 'Connectors', description: 'Descriptions of your own API that workflow action nodes call.' },
        { name: 'Case types', description: 'Trying a case type’s fact definitions on a sample document.' },
        { name: 'Operations', description: 'Health checks and this API description; no key needed.' },
      ],
    },
    transform: jsonSchemaTransform,
    // The generated document, then what makes it a reference to copy from (samples, descriptions, events).
    transformObject: (input) => enrichReference(jsonSchemaTransformObject(input) as Record<string, unknown>, config.baseUrl) as ReturnType<typeof jsonSchemaTransformObject>,
  });
}
