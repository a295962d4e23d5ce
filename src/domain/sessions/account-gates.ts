import { CURRENT_LEGAL_TERMS_VERSION, type Environment } from '../../config.ts';
import { findOrg } from '../../storage/orgs.ts';
import type { Tx } from '../../storage/schema.ts';
import { fail, ok, type Result } from '../errors.ts';
import { consumeSessionAllowance } from '../usage/usage.ts';

export interface GateContext {
  orgId: string;
  environment: Environment;
  now: Date;
  testSessionsPerMonth: number;
  /** True when the deployment disables self-serve webhooks and the workspace has an enabled endpoint. */
  selfServeWebhooksBlocked: boolean;
}

/**
 * Contract §4 order: 428 legal, 428 self-serve webhooks, 402 billing, 402 live cap, 429 test cap.
 * Billing and legal terms bind live keys only. The usage counter is consumed here, inside the
 * session's transaction, so a later failure gives the allowance back.
 */
export async function passAccountGates(tx: Tx, gate: GateContext): Promise<Result<void>> {
  const org = await findOrg(tx, gate.orgId);
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
  if (live) {
    const used = await consumeSessionAllowance(tx, { orgId: gate.orgId, environment: 'live', now: gate.now, cap: org.live_usage_cap });
    if (!used.allowed) {
      return fail('live_usage_cap_exceeded', `This workspace has reached its live usage cap of ${org.live_usage_cap} sessions this month.`);
    }
    return ok(undefined);
  }
  const used = await consumeSessionAllowance(tx, { orgId: gate.orgId, environment: 'test', now: gate.now, cap: gate.testSessionsPerMonth });
  if (!used.allowed) {
    return fail(
      'test_usage_cap_exceeded',
      `${gate.testSessionsPerMonth} test sessions have already been created this UTC month; the cap resets at the start of next month.`,
    );
  }
  return ok(undefined);
}
