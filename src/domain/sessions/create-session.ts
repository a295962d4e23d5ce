import type { AppContext } from '../deps.ts';
import type { AuthenticatedKey } from '../../ports/key-lookup.ts';
import type { Tenant } from '../../ports/tenant.ts';
import type { CaseEventRow } from '../../storage/case-events.ts';
import type { SessionRow } from '../../storage/cases.ts';
import type { Executor } from '../../storage/schema.ts';
import { claimKeyAndReadSessionGates, createSessionAtOnce, insertSessionWithCase } from '../../storage/session-creation.ts';
import { RetryUnitOfWork } from '../../storage/unit-of-work.ts';
import { ACTION_TRIGGER_EVENTS, enqueueEventEffects, WEBHOOK_CASE_EVENTS } from '../cases/case-events.ts';
import type { ActionEnqueuer, WebhookEnqueuer } from '../../ports/enqueuers.ts';
import { caseTypeTarget, externalCaseIdConflict, externalCaseIdRace, type CaseTypeTarget } from '../cases/case-target.ts';
import { queueColumnsOf } from '../cases/queue-projection.ts';
import { stateOfSnapshot } from '../cases/load-case.ts';
import { caseCreatedData, newCaseRows } from '../cases/open-case.ts';
import { fail, ok, type Result } from '../errors.ts';
import { answerFromCommittedRecord, keyClaimOf, rememberCommittedAnswer, sealedAnswer, type IdempotentRequest, type IdempotentResponse } from '../idempotency/idempotency.ts';
import { runIdempotentOperationFolded } from '../idempotency/idempotent-operation.ts';
import { NEAR_CAP_MARGIN, sessionCountPlan, usageLockKey, usagePeriod } from '../usage/usage.ts';
import { checkSessionGates, sessionCapFailure, type GateContext } from './account-gates.ts';
import { forgetGates, rememberedGates, rememberGates } from './gate-memory.ts';
import { returnUrlProblem } from './return-url.ts';
import { renderSession } from './session-resource.ts';
import { generateSessionToken, signedSessionUrl } from './session-token.ts';

export const DEFAULT_SESSION_SECONDS = 86_400;

export interface SessionRequest {
  case_type_id: string;
  external_case_id?: string | undefined;
  external_applicant_id?: string | undefined;
  external_customer_id?: string | undefined;
  prefill?: Record<string, unknown> | undefined;
  metadata?: Record<string, string> | undefined;
  locale?: string | undefined;
  return_url?: string | undefined;
  expires_in_seconds?: number | undefined;
}

export interface CreateSessionInput {
  key: AuthenticatedKey;
  idempotencyKey: string;
  /** The body as sent: its canonical JSON (without idempotency_key) is the fingerprint. */
  rawBody: Record<string, unknown>;
  request: SessionRequest;
  traceId: string;
}

export interface SessionDeps extends Pick<AppContext, 'db' | 'clock' | 'ids' | 'config' | 'secret'> {
  enqueueWebhook: WebhookEnqueuer;
  enqueueActions: ActionEnqueuer;
  /** Whether the workspace has an enabled webhook endpoint (for SELF_SERVE_WEBHOOKS=false). */
  hasEnabledWebhookEndpoint?: (orgId: string, environment: 'test' | 'live') => Promise<boolean>;
}

/**
 * POST /api/v1/sessions as a domain operation (spec §4.4, contract §4–6): idempotency first, then
 * the account gates, then the case type and external id, then the case, its session and their
 * events — all in one transaction, so a refusal stores nothing and a crash releases the key.
 *
 * Two paths with one outcome. The common case (a new key, a workspace and case type this process
 * has created under, far from any cap) is one statement: `createdAtOnce`. Everything else, and
 * whatever that statement declines, takes the general path: replays are one read outside any
 * transaction; a new key costs BEGIN, two statements and COMMIT.
 */
