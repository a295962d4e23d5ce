import { createCipheriv, createDecipheriv, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/** A key for one purpose, derived from the deployment secret so one leak cannot serve another purpose. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`dossier:${purpose}`).digest();
}

/**
 * Derived keys as KeyObjects, per secret and purpose: deriving (an HMAC) and importing a raw key
 * on every seal and open was 7 % of an idempotent replay's CPU (issue 16). A handful of entries:
 * one per purpose per deployment secret.
 */
const boxKeys = new Map<string, KeyObject>();

function boxKey(secret: string, purpose: string): KeyObject {
  const id = `${purpose}\u0000${secret}`;
  let key = boxKeys.get(id);
  if (!key) {
    if (boxKeys.size > 64) boxKeys.clear();
    key = createSecretKey(deriveKey(secret, purpose));
    boxKeys.set(id, key);
  }
  return key;
}

/**
 * What a sealed value is for and whom it belongs to. `owner` (the id of the row or thing that
 * holds the box: an endpoint id, a connector id, an org id, an idempotency scope) is bound as
 * AES-GCM associated data, so a box copied to another row does not open there (issue 9 §4).
 */
export interface BoxLabel {
  purpose: string;
  owner: string;
}

/** AES-256-GCM with the owner as associated data: `v2.<iv>.<tag>.<ciphertext>` in base64url. */
export function seal(secret: string, label: BoxLabel, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', boxKey(secret, label.purpose), iv);
  cipher.setAAD(Buffer.from(label.owner, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v2', iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/**
 * The plaintext, or undefined when the box was sealed under another secret, for another owner,
 * or tampered with. `v1` boxes (written before owners were bound) still open, without the owner
 * check; everything sealed from now on is `v2`.
 */
export function open(secret: string, label: BoxLabel, box: string): string | undefined {
  const [version, iv, tag, body] = box.split('.');
  if ((version !== 'v1' && version !== 'v2') || !iv || !tag || body === undefined) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', boxKey(secret, label.purpose), Buffer.from(iv, 'base64url'));
    if (version === 'v2') decipher.setAAD(Buffer.from(label.owner, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
