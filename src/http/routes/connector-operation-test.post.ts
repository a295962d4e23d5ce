import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { testConnectorOperation } from '../../domain/connectors/test-operation.ts';
import { unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { connectorKeyParams } from './connector-schemas.ts';

const params = connectorKeyParams.extend({ operation_id: z.string().min(1).max(128).meta({ example: 'createApplication' }) });

const body = z.object({
  inputs: z
    .record(z.string().min(1).max(200), z.unknown())
    .default({})
    .meta({ description: 'Sample values by parameter or body field name (a dotted name nests in the body), as an action node’s inputs render.', example: { applicant_name: 'Jane Doe' } }),
}).meta({ example: { inputs: { applicant_name: 'Jane Doe', reference: 'loan-4711' } } });

const result = z
  .object({
    success: z.boolean().meta({ description: 'A 2xx answer.' }),
    method: z.string(),
    url: z.string(),
    status_code: z.number().int().nullable().meta({ description: 'Null when there was no HTTP answer.' }),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
    response_excerpt: z.string().nullable().meta({ description: 'The first 2,000 characters of the answer.' }),
  })
  .meta({ id: 'ConnectorOperationTest' });

/** POST /api/v1/connectors/{connector_key}/operations/{operation_id}/test (issue 14). */
export const testConnectorOperationRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/connectors/:connector_key/operations/:operation_id/test',
    {
      config: { auth: 'connectors:write' },
      schema: {
        operationId: 'testConnectorOperation',
        summary: 'Call one connector operation with sample inputs',
        description:
          'A real call, made now through the SSRF-safe client with the connector’s auth and `Idempotency-Key: test:<uuid>`: check that an import is wired correctly. ' +
          'A failing or unreachable API is 200 with `success: false`.',
        tags: ['Connectors'],
        security: [{ bearerAuth: [] }],
        params,
        body,
        response: { 200: result, ...errorResponses(404) },
      },
    },
    async (request) => {
      const key = authOf(request);
      return unwrap(
        await testConnectorOperation({ ...ctx, http: ctx.outbound.connectors }, {
          orgId: key.orgId,
          environment: key.environment,
          connectorKey: request.params.connector_key,
          operationId: request.params.operation_id,
          inputs: request.body.inputs,
        }),
      );
    },
  );
};
