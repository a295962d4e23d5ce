import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** Contract §8: `whsec_` + base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The Standard Webhooks key: the base64-decoded part after `whsec_`. A secret in another shape
 * (the test operation accepts any) is decoded the same way, as the reference library does.
 */
function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

export interface SignatureHeaders {
  'x-service-signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Signs one attempt (contract §8), with every secret given (the current one first; during a
 * rotation the previous one too, so receivers can move to the new secret at their own pace).
 *
 * - `X-Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`: HMAC-SHA256 keyed with the whole
 *   secret string's UTF-8 bytes over `t.rawbody`, the form Stripe's verifier accepts.
 * - Standard Webhooks: `webhook-signature: v1,<base64>[ v1,<base64>]` over `id.t.rawbody`.
 */
export function signAttempt(secrets: readonly string[], deliveryId: string, timestampSeconds: number, body: string): SignatureHeaders {
  const t = String(timestampSeconds);
  const stripeStyle = secrets.map((s) => `v1=${createHmac('sha256', s).update(`${t}.${body}`).digest('hex')}`);
  const standard = secrets.map(
    (s) => `v1,${createHmac('sha256', standardWebhooksKey(s)).update(`${deliveryId}.${t}.${body}`).digest('base64')}`,
  );
  return {
    'x-service-signature': `t=${t},${stripeStyle.join(',')}`,
    'webhook-id': deliveryId,
    'webhook-timestamp': t,
    'webhook-signature': standard.join(' '),
  };
}
