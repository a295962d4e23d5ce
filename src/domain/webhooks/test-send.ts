import type { Environment } from '../../config.ts';
import type { Tenant } from '../../ports/tenant.ts';
import type { Deps } from '../deps.ts';
import type { Lookup } from '../../net/address-policy.ts';
import type { OutboundHttp } from '../../net/safe-fetch.ts';
import { inTransaction } from '../../storage/unit-of-work.ts';
import { insertAttempt, insertDeliveries, notifyDeliveriesQueued } from '../../storage/webhooks/deliveries.ts';
import { findEndpoint, listEndpoints, type EndpointRow } from '../../storage/webhooks/endpoints.ts';
import { fail, ok, type Result } from '../errors.ts';
import { checkEndpointUrl, signingSecretsOf } from './endpoints.ts';
import { buildEnvelope, type WebhookEnvelope } from './envelope.ts';
import { WEBHOOK_TEST } from './event-types.ts';
import { signAttempt } from './signature.ts';

const TEST_MESSAGE = 'This is a test webhook from Dossier. Verify its signature, answer 2xx, and you are ready.';

export interface TestSendInput {
  orgId: string;
  environment: Environment;
  endpointUrl: string;
  signingSecret: string;
  traceId: string;
  userAgent: string;
  /** The endpoint whose log keeps the test (the dashboard's button); without it, the workspace's endpoint with this URL and secret, if any. */
  endpointId?: string;
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
  /** Whether the test is kept in the delivery log: it is when it went to one of the workspace's endpoints, signed with its secret. */
  stored: boolean;
}

/**
 * Spec §4.6: one signed `v1.webhook.test` delivery, sent now through the same SSRF-safe client
 * and signing as real deliveries. A receiver that fails or cannot be reached is an answer
 * (`success: false`), not an error: the request itself was fine.
 *
 * Kept in the delivery log like any delivery (issue 25), with its attempt, when it went to one of
 * the workspace's endpoints (the dashboard's button names it; the API's URL and secret are matched
 * against the workspace's endpoints): `delivered`, or `failed` after its one attempt, never
 * retried on its own (the sender has the answer) but retryable from the log. A URL that is no
 * endpoint of the workspace has no log to keep it in.
 */
export async function sendTestWebhook(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'config'> & { http: OutboundHttp; lookup?: Lookup; secret: string },
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
      data: { message: TEST_MESSAGE },
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
  const answer: TestSendResult = result.ok
    ? { success: true, status_code: result.status, delivery_id: deliveryId, duration_ms: result.durationMs, stored: false }
    : { success: false, status_code: result.status ?? null, error: result.message, delivery_id: deliveryId, duration_ms: result.durationMs, stored: false };
  const endpoint = await loggingEndpoint(deps, input, url.value, now);
  if (endpoint) {
    await storeSentTest(deps, { endpoint, envelope, body, sentAt: now, answer, excerpt: result.ok || result.status !== undefined ? result.bodyExcerpt : null });
    answer.stored = true;
  }
  return ok(answer);
}

/** The workspace's endpoint a test belongs to: the one named, or the one with this URL that signs with this secret. */
async function loggingEndpoint(
  deps: Pick<Deps, 'db'> & { secret: string },
  input: TestSendInput,
  url: string,
  now: Date,
): Promise<EndpointRow | undefined> {
  if (input.endpointId !== undefined) {
    return findEndpoint(deps.db, { orgId: input.orgId, environment: input.environment }, input.endpointId);
  }
  const rows = await listEndpoints(deps.db, { orgId: input.orgId, environment: input.environment });
  return rows.find((row) => row.kind === 'url' && row.url === url && signingSecretsOf(deps.secret, row, now).includes(input.signingSecret));
}

async function storeSentTest(
  deps: Pick<Deps, 'db'>,
  input: { endpoint: EndpointRow; envelope: WebhookEnvelope; body: string; sentAt: Date; answer: TestSendResult; excerpt: string | null },
): Promise<void> {
  const { endpoint, envelope, answer, sentAt } = input;
  const done = new Date(sentAt.getTime() + answer.duration_ms);
  await inTransaction(deps.db, async (tx) => {
    await insertDeliveries(tx, [
      {
        delivery_id: answer.delivery_id,
        org_id: endpoint.org_id,
        environment: endpoint.environment,
        endpoint_id: endpoint.endpoint_id,
        event_id: envelope.event_id,
        event_type: WEBHOOK_TEST,
        case_id: null,
        payload: input.body,
        status: answer.success ? 'delivered' : 'failed',
        attempt_count: 1,
        total_attempts: 1,
        next_attempt_at: null,
        last_attempt_at: sentAt,
        last_status_code: answer.status_code,
        last_error: answer.error ?? null,
        delivered_at: answer.success ? done : null,
        failed_at: answer.success ? null : done,
        created_at: sentAt,
        updated_at: done,
      },
    ]);
    await insertAttempt(tx, {
      delivery_id: answer.delivery_id,
      attempt_number: 1,
      org_id: endpoint.org_id,
      environment: endpoint.environment,
      attempted_at: sentAt,
      status_code: answer.status_code,
      duration_ms: answer.duration_ms,
      error: answer.error ?? null,
      response_excerpt: input.excerpt,
    });
  });
}

/**
 * The dashboard's test event for a `dossier listen` listener: the server never connects to a
 * listener's URL, so the test is queued like any delivery and the listen stream hands it to the
 * CLI (or, with no CLI connected, it fails and is retried on the schedule).
 */
export async function queueTestDelivery(
  deps: Pick<Deps, 'db' | 'clock' | 'ids'>,
  input: { tenant: Tenant; endpointId: string; traceId: string },
): Promise<Result<{ delivery_id: string }>> {
  const endpoint = await findEndpoint(deps.db, input.tenant, input.endpointId);
  if (!endpoint) return fail('not_found', `No webhook endpoint ${input.endpointId}.`);
  const now = deps.clock.now();
  const deliveryId = deps.ids.next('dlv');
  const envelope = buildEnvelope(
    {
      orgId: endpoint.org_id,
      environment: endpoint.environment,
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
      data: { message: TEST_MESSAGE },
    },
    deliveryId,
    now,
  );
  await inTransaction(deps.db, async (tx) => {
    await insertDeliveries(tx, [
      {
        delivery_id: deliveryId,
        org_id: endpoint.org_id,
        environment: endpoint.environment,
        endpoint_id: endpoint.endpoint_id,
        event_id: envelope.event_id,
        event_type: WEBHOOK_TEST,
        case_id: null,
        payload: JSON.stringify(envelope),
        status: 'pending',
        attempt_count: 0,
        total_attempts: 0,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      },
    ]);
    await notifyDeliveriesQueued(tx);
  });
  return ok({ delivery_id: deliveryId });
}
