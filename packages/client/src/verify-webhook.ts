import type { WebhookEvent } from './webhook-events.ts';

/**
 * Webhook verification with WebCrypto only, so the same code runs in Node 18+, Deno, Bun and edge
 * runtimes. Two schemes cover every delivery (contract §8):
 *
 * - `X-Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`: HMAC-SHA256 keyed with the
 *   secret's UTF-8 bytes over `t + "." + raw body`. During a secret rotation the service signs with
 *   the old and the new secret, so any one `v1=` matching any one of your secrets is enough.
 * - Standard Webhooks: `webhook-id`, `webhook-timestamp` and `webhook-signature: v1,<base64>[ …]`,
 *   HMAC-SHA256 keyed with the base64-decoded part after `whsec_`, over `id.timestamp.body`.
 *
 * `X-Service-Signature` is checked when present, else the Standard Webhooks headers. Timestamps
 * more than `toleranceSeconds` from now, in either direction, are refused: a captured delivery
 * cannot be replayed later. Signatures are compared in constant time.
 */

export type WebhookSignatureFailure =
  | 'missing_secret'
  | 'missing_signature'
  | 'malformed_signature'
  | 'timestamp_outside_tolerance'
  | 'signature_mismatch'
  | 'invalid_payload';

/** The delivery is not provably from Dossier: answer 401 and do not act on it. */
export class WebhookSignatureError extends Error {
  readonly reason: WebhookSignatureFailure;

  constructor(reason: WebhookSignatureFailure, message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
    this.reason = reason;
  }
}

