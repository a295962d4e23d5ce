import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../domain/deps.ts';
import { putConnector, validateManifest } from '../../domain/connectors/connectors.ts';
import { connectorManifestSchema } from '../../domain/connectors/manifest.ts';
import { unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { connectorViewSchema } from './connector-schemas.ts';

/**
 * POST /api/v1/connectors (issue 14): imports a manifest, `connector_key` in the body. The body is
 * validated by the domain (`attachValidation`), which lists every problem with its JSON path
 * rather than the first one only.
 */
export const createConnectorRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/connectors',
    {
      config: { auth: 'connectors:write' },
      attachValidation: true,
      schema: {
        operationId: 'createConnector',
        summary: 'Import a connector manifest',
        description:
          'Creates the connector under the body’s `connector_key` (201), or replaces the one already there (200, `version` + 1). ' +
          'A missing key is `missing_connector_key`; any other problem is `invalid_connector_payload`, whose message lists every problem with its JSON path. ' +
          'The auth secret is sealed at rest and never returned (`secret_set: true`).',
        tags: ['Connectors'],
        security: [{ bearerAuth: [] }],
        body: connectorManifestSchema,
        response: { 200: connectorViewSchema, 201: connectorViewSchema, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const key = authOf(request);
      const manifest = unwrap(validateManifest(ctx, request.body as unknown));
      const put = unwrap(await putConnector(ctx, { orgId: key.orgId, environment: key.environment, manifest }));
      reply.code(put.created ? 201 : 200);
      return put.connector;
    },
  );
};
