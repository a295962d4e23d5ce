import type { AppContext } from '../deps.ts';
import { checkOutboundUrlResolved, systemLookup, type Lookup } from '../../net/address-policy.ts';
import { updateCaseRow, type CaseRow } from '../../storage/cases.ts';
import { toJsonb } from '../../storage/json.ts';
import type { Tx } from '../../storage/schema.ts';
import type { Cause } from '../../ports/enqueuers.ts';
import { attachDocument } from '../cases/attach-document.ts';
import { lockCaseRow, transitionCase } from '../cases/case-writer.ts';
import { openCase } from '../cases/open-case.ts';
import { caseNotFound } from '../cases/read-case.ts';
import { fail, failOn, ok, type Result } from '../errors.ts';
import type { IdempotentResponse } from '../idempotency/idempotency.ts';
import { runIdempotentOperation } from '../idempotency/idempotent-operation.ts';
import { passLiveAccessGates } from '../sessions/account-gates.ts';
import { currentCaseTypeVersion, externalCaseIdFree, externalCaseIdRace } from '../cases/case-target.ts';
import type { AuthenticatedKey } from '../../ports/key-lookup.ts';
import { pinnedDefinition } from '../cases/load-case.ts';
import { drawSampleDocument, sampleAddressFor, type DrawnSample } from '../samples/sample-document.ts';
import { isSampleDocumentUrl, type SampleAddress } from '../samples/sample-url.ts';
import { tenantOfRow } from '../../ports/tenant.ts';

export interface ProcessRequest {
  document_url: string;
  case_type_id?: string | undefined;
  case_id?: string | undefined;
  external_case_id?: string | undefined;
  document_kind?: string | undefined;
  filename?: string | undefined;
  structured_inputs?: Record<string, unknown> | undefined;
}

export interface ProcessInput {
  key: AuthenticatedKey;
  idempotencyKey: string;
  rawBody: Record<string, unknown>;
  request: ProcessRequest;
  traceId: string;
}

/**
 * POST /api/v1/process (spec §4.5, contract §9): checks the URL at once (https; every resolved
 * address public unless DOSSIER_ALLOW_PRIVATE_NETWORK), then — idempotently, in one transaction —
 * opens a case (or adds to the one named), records the document and queues its processing. The
 * worker fetches it, checking the address again at connection time.
 *
 * A `dossier-test:` address (test keys only) names a built-in sample document instead: it is drawn
 * here, from the case's pinned definition and answers, stored like an upload, and read by the
 * worker like any other document (samples/sample-url.ts has the grammar and the outcomes).
 */
export async function processDocument(
  deps: Pick<AppContext, 'db' | 'clock' | 'ids' | 'config' | 'secret' | 'enqueueWebhook' | 'enqueueActions' | 'blobs'> & { lookup?: Lookup },
  input: ProcessInput,
): Promise<Result<IdempotentResponse>> {
  const { key } = input;
  // Routed before the URL check, which would refuse the scheme with a less useful message.
  let sample: SampleAddress | undefined;
  if (isSampleDocumentUrl(input.request.document_url)) {
    const address = sampleAddressFor(input.request.document_url, key.environment);
    if (!address.ok) return address;
    sample = address.value;
  } else {
    const urlCheck = await checkOutboundUrlResolved(input.request.document_url, { allowPrivateNetwork: deps.config.allowPrivateNetwork }, deps.lookup ?? systemLookup);
    if (!urlCheck.ok) return failOn('document_url', 'invalid_document_url', `document_url ${urlCheck.message}: it must be a public https URL.`);
  }
  // A sample's address names its case type: a new case may take it from there.
  const request = sample && input.request.case_id === undefined && input.request.case_type_id === undefined ? { ...input.request, case_type_id: sample.caseTypeId } : input.request;
  if (request.case_id === undefined && request.case_type_id === undefined) {
    return failOn('case_type_id', 'missing_case_type_id', 'case_type_id is required unless case_id names an existing case.');
  }
  const now = deps.clock.now();
  const idempotent = { orgId: key.orgId, environment: key.environment, operation: 'process.create', key: input.idempotencyKey, body: input.rawBody };
  try {
    return await runIdempotentOperation({ ...deps, now }, idempotent, async (tx) => {
      const access = await passLiveAccessGates(tx, { ...key, selfServeWebhooksBlocked: false });
      if (!access.ok) return access;
      const cause: Cause = { traceId: input.traceId, idempotencyKey: input.idempotencyKey };
      const target = request.case_id !== undefined ? await existingCase(tx, deps, key, request, cause) : await newCase(tx, deps, key, request, cause);
      if (!target.ok) return target;
      const caseRow = target.value;
      const drawn = sample ? await drawSampleFor(tx, caseRow, sample, request, now) : undefined;
      if (drawn && !drawn.ok) return drawn;
      const drawnSample = drawn?.value;
      const documentKind = drawnSample?.plan.documentKind ?? request.document_kind ?? null;

      // A sample's bytes are stored now, as an upload's are: the worker reads them instead of fetching.
      // Staged before the row commits; a transaction that fails leaves an object the orphan sweep removes.
      const stored = drawnSample
        ? { staged: await deps.blobs.stage(deps.ids.next('doc'), drawnSample.bytes), mimeType: 'application/pdf' as const, byteSize: drawnSample.bytes.byteLength }
        : undefined;
      const { docId } = await attachDocument(tx, deps, {
        caseRow,
        documentKind,
        filename: request.filename ?? drawnSample?.filename ?? null,
        source: { kind: 'url', url: drawnSample?.sourceUrl ?? request.document_url, stored },
        cause,
      });
      return ok({ status: 202, body: { case_id: caseRow.case_id, document_id: docId, status: 'processing' } });
    });
  } catch (err) {
    const race = externalCaseIdRace(err, request.external_case_id);
    if (race) return race;
    throw err;
  }
}

