import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../domain/deps.ts';
import { putConnector, validateManifest } from '../../domain/connectors/connectors.ts';
import { connectorManifestSchema } from '../../domain/connectors/manifest.ts';
import { AppError, unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { connectorKeyParams, connectorViewSchema } from './connector-schemas.ts';

/** PUT /api/v1/connectors/{connector_key} (issue 14): create (201) or replace (200, `version` + 1). */
export const putConnectorRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.put(
    '/api/v1/connectors/:connector_key',
    {
      config: { auth: 'connectors:write' },
      attachValidation: true,
      schema: {
        operationId: 'putConnector',
        summary: 'Create or replace a connector',
        description:
          'The body is a manifest; its `connector_key` may be left out, and must equal the path’s when given (else `invalid_connector_payload`). ' +
          'A replacement that sends no `auth.secret` for the same auth type keeps the stored secret, so a connector read with GET can be PUT back unchanged.',
        tags: ['Connectors'],
        security: [{ bearerAuth: [] }],
        params: connectorKeyParams,
        body: connectorManifestSchema,
        response: { 200: connectorViewSchema, 201: connectorViewSchema, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const key = authOf(request);
      const pathKey = (request.params as { connector_key: string }).connector_key;
      if (pathKey.trim() === '') throw new AppError('missing_connector_key', 'The connector key path segment is empty: use /api/v1/connectors/{connector_key}.');
      const body = request.body as unknown;
      const fields = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
      if (fields.connector_key !== undefined && fields.connector_key !== pathKey) {
        throw new AppError('invalid_connector_payload', `The connector manifest has 1 problem: $.connector_key: must equal the path's connector key "${pathKey}".`);
      }
      const manifest = unwrap(validateManifest(ctx, { ...fields, connector_key: pathKey }));
      const put = unwrap(await putConnector(ctx, { orgId: key.orgId, environment: key.environment, manifest }));
      reply.code(put.created ? 201 : 200);
      return put.connector;
    },
  );
};
