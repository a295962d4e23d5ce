import type { AppContext } from '../deps.ts';
import type { AuthenticatedKey } from '../../ports/key-lookup.ts';
import type { CaseEventRow } from '../../storage/case-events.ts';
import type { SessionRow } from '../../storage/cases.ts';
import { claimKeyAndReadSessionGates, insertSessionWithCase } from '../../storage/session-creation.ts';
import { RetryUnitOfWork } from '../../storage/unit-of-work.ts';
import { enqueueEventEffects } from '../cases/case-events.ts';
import type { ActionEnqueuer, WebhookEnqueuer } from '../../ports/enqueuers.ts';
import { caseTypeTarget, externalCaseIdConflict, externalCaseIdRace } from '../cases/case-target.ts';
import { queueColumnsOf } from '../cases/queue-projection.ts';
import { stateOfSnapshot } from '../cases/load-case.ts';
import { caseCreatedData, newCaseRows } from '../cases/open-case.ts';
import { fail, ok, type Result } from '../errors.ts';
import type { IdempotentResponse } from '../idempotency/idempotency.ts';
import { runIdempotentOperationFolded } from '../idempotency/idempotent-operation.ts';
import { NEAR_CAP_MARGIN, sessionCountPlan, usageLockKey, usagePeriod } from '../usage/usage.ts';
import { checkSessionGates, sessionCapFailure } from './account-gates.ts';
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
 * Replays are one read outside any transaction; a new key costs BEGIN, two statements and COMMIT.
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

  const idempotent = { orgId: key.orgId, environment: key.environment, operation: 'sessions.create', key: input.idempotencyKey, body: input.rawBody };
  const gate = { orgId: key.orgId, environment: key.environment, now, testSessionsPerMonth: deps.config.testSessionsPerMonth, selfServeWebhooksBlocked };
  const tenant = { orgId: key.orgId, environment: key.environment };
  try {
    // Two statements between BEGIN and COMMIT (storage/session-creation.ts says how the
    // guarantees hold): the claim with every read the gates need, then every write.
    return await runIdempotentOperationFolded(
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

        const cause = { traceId: input.traceId, idempotencyKey: input.idempotencyKey };
        const { row: caseRow, facts } = newCaseRows(deps, {
          ...tenant,
          ...version.value,
          origin: 'session',
          externalCaseId: request.external_case_id ?? null,
          externalApplicantId: request.external_applicant_id ?? null,
          externalCustomerId: request.external_customer_id ?? null,
          metadata: request.metadata ?? {},
          locale: request.locale ?? null,
          prefill: request.prefill ?? {},
          structuredInputs: {},
          cause,
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
        Object.assign(
          caseRow,
          queueColumnsOf(await stateOfSnapshot(tx, { row: caseRow, facts, documents: [], jobs: [], session, calls: [], revision: 1 })),
        );

        const body = renderSession({ session, caseRow, signedUrl: signedSessionUrl(appUrl, session.session_id, token.token) });
        const count = sessionCountPlan({ ...tenant, now, cap: allowance.value.cap, lock: read.usageLock });
        const { counted } = await insertSessionWithCase(tx, {
          caseRow,
          facts,
          events,
          session,
          usage: count,
          answer: answerFor(201, body),
        });
        if (!counted) {
          // Under the shared lock the count reached the near-cap margin: start over, and take it exclusively.
          if (count.onRefusal === 'restart') throw new RetryUnitOfWork('usage count crossed the near-cap margin');
          return sessionCapFailure(gate, allowance.value.cap ?? 0);
        }
        for (const e of events) await enqueueEventEffects(tx, deps, { caseRow, caseEvent: e, cause: { ...cause, sessionId: session.session_id } });
        return ok({ status: 201, body });
      },
    );
  } catch (err) {
    const race = externalCaseIdRace(err, request.external_case_id);
    if (race) return race;
    throw err;
  }
}
