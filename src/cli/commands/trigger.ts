import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { getCaseType } from '../../domain/case-types/case-types.ts';
import { ensureDemoWorkspace } from '../../domain/demo/demo-workspace.ts';
import { getOrg } from '../../domain/orgs/orgs.ts';
import { parseSampleDocumentUrl, sampleDocumentUrl, SAMPLE_OUTCOMES } from '../../domain/samples/sample-url.ts';
import { cliError } from '../output.ts';
import { countFlag, envFlag, orgFlag, reported, type AdminCommand } from './command.ts';

const identifier = (what: string) => z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, `${what} must be lower_snake_case`);
const triggerFlags = z.object({ org: orgFlag.optional(), kind: identifier('--kind').optional() });
const eventsFlags = z.object({ org: orgFlag, env: envFlag, after: countFlag('--after').optional() });

/**
 * `dossier trigger CASE_TYPE OUTCOME`, like `stripe trigger`: a test case made through a sample
 * document (`dossier-test:CASE_TYPE/KIND/OUTCOME`, see domain/samples), exactly as
 * `POST /api/v1/process` makes one with a test key. This command makes it; the CLI then follows
 * its events with `case events` (src/cli/trigger.ts). Without --org, the demo workspace is used
 * (made on first use, with the example case types); KIND defaults to the first document kind of
 * the case type's first upload step.
 */
export const TRIGGER_COMMANDS: readonly AdminCommand[] = [
  {
    path: ['trigger'],
    usage: `dossier trigger CASE_TYPE OUTCOME [--org ORG_ID] [--kind DOCUMENT_KIND] [--timeout SECONDS]   (OUTCOME: ${SAMPLE_OUTCOMES.join(', ')})`,
    options: { org: { type: 'string' }, kind: { type: 'string' }, timeout: { type: 'string' } },
    flags: triggerFlags,
    positionals: 2,
    async run(ctx, values, [caseTypeId, outcome]) {
      const flags = triggerFlags.parse(values);
      const orgId = flags.org ?? (await ensureDemoWorkspace(ctx)).org_id;
      if (flags.org && !(await getOrg(ctx, { orgId: flags.org })).ok) return cliError('not_found', `No organization ${flags.org}.`);
      const kindOrNode = flags.kind ?? (await firstDocumentKind(ctx, orgId, caseTypeId!));
      if (!kindOrNode) return cliError('not_found', `No case type ${caseTypeId} with an upload step in the test environment of ${orgId}.`);
      const documentUrl = sampleDocumentUrl({ caseTypeId: caseTypeId!, kindOrNode, outcome: outcome as (typeof SAMPLE_OUTCOMES)[number] });
      const parsed = parseSampleDocumentUrl(documentUrl);
      if (!parsed.ok) return cliError('invalid_request', `${documentUrl} ${parsed.message}`);
      const request = { document_url: documentUrl, case_type_id: caseTypeId! };
      // Loaded when run: every CLI command loads this file, and most never make a case.
      const { processDocument } = await import('../../domain/processing/process-document.ts');
      const created = await processDocument(ctx, {
        // The CLI acts as a test key of the workspace would: samples exist in test mode only.
        key: { keyId: 'cli', orgId, environment: 'test', scopes: ['*'], rateLimitPerMinute: null },
        idempotencyKey: `trigger-${randomUUID()}`,
        rawBody: request,
        request,
        traceId: 'cli:trigger',
      });
      if (!created.ok) return cliError(created.code, created.message);
      const body = created.value.body as { case_id: string; document_id: string };
      return { org_id: orgId, environment: 'test', case_id: body.case_id, document_id: body.document_id, document_url: documentUrl };
    },
  },
  {
    path: ['case', 'events'],
    usage: 'dossier case events CASE_ID --org ORG_ID --env test|live [--after CURSOR]',
    options: { org: { type: 'string' }, env: { type: 'string' }, after: { type: 'string' } },
    flags: eventsFlags,
    positionals: 1,
    async run(ctx, values, [caseId]) {
      const flags = eventsFlags.parse(values);
      const tenant = { orgId: flags.org, environment: flags.env };
      const { readCaseEvents, readCaseRecord } = await import('../../domain/cases/read-case.ts');
      const record = await readCaseRecord(ctx, { tenant, caseId: caseId! });
      if (!record.ok) return reported(record);
      const page = await readCaseEvents(ctx, { tenant, caseId: caseId!, afterCursor: flags.after ?? 0, limit: 100 });
      if (!page.ok) return reported(page);
      return { ...page.value, runtime_status: record.value.runtime_status, why_here_code: record.value.queue_row.why_here_code };
    },
  },
];

async function firstDocumentKind(ctx: Parameters<AdminCommand['run']>[0], orgId: string, caseTypeId: string): Promise<string | undefined> {
  const found = await getCaseType(ctx, { orgId, environment: 'test', caseTypeId });
  if (!found.ok) return undefined;
  const upload = found.value.definition.workflow.nodes.find((n) => n.type === 'upload');
  return upload?.type === 'upload' ? upload.documents[0]!.document_kind : undefined;
}
