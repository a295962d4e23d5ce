import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

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
 * One secret's two HMAC keys, made once. Measured on node 24: an HMAC keyed with a Buffer costs
 * about 25 µs (a key object is built inside every time), with a ready KeyObject about 4 µs; the
 * delivery worker keeps these per endpoint, so an attempt's two signatures cost about 8 µs, not 30.
 */
export interface SigningKeys {
  /** The whole secret string's UTF-8 bytes (X-Service-Signature). */
  stripe: KeyObject;
  /** The decoded part after `whsec_` (Standard Webhooks). */
  standard: KeyObject;
}

export function signingKeysOf(secret: string): SigningKeys {
  return { stripe: createSecretKey(Buffer.from(secret, 'utf8')), standard: createSecretKey(standardWebhooksKey(secret)) };
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
  return signAttemptWithKeys(secrets.map(signingKeysOf), deliveryId, timestampSeconds, body);
}

/** `signAttempt` with keys made beforehand by `signingKeysOf` (the delivery worker's hot path). */
export function signAttemptWithKeys(keys: readonly SigningKeys[], deliveryId: string, timestampSeconds: number, body: string): SignatureHeaders {
  const t = String(timestampSeconds);
  const stripeStyle = keys.map((k) => `v1=${createHmac('sha256', k.stripe).update(`${t}.`).update(body).digest('hex')}`);
  const standard = keys.map((k) => `v1,${createHmac('sha256', k.standard).update(`${deliveryId}.${t}.`).update(body).digest('base64')}`);
  return {
    'x-service-signature': `t=${t},${stripeStyle.join(',')}`,
    'webhook-id': deliveryId,
    'webhook-timestamp': t,
    'webhook-signature': standard.join(' '),
  };
}
