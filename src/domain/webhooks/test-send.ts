import type { Environment } from '../../config.ts';
import type { Deps } from '../deps.ts';
import type { Lookup } from '../../net/address-policy.ts';
import type { OutboundHttp } from '../../net/safe-fetch.ts';
import { fail, ok, type Result } from '../errors.ts';
import { checkEndpointUrl } from './endpoints.ts';
import { buildEnvelope } from './envelope.ts';
import { WEBHOOK_TEST } from './event-types.ts';
import { signAttempt } from './signature.ts';

export interface TestSendInput {
  orgId: string;
  environment: Environment;
  endpointUrl: string;
  signingSecret: string;
  traceId: string;
  userAgent: string;
}

export interface TestSendResult {
  success: boolean;
  /** The receiver's HTTP status; null when there was no HTTP answer. */
  status_code: number | null;
  /** Why it failed; absent on success. */
  error?: string;
  /** The webhook-id (delivery_id) the test carried. */
  delivery_id: string;
  duration_ms: number;
}

/**
 * Spec §4.6: one signed `v1.webhook.test` delivery, sent now through the same SSRF-safe client
 * and signing as real deliveries, and not stored or retried. A receiver that fails or cannot be
 * reached is an answer (`success: false`), not an error: the request itself was fine.
 */
export async function sendTestWebhook(
  deps: Pick<Deps, 'clock' | 'ids' | 'config'> & { http: OutboundHttp; lookup?: Lookup },
  input: TestSendInput,
): Promise<Result<TestSendResult>> {
  if (!deps.config.selfServeWebhooks) {
    return fail('self_serve_webhooks_disabled', 'Self-serve webhook delivery is disabled on this deployment (SELF_SERVE_WEBHOOKS=false).');
  }
  const url = await checkEndpointUrl(deps, input.endpointUrl);
  if (!url.ok) return url;
  const now = deps.clock.now();
  const deliveryId = deps.ids.next('dlv');
  const envelope = buildEnvelope(
    {
      orgId: input.orgId,
      environment: input.environment,
      eventType: WEBHOOK_TEST,
      eventId: deps.ids.next('evt'),
      caseId: null,
      sessionId: null,
      externalCaseId: null,
      externalApplicantId: null,
      externalCustomerId: null,
      idempotencyKey: null,
      traceId: input.traceId,
      occurredAt: now,
      data: { message: 'This is a test webhook from Dossier. Verify its signature, answer 2xx, and you are ready.' },
    },
    deliveryId,
    now,
  );
  const body = JSON.stringify(envelope);
  const result = await deps.http.fetch({
    url: url.value,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': input.userAgent,
      ...signAttempt([input.signingSecret], deliveryId, Math.floor(now.getTime() / 1000), body),
    },
    body,
  });
  if (result.ok) return ok({ success: true, status_code: result.status, delivery_id: deliveryId, duration_ms: result.durationMs });
  return ok({ success: false, status_code: result.status ?? null, error: result.message, delivery_id: deliveryId, duration_ms: result.durationMs });
}