/** Header shapes from every runtime: fetch `Headers`, Node's `IncomingHttpHeaders`, or a plain record. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

/** The part of WebCrypto's SubtleCrypto the verifier uses (any runtime's `crypto.subtle` fits). */
export interface HmacSubtle {
  importKey(format: 'raw', keyData: Uint8Array<ArrayBuffer>, algorithm: { name: 'HMAC'; hash: 'SHA-256' }, extractable: false, keyUsages: ['sign']): Promise<unknown>;
  sign(algorithm: 'HMAC', key: never, data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer>;
}

export interface VerifyWebhookOptions {
  /** Accepted age of the signature's timestamp, in seconds either way. Default 300. */
  toleranceSeconds?: number;
  /** The current time in epoch milliseconds (for tests and replays of stored deliveries). */
  now?: () => number;
  /** WebCrypto's SubtleCrypto when the runtime has no global `crypto` (Node 18: `require('node:crypto').webcrypto.subtle`). */
  subtle?: HmacSubtle;
}

const DEFAULT_TOLERANCE_SECONDS = 300;
const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

/**
 * Verifies a delivery and returns its envelope, typed by `event_type`; throws
 * `WebhookSignatureError` otherwise. Pass the raw body exactly as received, before any JSON
 * parsing, and every secret currently valid for the endpoint (two during a rotation).
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  signingSecret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const secrets = (typeof signingSecret === 'string' ? [signingSecret] : [...signingSecret]).filter((s) => s.length > 0);
  if (secrets.length === 0) throw new WebhookSignatureError('missing_secret', 'No signing secret given: pass the endpoint secret (whsec_…).');
  const subtle = options.subtle ?? (globalThis as { crypto?: { subtle?: HmacSubtle } }).crypto?.subtle;
  if (!subtle) throw new Error('WebCrypto is not available: pass options.subtle (on Node 18: require("node:crypto").webcrypto.subtle).');
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody instanceof Uint8Array ? rawBody : new Uint8Array(rawBody);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now?.() ?? Date.now()) / 1000);
  const get = headerReader(headers);

  const serviceSignature = get('x-service-signature');
  const standard = { id: get('webhook-id'), timestamp: get('webhook-timestamp'), signature: get('webhook-signature') };
  let webhookId: string | null = null;
  if (serviceSignature !== null) {
    const { timestamp, signatures } = parseServiceSignature(serviceSignature);
    checkTimestamp(timestamp, nowSeconds, tolerance);
    const expected = signatures.map(hexToBytes).filter((s): s is Uint8Array => s !== null);
    if (!(await anySecretMatches(subtle, secrets.map(utf8Key), join(`${timestamp}.`, body), expected))) {
      throw new WebhookSignatureError('signature_mismatch', 'No v1 signature in X-Service-Signature matches the body with the given secret(s).');
    }
  } else if (standard.id !== null || standard.timestamp !== null || standard.signature !== null) {
    if (standard.id === null || standard.timestamp === null || standard.signature === null) {
      throw new WebhookSignatureError('malformed_signature', 'Standard Webhooks verification needs webhook-id, webhook-timestamp and webhook-signature.');
    }
    const timestamp = parseTimestamp(standard.timestamp);
    checkTimestamp(timestamp, nowSeconds, tolerance);
    const expected = standard.signature
      .split(' ')
      .map((entry) => entry.trim())
      .filter((entry) => entry.startsWith('v1,'))
      .map((entry) => base64ToBytes(entry.slice(3)));
    if (expected.length === 0) throw new WebhookSignatureError('malformed_signature', 'webhook-signature carries no v1 signature.');
    if (!(await anySecretMatches(subtle, secrets.map(standardWebhooksKey), join(`${standard.id}.${timestamp}.`, body), expected))) {
      throw new WebhookSignatureError('signature_mismatch', 'No v1 signature in webhook-signature matches the body with the given secret(s).');
    }
    webhookId = standard.id;
  } else {
    throw new WebhookSignatureError('missing_signature', 'The request carries neither X-Service-Signature nor the Standard Webhooks headers.');
  }

  let event: WebhookEvent;
  try {
    event = JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookSignatureError('invalid_payload', 'The signed body is not JSON.');
  }
  if (event === null || typeof event !== 'object' || typeof event.event_type !== 'string' || typeof event.delivery_id !== 'string') {
    throw new WebhookSignatureError('invalid_payload', 'The signed body is not a webhook envelope.');
  }
  if (webhookId !== null && webhookId !== event.delivery_id) {
    throw new WebhookSignatureError('invalid_payload', 'webhook-id does not match the envelope delivery_id.');
  }
  return event;
}

function headerReader(headers: WebhookHeaders): (name: string) => string | null {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    return (name) => (headers as Headers).get(name);
  }
  const lowered = new Map<string, string>();
  for (const [name, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (value === undefined) continue;
    lowered.set(name.toLowerCase(), typeof value === 'string' ? value : value.join(', '));
  }
  return (name) => lowered.get(name) ?? null;
}

function parseServiceSignature(header: string): { timestamp: number; signatures: string[] } {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't') timestamp = parseTimestamp(value);
    else if (key === 'v1') signatures.push(value);
  }
  if (timestamp === null) throw new WebhookSignatureError('malformed_signature', 'X-Service-Signature has no t= timestamp.');
  if (signatures.length === 0) throw new WebhookSignatureError('malformed_signature', 'X-Service-Signature has no v1= signature.');
  return { timestamp, signatures };
}

function parseTimestamp(value: string): number {
  if (!/^\d{1,12}$/.test(value.trim())) throw new WebhookSignatureError('malformed_signature', `The signature timestamp "${value}" is not unix seconds.`);
  return Number(value.trim());
}

function checkTimestamp(timestamp: number, nowSeconds: number, tolerance: number): void {
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    throw new WebhookSignatureError('timestamp_outside_tolerance', `The signature timestamp is ${nowSeconds - timestamp} s from now; at most ${tolerance} s is accepted.`);
  }
}

async function anySecretMatches(subtle: HmacSubtle, keys: Uint8Array<ArrayBuffer>[], signed: Uint8Array<ArrayBuffer>, expected: readonly Uint8Array[]): Promise<boolean> {
  let matched = false;
  // Every secret and every candidate is compared, so the time taken does not say which matched.
  for (const keyBytes of keys) {
    const key = await subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const mac = new Uint8Array(await subtle.sign('HMAC', key as never, signed));
    for (const candidate of expected) matched = timingSafeEqual(mac, candidate) || matched;
  }
  return matched;
}

/** Constant-time equality of two byte strings (the lengths are not secret: a MAC's is fixed). */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

function utf8Key(secret: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(secret);
}

/** The Standard Webhooks key: the base64 after `whsec_` (a secret of another shape is decoded whole, as the service does). */
function standardWebhooksKey(secret: string): Uint8Array<ArrayBuffer> {
  return base64ToBytes(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
}

function join(prefix: string, body: Uint8Array): Uint8Array<ArrayBuffer> {
  const head = encoder.encode(prefix);
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

function hexToBytes(hex: string): Uint8Array | null {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

const BASE64_VALUES = new Map<string, number>(
  [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].map((c, i) => [c, i] as [string, number]).concat([['-', 62], ['_', 63]]),
);

/**
 * Decodes base64 (standard or URL alphabet) the lenient way the service's signer does: other
 * characters are skipped, `=` ends the data and a trailing partial byte is dropped. `atob` would
 * refuse the odd secrets a webhook test may be given.
 */
export function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text) {
    if (char === '=') break;
    const digit = BASE64_VALUES.get(char);
    if (digit === undefined) continue;
    value = ((value << 6) | digit) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((value >> bits) & 0xff);
    }
  }
  return new Uint8Array(out);
}
