import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { readCaseEvents } from '../../domain/cases/read-case.ts';
import { unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { caseIdParams } from '../schemas/case-record.ts';
import { errorResponses } from '../schemas/error.ts';
import { withErrorCodes } from '../validation.ts';

const integerText = /^\s*\d+\s*$/;

const eventsQuery = withErrorCodes(
  z.object({
    after_cursor: z
      .string()
      .regex(integerText, 'must be a non-negative integer')
      .transform(Number)
      .pipe(z.number().int().min(0).max(2_147_483_647))
      .optional()
      .meta({ description: 'Return events with a greater cursor. Default 0.', type: 'integer', example: 0 }),
    limit: z
      .string()
      .regex(integerText, 'must be an integer from 1 to 500')
      .transform(Number)
      .pipe(z.number().int().min(1, 'must be from 1 to 500').max(500, 'must be from 1 to 500'))
      .optional()
      .meta({ description: 'Page size, 1 to 500. Default 100.', type: 'integer', example: 100 }),
  }),
  {
    after_cursor: { missing: 'invalid_after_cursor', invalid: 'invalid_after_cursor' },
    limit: { missing: 'invalid_limit', invalid: 'invalid_limit' },
  },
);

export const caseEventPageSchema = z
  .object({
    case_id: z.string(),
    events: z.array(
      z.object({
        event_id: z.string(),
        event_type: z.string().meta({ description: 'For example case.created, session.created, document.uploaded.' }),
        cursor: z.number().int(),
        created_at: z.string(),
        data: z.record(z.string(), z.unknown()),
      }),
    ),
    next_cursor: z.number().int().meta({ description: 'Send as after_cursor on the next poll.' }),
    has_more: z.boolean().meta({ description: 'When true, poll again at once.' }),
  })
  .meta({
    id: 'CaseEventPage',
    example: {
      case_id: 'case_8Kq2mZr4Tn6VwXy0Ab1Cd2Ef',
      events: [{ event_id: 'evt_3Hs9Lk2Pq8Rt5Vw1Xy4Za7Bc', event_type: 'case.created', cursor: 1, created_at: '2026-11-22T10:00:00.000Z', data: {} }],
      next_cursor: 1,
      has_more: false,
    },
  });

/** GET /api/v1/cases/{case_id}/events (spec §4.2). */
export const listCaseEventsRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/api/v1/cases/:case_id/events',
    {
      config: { auth: 'cases:read' },
      schema: {
        operationId: 'listCaseEvents',
        summary: 'Poll the case event log',
        description: 'Events in cursor order. Store next_cursor and send it as after_cursor; when has_more is true, poll again at once.',
        tags: ['Cases'],
        security: [{ bearerAuth: [] }],
        params: caseIdParams,
        querystring: eventsQuery,
        response: { 200: caseEventPageSchema, ...errorResponses(404) },
      },
    },
    async (request) =>
      unwrap(
        await readCaseEvents(ctx, {
          tenant: authOf(request),
          caseId: request.params.case_id,
          afterCursor: request.query.after_cursor ?? 0,
          limit: request.query.limit ?? 100,
        }),
      ),
  );
};