export async function createSession(deps: SessionDeps, input: CreateSessionInput): Promise<Result<IdempotentResponse>> {
  const { key, request } = input;
  const now = deps.clock.now();
  const appUrl = deps.config.appUrl;
  if (appUrl === null) {
    return fail('precondition_required', 'This deployment has no applicant app address (APP_URL=none), so it cannot create hosted sessions.');
  }
  const returnUrlFailure = returnUrlProblem(key.environment, request.return_url);
  if (returnUrlFailure) return returnUrlFailure;
  const selfServeWebhooksBlocked =
    !deps.config.selfServeWebhooks && (await deps.hasEnabledWebhookEndpoint?.(key.orgId, key.environment)) === true;

  const creation: Creation = {
    deps,
    input,
    now,
    appUrl,
    idempotent: { orgId: key.orgId, environment: key.environment, operation: 'sessions.create', key: input.idempotencyKey, body: input.rawBody },
    gate: { orgId: key.orgId, environment: key.environment, now, testSessionsPerMonth: deps.config.testSessionsPerMonth, selfServeWebhooksBlocked },
    tenant: { orgId: key.orgId, environment: key.environment },
  };
  try {
    return (await createdAtOnce(creation)) ?? (await createdInTransaction(creation));
  } catch (err) {
    const race = externalCaseIdRace(err, request.external_case_id);
    if (race) return race;
    throw err;
  }
}

/** One creation request, as both paths see it. */
interface Creation {
  deps: SessionDeps;
  input: CreateSessionInput;
  now: Date;
  appUrl: string;
  idempotent: IdempotentRequest;
  gate: GateContext;
  tenant: Tenant;
}

/**
 * The general path: two statements between BEGIN and COMMIT (storage/session-creation.ts says how
 * the guarantees hold), the claim with every read the gates need, then every write.
 */
async function createdInTransaction(creation: Creation): Promise<Result<IdempotentResponse>> {
  const { deps, input, now, idempotent, gate, tenant } = creation;
  const { key, request } = input;
  return runIdempotentOperationFolded(
    { ...deps, now },
    idempotent,
    (tx, claim) =>
      claimKeyAndReadSessionGates(tx, {
        claim,
        ...tenant,
        period: usagePeriod(now),
        caseTypeId: request.case_type_id,
        externalCaseId: request.external_case_id ?? null,
        usage: {
          cap: key.environment === 'live' ? 'org_live_usage_cap' : deps.config.testSessionsPerMonth,
          nearCapMargin: NEAR_CAP_MARGIN,
          lockKey: usageLockKey({ ...tenant, now }),
        },
      }),
    async (tx, read, answerFor) => {
      const allowance = checkSessionGates(gate, { org: read.org, used: read.used });
      if (!allowance.ok) return allowance;
      const version = await caseTypeTarget(tx, key, request.case_type_id, read.caseTypeVersion);
      if (!version.ok) return version;
      if (read.externalCaseIdTaken) return externalCaseIdConflict(request.external_case_id!);
      rememberGates(tenant, request.case_type_id, { org: allowance.value.org, workflowVersion: version.value.workflowVersion });

      const rows = await newSessionRows(tx, creation, version.value);
      const count = sessionCountPlan({ ...tenant, now, cap: allowance.value.cap, lock: read.usageLock });
      const { counted } = await insertSessionWithCase(tx, { ...rows, usage: count, answer: answerFor(201, rows.body) });
      if (!counted) {
        // Under the shared lock the count reached the near-cap margin: start over, and take it exclusively.
        if (count.onRefusal === 'restart') throw new RetryUnitOfWork('usage count crossed the near-cap margin');
        return sessionCapFailure(gate, allowance.value.cap ?? 0);
      }
      const cause = { ...causeOf(input), sessionId: rows.session.session_id };
      for (const e of rows.events) await enqueueEventEffects(tx, deps, { caseRow: rows.caseRow, caseEvent: e, cause });
      return ok({ status: 201, body: rows.body });
    },
  );
}

/**
 * The common case in one round trip (issue 29, part D): the gates decided on the workspace and
 * case type this process remembers (gate-memory.ts), then one call of `create_session_at_once`,
 * which re-reads those inputs in its own transaction and writes only if none moved (migration 0029).
 * Undefined when it does not apply or declines; the general path then answers, from fresh reads,
 * exactly as it would have without this one.
 */
