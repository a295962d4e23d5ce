import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { listConnectors } from '../../domain/connectors/connectors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { connectorViewSchema } from './connector-schemas.ts';

const connectorList = z.object({ connectors: z.array(connectorViewSchema) }).meta({ id: 'ConnectorList' });

/** GET /api/v1/connectors (issue 14): every connector of the workspace, by key. A workspace has few: no paging. */
export const listConnectorsRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/v1/connectors',
    {
      config: { auth: 'connectors:read' },
      schema: {
        operationId: 'listConnectors',
        summary: 'List connectors',
        description: 'Every connector of the workspace, ordered by key; secrets are never included.',
        tags: ['Connectors'],
        security: [{ bearerAuth: [] }],
        response: { 200: connectorList, ...errorResponses() },
      },
    },
    async (request) => {
      const key = authOf(request);
      return { connectors: await listConnectors(ctx, { orgId: key.orgId, environment: key.environment }) };
    },
  );
};
