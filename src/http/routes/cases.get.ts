import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { CODE_FINGERPRINT } from '../../code-fingerprint.ts';
import { heldCaseRecords } from '../../domain/cases/held-case-records.ts';
import { readCaseRecordText } from '../../domain/cases/read-case.ts';
import { unwrap } from '../../domain/errors.ts';
import { authOf } from '../plugins/authenticate.ts';
import { caseIdParams, caseRecordSchema } from '../schemas/case-record.ts';
import { errorResponses } from '../schemas/error.ts';

/** True when an If-None-Match list names `etag` (weak comparison, RFC 9110 §13.1.2) or is `*`. */
function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === bare;
  });
}

/** GET /api/v1/cases/{case_id} (spec §4.1). */
export const getCaseRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  // Text this process served, re-sent while the revision mirror says it is current (issue 29).
  const held = ctx.caseRevisions ? { records: heldCaseRecords(), revisions: ctx.caseRevisions } : undefined;
  // The mirror's answer for a case whose text this process holds, asked for while the rate limit
  // is counted (one round trip to Redis in a read's path instead of two in a row).
  const mirrorLookups = new WeakMap<FastifyRequest, Promise<number | undefined>>();
  app.get(
    '/api/v1/cases/:case_id',
    {
      config: {
        auth: 'cases:read',
        prefetch: (request, key) => {
          const caseId = (request.params as { case_id?: unknown }).case_id;
          if (!held || typeof caseId !== 'string') return;
          const record = held.records.get(caseId);
          if (record && record.orgId === key.orgId && record.environment === key.environment) mirrorLookups.set(request, held.revisions.current(caseId));
        },
      },
      schema: {
        operationId: 'getCase',
        summary: 'Read a case',
        description:
          'The current, canonical case record: read it after a webhook for the state to act on. Every answer carries an `ETag`; a poller that sends it back in `If-None-Match` gets 304 with no body until the case changes.',
        tags: ['Cases'],
        security: [{ bearerAuth: [] }],
        params: caseIdParams,
        headers: z.looseObject({
          'if-none-match': z.string().optional().meta({ description: 'The ETag of the record you hold: 304 while it is still current.' }),
        }),
        response: {
          200: caseRecordSchema,
          304: z.null().meta({ description: 'Not modified: the record you hold (its ETag sent in If-None-Match) is current.' }),
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const record = unwrap(
        await readCaseRecordText(
          { db: ctx.db, format: CODE_FINGERPRINT, verify: ctx.config.validateResponses, held },
          { tenant: authOf(request), caseId: request.params.case_id, mirrored: mirrorLookups.get(request) },
        ),
      );
      // The revision moves with every change of what the record shows; the fingerprint with the code that renders it.
      const etag = `"${record.revision}-${CODE_FINGERPRINT}"`;
      reply.header('etag', etag).header('cache-control', 'private, no-cache');
      if (matchesIfNoneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
      // Stored text goes out as it is; under VALIDATE_RESPONSES it goes through the schema like any answer.
      if (ctx.config.validateResponses) return reply.send(JSON.parse(record.json));
      // A string payload is sent as it is, which the type provider's 200 type cannot express.
      return reply.type('application/json; charset=utf-8').send(record.json as never);
    },
  );
};
