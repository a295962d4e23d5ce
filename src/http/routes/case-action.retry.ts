import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { retryAction } from '../../domain/connectors/retry-action.ts';
import { unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { actionStateSchema, caseIdParams } from '../schemas/case-record.ts';
import { errorResponses } from '../schemas/error.ts';

const params = caseIdParams.extend({
  node_id: z.string().min(1).max(64).meta({ description: 'The action node of the case type’s workflow.', example: 'create_loan_application' }),
});

/** POST /api/v1/cases/{case_id}/actions/{node_id}/retry (issue 14). */
export const retryCaseActionRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/cases/:case_id/actions/:node_id/retry',
    {
      config: { auth: 'cases:write' },
      schema: {
        operationId: 'retryCaseAction',
        summary: 'Send a failed workflow action again',
        description:
          'Only a `failed` action: it goes back to `pending` with a fresh budget of attempts and the same `Idempotency-Key: <case_id>:<node_id>`; its inputs are rendered again from the case when it is sent. ' +
          'Any other status is 400 `invalid_request`; an action whose trigger has not fired is 404.',
        tags: ['Cases'],
        security: [{ bearerAuth: [] }],
        params,
        response: { 200: actionStateSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const key = authOf(request);
      const action = unwrap(
        await retryAction(ctx, { orgId: key.orgId, environment: key.environment, caseId: request.params.case_id, nodeId: request.params.node_id, actor: key.keyId }),
      );
      ctx.wake.notify('connector-calls');
      return action;
    },
  );
};
