import { CURRENT_LEGAL_TERMS_VERSION, type Environment } from '../../config.ts';
import { findOrg } from '../../storage/orgs.ts';
import type { OrgRow } from '../../storage/schema.ts';
import type { Tx } from '../../storage/schema.ts';
import { fail, ok, type Result } from '../errors.ts';

export interface GateContext {
  orgId: string;
  environment: Environment;
  now: Date;
  testSessionsPerMonth: number;
  /** True when the deployment disables self-serve webhooks and the workspace has an enabled endpoint. */
  selfServeWebhooksBlocked: boolean;
}

/**
 * The account gates every live request passes, in contract §4 order: 428 legal terms, 428
 * self-serve webhooks (sessions only), 402 billing. Test keys need neither terms nor billing.
 */
export async function passLiveAccessGates(
  tx: Tx,
  gate: { orgId: string; environment: Environment; selfServeWebhooksBlocked: boolean },
): Promise<Result<OrgRow>> {
  return checkLiveAccess(gate, await findOrg(tx, gate.orgId));
}

/** The live-access gates over a workspace already read. */
export function checkLiveAccess(gate: { environment: Environment; selfServeWebhooksBlocked: boolean }, org: OrgRow | undefined): Result<OrgRow> {
  if (!org) return fail('not_found', 'This workspace no longer exists.');
  const live = gate.environment === 'live';
  if (live && org.legal_terms_version !== CURRENT_LEGAL_TERMS_VERSION) {
    return fail(
      'legal_acceptance_required',
      `Live access requires accepting the current legal terms (${CURRENT_LEGAL_TERMS_VERSION}) in the workspace settings.`,
    );
  }
  if (gate.selfServeWebhooksBlocked) {
    return fail(
      'self_serve_webhooks_disabled',
      'Self-serve webhook delivery is disabled on this deployment, and this workspace has an enabled webhook endpoint. Disable the endpoint or ask the operator of this deployment.',
    );
  }
  if (live && org.billing_status !== 'active') {
    return fail('billing_required', 'Live access requires active billing for this workspace.');
  }
  return ok(org);
}

export interface SessionAllowance {
  /** The workspace the gates passed on. */
  org: OrgRow;
  cap: number | null;
  /** Sessions counted this month when the gate read it. */
  used: number;
}

/**
 * The session gates over a workspace and a month's count already read (in one statement:
 * storage/session-creation.ts): the live-access gates, then 402 live cap or 429 test cap, so a capped
 * workspace is refused in the contract's order. The allowance itself is taken in the session's
 * write (usage.ts, sessionCountPlan), which refuses a concurrent race past this read.
 */
export function checkSessionGates(gate: GateContext, read: { org: OrgRow | undefined; used: number }): Result<SessionAllowance> {
  const access = checkLiveAccess(gate, read.org);
  if (!access.ok) return access;
  const cap = gate.environment === 'live' ? access.value.live_usage_cap : gate.testSessionsPerMonth;
  const used = cap === null ? 0 : read.used;
  if (cap !== null && used >= cap) return sessionCapFailure(gate, cap);
  return ok({ org: access.value, cap, used });
}

/** 402 live cap or 429 test cap, in the contract's words. */
export function sessionCapFailure(gate: { environment: Environment }, cap: number) {
  return gate.environment === 'live'
    ? fail('live_usage_cap_exceeded', `This workspace has reached its live usage cap of ${cap} sessions this month.`)
    : fail(
        'test_usage_cap_exceeded',
        `${cap} test sessions have already been created this UTC month; the cap resets at the start of next month.`,
      );
}
