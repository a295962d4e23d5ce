import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { listQueue } from '../../domain/cases/list-queue.ts';
import { QUEUE_CATEGORIES } from '../../domain/cases/queue.ts';
import { RUNTIME_STATUSES } from '../../domain/cases/state-machine.ts';
import { unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { queueRowSchema } from '../schemas/case-record.ts';
import { errorResponses } from '../schemas/error.ts';
import { exampleQueueRow } from '../schemas/examples.ts';
import { withErrorCodes } from '../validation.ts';

const listQuery = withErrorCodes(
  z.object({
    queue_category: z.enum(QUEUE_CATEGORIES).optional(),
    runtime_status: z.enum(RUNTIME_STATUSES as [string, ...string[]]).optional(),
    case_type_id: z.string().min(1).max(64).optional(),
    limit: z
      .string()
      .regex(/^\s*\d+\s*$/, 'must be an integer from 1 to 500')
      .transform(Number)
      .pipe(z.number().int().min(1, 'must be from 1 to 500').max(500, 'must be from 1 to 500'))
      .optional()
      .meta({ description: 'Page size, 1 to 500. Default 50.', type: 'integer', example: 50 }),
    starting_after: z.string().min(1).max(300).optional().meta({ description: 'The next_cursor of the previous page.' }),
  }),
  { limit: { missing: 'invalid_limit', invalid: 'invalid_limit' } },
);

const queuePage = z
  .object({ data: z.array(queueRowSchema), has_more: z.boolean(), next_cursor: z.string().nullable() })
  .meta({ id: 'QueuePage', description: 'Queue rows, oldest first by sort_timestamp.', example: { data: [exampleQueueRow], has_more: false, next_cursor: null } });

/** GET /api/v1/cases — the operator queue of the workspace. */
export const listCasesRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/v1/cases',
    {
      config: { auth: 'cases:read' },
      schema: {
        operationId: 'listCases',
        summary: 'List the case queue',
        description: 'Queue rows filtered by queue_category, runtime_status and case_type_id, sorted by sort_timestamp (oldest first), cursor-paged.',
        tags: ['Cases'],
        security: [{ bearerAuth: [] }],
        querystring: listQuery,
        response: { 200: queuePage, ...errorResponses() },
      },
    },
    async (request) => {
      const q = request.query;
      return unwrap(
        await listQueue(ctx, {
          tenant: authOf(request),
          query: {
            queueCategory: q.queue_category,
            runtimeStatus: q.runtime_status,
            caseTypeId: q.case_type_id,
            startingAfter: q.starting_after,
            limit: q.limit ?? 50,
          },
        }),
      ) as z.infer<typeof queuePage>;
    },
  );
};
