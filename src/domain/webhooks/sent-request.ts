import type { Environment } from '../../config.ts';
import { findDelivery, listAttempts } from '../../storage/webhooks/deliveries.ts';
import { findEndpoint } from '../../storage/webhooks/endpoints.ts';
import { fail, ok, type Result } from '../errors.ts';
import { signingSecretsAt, type EndpointDeps } from './endpoints.ts';
import { signAttempt, type SignatureHeaders } from './signature.ts';
import { tenantOfRow } from '../../ports/tenant.ts';

/** The user agent every delivery is sent with. */
export const WEBHOOK_USER_AGENT = 'Dossier-Webhooks/1.0';

/** Every header a delivery attempt carries: the delivery worker sends these, and the log shows them. */
export function deliveryHeaders(signature: SignatureHeaders): Record<string, string> {
  return { 'content-type': 'application/json', 'user-agent': WEBHOOK_USER_AGENT, ...signature };
}

const SIGNATURE_HEADERS = new Set(['x-service-signature', 'webhook-signature']);

export interface SentRequest {
  /** The body byte for byte as it was sent (and signed). */
  body: string;
  /** The last attempt's headers, signatures included; null before the first attempt. */
  headers: [name: string, value: string][] | null;
  /** False when the endpoint's secret was rotated since the attempt: the secrets that signed it are not all kept. */
  signaturesKnown: boolean;
}

/**
 * What the last attempt of a delivery sent, for the delivery log: signatures are not stored, so
 * they are made again from the stored body and the attempt's time with the secrets that signed it
 * (HMAC values do not reveal the secret). Read-only; the API's delivery read is not changed by it.
 */
export async function sentRequestOf(
  deps: Pick<EndpointDeps, 'db' | 'secret'>,
  input: { orgId: string; environment: Environment; deliveryId: string },
): Promise<Result<SentRequest>> {
  const delivery = await findDelivery(deps.db, input, input.deliveryId);
  if (!delivery) return fail('not_found', `No webhook delivery ${input.deliveryId}.`);
  const [endpoint, attempts] = await Promise.all([findEndpoint(deps.db, tenantOfRow(delivery), delivery.endpoint_id), listAttempts(deps.db, tenantOfRow(delivery), delivery.delivery_id)]);
  const last = attempts.at(-1);
  if (!last || !endpoint) return ok({ body: delivery.payload, headers: null, signaturesKnown: true });
  const t = Math.floor(last.attempted_at.getTime() / 1000);
  const secrets = signingSecretsAt(deps.secret, endpoint, last.attempted_at);
  const sent = deliveryHeaders(signAttempt(secrets ?? [], delivery.delivery_id, t, delivery.payload));
  // Without the secrets that signed it, the attempt's signature headers are not shown at all.
  const shown = Object.entries(sent).filter(([name]) => secrets || !SIGNATURE_HEADERS.has(name));
  return ok({
    body: delivery.payload,
    headers: shown,
    signaturesKnown: secrets !== undefined,
  });
}
