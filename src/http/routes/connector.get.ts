import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../domain/deps.ts';
import { getConnector } from '../../domain/connectors/connectors.ts';
import { unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { connectorKeyParams, connectorViewSchema } from './connector-schemas.ts';

/** GET /api/v1/connectors/{connector_key} (issue 14). */
export const getConnectorRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/v1/connectors/:connector_key',
    {
      config: { auth: 'connectors:read' },
      schema: {
        operationId: 'getConnector',
        summary: 'Read a connector',
        description: 'The manifest as stored, without its secret: edit it and PUT it back.',
        tags: ['Connectors'],
        security: [{ bearerAuth: [] }],
        params: connectorKeyParams,
        response: { 200: connectorViewSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const key = authOf(request);
      return unwrap(await getConnector(ctx, { orgId: key.orgId, environment: key.environment, connectorKey: request.params.connector_key }));
    },
  );
};
