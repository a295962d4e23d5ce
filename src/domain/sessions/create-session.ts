import type { AppContext } from '../deps.ts';
import type { AuthenticatedKey } from '../keys/authenticate.ts';
import { insertSession } from '../../storage/cases.ts';
import { recordCaseEvent, type ActionEnqueuer, type WebhookEnqueuer } from '../cases/case-events.ts';
import { caseTypeTarget, externalCaseIdFree, externalCaseIdRace } from '../cases/case-target.ts';
import { openCase } from '../cases/open-case.ts';
import { fail, ok, type Result } from '../errors.ts';
import type { IdempotentResponse } from '../idempotency/idempotency.ts';
import { runIdempotentOperation } from '../idempotency/idempotent-operation.ts';
import { readSessionGateInputs } from '../../storage/session-gates.ts';
import { usagePeriod } from '../usage/usage.ts';
import { checkSessionGates, takeSessionAllowance } from './account-gates.ts';
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
 */
export async function createSession(deps: SessionDeps, input: CreateSessionInput): Promise<Result<IdempotentResponse>> {
  const { key, request } = input;
  const now = deps.clock.now();
  const appUrl = deps.config.appUrl;
  if (appUrl === null) {
    return fail('precondition_required', 'This deployment has no applicant app address (APP_URL=none), so it cannot create hosted sessions.');
  }
  const selfServeWebhooksBlocked =
    !deps.config.selfServeWebhooks && (await deps.hasEnabledWebhookEndpoint?.(key.orgId, key.environment)) === true;

  const idempotent = { orgId: key.orgId, environment: key.environment, operation: 'sessions.create', key: input.idempotencyKey, body: input.rawBody };
  const gate = { orgId: key.orgId, environment: key.environment, now, testSessionsPerMonth: deps.config.testSessionsPerMonth, selfServeWebhooksBlocked };
  try {
    return await runIdempotentOperation({ ...deps, now }, idempotent, async (tx) => {
      // The workspace, the month's count and the case type's version in one round trip.
      const read = await readSessionGateInputs(tx, { orgId: key.orgId, environment: key.environment, period: usagePeriod(now), caseTypeId: request.case_type_id });
      const allowance = checkSessionGates(gate, { org: read?.org, used: read?.used ?? 0 });
      if (!allowance.ok) return allowance;
      const version = await caseTypeTarget(tx, key, request.case_type_id, read?.caseTypeVersion);
      if (!version.ok) return version;
      const free = await externalCaseIdFree(tx, key, request.external_case_id);
      if (!free.ok) return free;

      const cause = { traceId: input.traceId, idempotencyKey: input.idempotencyKey };
      const caseRow = await openCase(tx, deps, {
        orgId: key.orgId,
        environment: key.environment,
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
      const session = await insertSession(tx, {
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
      });
      await recordCaseEvent(
        tx,
        deps,
        caseRow,
        'session.created',
        { session_id: session.session_id, expires_at: expiresAt.toISOString() },
        { ...cause, sessionId: session.session_id },
      );
      const taken = await takeSessionAllowance(tx, gate, allowance.value);
      if (!taken.ok) return taken;
      return ok({
        status: 201,
        body: {
          session_id: session.session_id,
          case_id: caseRow.case_id,
          signed_url: signedSessionUrl(appUrl, session.session_id, token.token),
          expires_at: expiresAt.toISOString(),
          status: session.status,
          case_type_id: caseRow.case_type_id,
          workflow_version: caseRow.workflow_version,
          external_case_id: caseRow.external_case_id,
          external_applicant_id: caseRow.external_applicant_id,
          external_customer_id: caseRow.external_customer_id,
          created_at: now.toISOString(),
        },
      });
    });
  } catch (err) {
    const race = externalCaseIdRace(err, request.external_case_id);
    if (race) return race;
    throw err;
  }
}
