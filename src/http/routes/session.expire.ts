import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { unwrap } from '../../domain/errors.ts';
import { expireSession } from '../../domain/sessions/expire-session.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';
import { expiredSessionSchema } from '../schemas/session.ts';

// A path id that is not a UUID names no session: the validator answers 404, not 400.
const sessionIdParams = z.object({
  session_id: z.uuid().meta({ description: 'The `session_id` that `POST /api/v1/sessions` answered (a UUID).' }),
});

/** POST /api/v1/sessions/{session_id}/expire (issue 25, item 4). */
export const expireSessionRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.post(
    '/api/v1/sessions/:session_id/expire',
    {
      config: { auth: 'sessions:write' },
      schema: {
        operationId: 'expireSession',
        summary: 'Expire an open session',
        description: [
          'Ends an open session now, as Stripe expires a Checkout Session: its link answers 410 Gone, and the case ends as the expiry sweep would end it:',
          '`v1.session.expired`, then `v1.case.completed` with `case_status: abandoned` (whether the applicant had started or not).',
          '',
          'Expiring an expired session answers it again, with no new events. A submitted session is refused with 400 `invalid_request`: its case goes on without the link.',
          'An unknown id, or another workspace’s, is 404.',
        ].join('\n'),
        tags: ['Sessions'],
        security: [{ bearerAuth: [] }],
        params: sessionIdParams,
        response: { 200: expiredSessionSchema, ...errorResponses(404) },
      },
    },
    async (request) => {
      const key = authOf(request);
      const session = unwrap(
        await expireSession(ctx, { tenant: { orgId: key.orgId, environment: key.environment }, sessionId: request.params.session_id, traceId: String(request.id) }),
      );
      return session as z.infer<typeof expiredSessionSchema>;
    },
  );
};
