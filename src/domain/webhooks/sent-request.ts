import type { Environment } from '../../config.ts';
import { findDelivery, listAttempts } from '../../storage/webhooks/deliveries.ts';
import { findEndpoint } from '../../storage/webhooks/endpoints.ts';
import { fail, ok, type Result } from '../errors.ts';
import { signingSecretsAt, type EndpointDeps } from './endpoints.ts';
import { signAttempt } from './signature.ts';

/** The user agent every delivery is sent with. */
export const WEBHOOK_USER_AGENT = 'Dossier-Webhooks/1.0';

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
  const delivery = await findDelivery(deps.db, input.orgId, input.environment, input.deliveryId);
  if (!delivery) return fail('not_found', `No webhook delivery ${input.deliveryId}.`);
  const [endpoint, attempts] = await Promise.all([findEndpoint(deps.db, delivery.endpoint_id), listAttempts(deps.db, delivery.delivery_id)]);
  const last = attempts.at(-1);
  if (!last || !endpoint) return ok({ body: delivery.payload, headers: null, signaturesKnown: true });
  const t = Math.floor(last.attempted_at.getTime() / 1000);
  const secrets = signingSecretsAt(deps.secret, endpoint, last.attempted_at);
  const base: [string, string][] = [
    ['Content-Type', 'application/json'],
    ['User-Agent', WEBHOOK_USER_AGENT],
  ];
  if (!secrets) {
    return ok({
      body: delivery.payload,
      headers: [...base, ['webhook-id', delivery.delivery_id], ['webhook-timestamp', String(t)]],
      signaturesKnown: false,
    });
  }
  const signed = signAttempt(secrets, delivery.delivery_id, t, delivery.payload);
  return ok({
    body: delivery.payload,
    headers: [
      ...base,
      ['X-Service-Signature', signed['x-service-signature']],
      ['webhook-id', signed['webhook-id']],
      ['webhook-timestamp', signed['webhook-timestamp']],
      ['webhook-signature', signed['webhook-signature']],
    ],
    signaturesKnown: true,
  });
}