async function createdAtOnce(creation: Creation): Promise<Result<IdempotentResponse> | undefined> {
  const { deps, input, now, idempotent, gate, tenant } = creation;
  const { request } = input;
  // Its refusal after the claim is an error, which would abort a caller's transaction.
  if (deps.db.isTransaction) return undefined;
  const remembered = rememberedGates(tenant, request.case_type_id);
  if (!remembered) return undefined;
  // The month's count is the function's to check; a refusal is the general path's to word.
  const allowance = checkSessionGates(gate, { org: remembered.org, used: 0 });
  if (!allowance.ok) return undefined;
  const version = await caseTypeTarget(deps.db, tenant, request.case_type_id, remembered.workflowVersion);
  if (!version.ok) return undefined;
  const rows = await newSessionRows(deps.db, creation, version.value);
  // Creation's events have no effects today; should that change, they need the general path's transaction.
  if (rows.events.some(hasEffects)) return undefined;

  const claim = keyClaimOf(idempotent, now);
  const count = sessionCountPlan({ ...tenant, now, cap: allowance.value.cap, lock: allowance.value.cap === null ? null : 'shared' });
  const outcome = await createSessionAtOnce(deps.db, {
    decidedOn: {
      ...tenant,
      org: remembered.org,
      caseTypeId: request.case_type_id,
      workflowVersion: remembered.workflowVersion,
      externalCaseId: request.external_case_id ?? null,
    },
    claim,
    usage: { key: count.key, shard: count.shard, cap: allowance.value.cap, nearCapMargin: NEAR_CAP_MARGIN, lockKey: usageLockKey({ ...tenant, now }) },
    rows,
    answer: sealedAnswer(deps.secret, claim.scope, 201, rows.body),
  });
  switch (outcome.outcome) {
    case 'created':
      rememberCommittedAnswer(idempotent, now, 201, rows.body);
      return ok({ status: 201, body: rows.body, replay: false });
    case 'recorded':
      // The function's upsert waited for any holder of the key, so the record has committed; a
      // status of 0 would be a claim without an answer, which only the general path can judge.
      return outcome.record.response_status === 0 ? undefined : answerFromCommittedRecord(deps.secret, idempotent, outcome.record);
    case 'stale':
      forgetGates(tenant, request.case_type_id);
      return undefined;
    case 'declined':
      return undefined;
  }
}

const hasEffects = (e: CaseEventRow) => WEBHOOK_CASE_EVENTS.has(e.event_type) || ACTION_TRIGGER_EVENTS.has(e.event_type);

const causeOf = (input: CreateSessionInput) => ({ traceId: input.traceId, idempotencyKey: input.idempotencyKey });

/**
 * The rows of a new case with its session and their two events, and the answer that shows them.
 * Its facts are all pending, which needs no row (case-facts.ts).
 */
async function newSessionRows(db: Executor, creation: Creation, version: CaseTypeTarget) {
  const { deps, input, now, appUrl, tenant } = creation;
  const { key, request } = input;
  const { row: caseRow } = newCaseRows(deps, {
    ...tenant,
    ...version,
    origin: 'session',
    externalCaseId: request.external_case_id ?? null,
    externalApplicantId: request.external_applicant_id ?? null,
    externalCustomerId: request.external_customer_id ?? null,
    metadata: request.metadata ?? {},
    locale: request.locale ?? null,
    prefill: request.prefill ?? {},
    structuredInputs: {},
    cause: causeOf(input),
  });
  const token = generateSessionToken();
  const expiresAt = new Date(now.getTime() + (request.expires_in_seconds ?? DEFAULT_SESSION_SECONDS) * 1000);
  const session: SessionRow = {
    session_id: deps.ids.uuid(),
    case_id: caseRow.case_id,
    org_id: key.orgId,
    environment: key.environment,
    status: 'open',
    token_hash: token.hash,
    return_url: request.return_url ?? null,
    locale: request.locale ?? null,
    expires_at: expiresAt,
    submitted_at: null,
    created_at: now,
  };
  // The case is new: its events take cursors 1 and 2, and the row says so.
  const event = (cursor: number, eventType: string, data: Record<string, unknown>): CaseEventRow => ({
    event_id: deps.ids.next('evt'),
    case_id: caseRow.case_id,
    org_id: key.orgId,
    environment: key.environment,
    cursor,
    event_type: eventType,
    data,
    created_at: now,
  });
  const events = [
    event(1, 'case.created', caseCreatedData(caseRow)),
    event(2, 'session.created', { session_id: session.session_id, expires_at: expiresAt.toISOString() }),
  ];
  caseRow.last_event_cursor = events.length;
  // The queue projection from the rows about to be written, instead of reading them back.
  Object.assign(caseRow, queueColumnsOf(await stateOfSnapshot(db, { row: caseRow, facts: [], documents: [], jobs: [], session, calls: [], revision: 1 })));
  const body = renderSession({ session, caseRow, signedUrl: signedSessionUrl(appUrl, session.session_id, token.token) });
  return { caseRow, events, session, body };
}
