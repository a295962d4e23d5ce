import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { removeConnector } from '../../domain/connectors/connectors.ts';
import { unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { connectorKeyParams } from './connector-schemas.ts';

const deleted = z.object({ connector_key: z.string(), deleted: z.literal(true) }).meta({ id: 'ConnectorDeleted' });

/** DELETE /api/v1/connectors/{connector_key} (issue 14). */
export const deleteConnectorRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.delete(
    '/api/v1/connectors/:connector_key',
    {
      config: { auth: 'connectors:write' },
      schema: {
        operationId: 'deleteConnector',
        summary: 'Delete a connector',
        description: 'Case types that name it are refused at their next put; calls already queued fail their attempts.',
        tags: ['Connectors'],
        security: [{ bearerAuth: [] }],
        params: connectorKeyParams,
        response: { 200: deleted, ...errorResponses(404) },
      },
    },
    async (request) => {
      const key = authOf(request);
      return unwrap(await removeConnector(ctx, { orgId: key.orgId, environment: key.environment, connectorKey: request.params.connector_key }));
    },
  );
};