/** Draws the sample for the case as it now stands; a document_kind given beside the address must agree with it. */
async function drawSampleFor(tx: Tx, row: CaseRow, address: SampleAddress, request: ProcessRequest, now: Date): Promise<Result<DrawnSample>> {
  const drawn = await drawSampleDocument({ definition: await pinnedDefinition(tx, row), address, answers: { ...row.prefill, ...row.structured_inputs }, now });
  if (drawn.ok && request.document_kind !== undefined && request.document_kind !== drawn.value.plan.documentKind) {
    return failOn('document_kind', 'invalid_request', `document_kind is ${request.document_kind}, but document_url names a sample of kind ${drawn.value.plan.documentKind}.`);
  }
  return drawn;
}

type Writer = Pick<AppContext, 'clock' | 'ids' | 'enqueueWebhook' | 'enqueueActions'>;

async function newCase(tx: Tx, deps: Writer, key: AuthenticatedKey, request: ProcessRequest, cause: Cause) {
  const version = await currentCaseTypeVersion(tx, key, request.case_type_id!);
  if (!version.ok) return version;
  const free = await externalCaseIdFree(tx, key, request.external_case_id);
  if (!free.ok) return free;
  const row = await openCase(tx, deps, {
    orgId: key.orgId,
    environment: key.environment,
    ...version.value,
    origin: 'process',
    externalCaseId: request.external_case_id ?? null,
    externalApplicantId: null,
    externalCustomerId: null,
    metadata: {},
    locale: null,
    prefill: {},
    structuredInputs: request.structured_inputs ?? {},
    cause,
  });
  return ok(row);
}

/** Adds a document to a case that can still take one: during intake or processing. */
async function existingCase(tx: Tx, deps: Writer, key: AuthenticatedKey, request: ProcessRequest, cause: Cause) {
  const row = await lockCaseRow(tx, { tenant: key, caseId: request.case_id! });
  if (!row) return caseNotFound(request.case_id!);
  if (request.case_type_id !== undefined && request.case_type_id !== row.case_type_id) {
    return fail('invalid_request', `Case ${row.case_id} is of case type ${row.case_type_id}, not ${request.case_type_id}.`);
  }
  if (row.runtime_status !== 'intake_in_progress' && row.runtime_status !== 'processing') {
    return fail('invalid_request', `Case ${row.case_id} takes no more documents: its runtime_status is ${row.runtime_status}.`);
  }
  if (request.structured_inputs) {
    await updateCaseRow(tx, tenantOfRow(row), row.case_id, { structured_inputs: toJsonb({ ...row.structured_inputs, ...request.structured_inputs }) });
  }
  const current = row.runtime_status === 'intake_in_progress' ? await transitionCase(tx, deps, { row, to: 'processing', cause }) : row;
  return ok(current);
}
