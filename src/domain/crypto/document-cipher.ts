import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { open, seal } from './secret-box.ts';

/**
 * Documents in the object store are encrypted before upload (issue 30): each document has its own
 * random 256-bit data key, sealed under the deployment secret with the document id as associated
 * data and kept in the database, never in the bucket. Someone with the bucket alone reads nothing;
 * deleting the blob row makes every copy of the object (versions, replicas) unreadable.
 *
 * The object is AES-256-GCM in segments of 64 KiB (the STREAM construction of Hoang, Reyhanitabar,
 * Rogaway and Vizár, as age and Tink use it): a download is decrypted and checked segment by
 * segment, so no plaintext leaves before its tag is verified and no 20 MB document is held whole
 * to check one tag at the end. Layout: `DSE1` | 8-byte nonce prefix | segments, each its
 * ciphertext and 16-byte tag. Segment i's nonce is the prefix and i (32 bits); its associated
 * data is the document id and whether it is the last segment, so reordering, truncation and
 * moving an object to another document's row all fail to decrypt.
 */
export const SEGMENT_BYTES = 64 * 1024;
const MAGIC = Buffer.from('DSE1', 'ascii');
const HEADER_BYTES = MAGIC.length + 8;
const TAG_BYTES = 16;
const KEY_PURPOSE = 'document-data-key';

export function newDataKey(): Buffer {
  return randomBytes(32);
}

export function sealDataKey(secret: string, docId: string, key: Buffer): string {
  return seal(secret, { purpose: KEY_PURPOSE, owner: docId }, key.toString('base64url'));
}

/** The data key, or undefined when the box was sealed under another secret or for another document. */
export function openDataKey(secret: string, docId: string, sealed: string): Buffer | undefined {
  const text = open(secret, { purpose: KEY_PURPOSE, owner: docId }, sealed);
  return text === undefined ? undefined : Buffer.from(text, 'base64url');
}

function segmentCount(plainBytes: number): number {
  return Math.max(1, Math.ceil(plainBytes / SEGMENT_BYTES));
}

/** The object's size for a plaintext of `plainBytes` (S3 wants the length of a streamed body up front). */
export function encryptedSize(plainBytes: number): number {
  return HEADER_BYTES + plainBytes + TAG_BYTES * segmentCount(plainBytes);
}

/** The plaintext size of an object of `objectBytes`, or undefined when no plaintext has that size. */
export function plaintextSize(objectBytes: number): number | undefined {
  const body = objectBytes - HEADER_BYTES;
  if (body < TAG_BYTES) return undefined;
  const segments = Math.ceil(body / (SEGMENT_BYTES + TAG_BYTES));
  const plain = body - segments * TAG_BYTES;
  return plain >= 0 && encryptedSize(plain) === objectBytes ? plain : undefined;
}

function nonce(prefix: Buffer, index: number): Buffer {
  const n = Buffer.alloc(12);
  prefix.copy(n, 0);
  n.writeUInt32BE(index, 8);
  return n;
}

function aad(docId: string, last: boolean): Buffer {
  return Buffer.from(`${docId}\u0000${last ? 1 : 0}`, 'utf8');
}

/**
 * The object's bytes, a segment at a time, read from `bytes` without copying it whole: the upload
 * streams these while the plaintext stays the only full copy in memory.
 */
export function* encryptSegments(key: Buffer, docId: string, bytes: Uint8Array): Generator<Buffer> {
  const prefix = randomBytes(8);
  yield Buffer.concat([MAGIC, prefix]);
  const count = segmentCount(bytes.byteLength);
  for (let i = 0; i < count; i++) {
    const cipher = createCipheriv('aes-256-gcm', key, nonce(prefix, i));
    cipher.setAAD(aad(docId, i === count - 1));
    const part = bytes.subarray(i * SEGMENT_BYTES, Math.min(bytes.byteLength, (i + 1) * SEGMENT_BYTES));
    yield Buffer.concat([cipher.update(part), cipher.final(), cipher.getAuthTag()]);
  }
}

export class DocumentCipherError extends Error {
  override name = 'DocumentCipherError';
}

/**
 * Decrypts an object as it streams in. Holds at most two segments; a segment is released only
 * after its tag checks. A wrong key, a foreign or tampered object, or one cut short fails the
 * stream with DocumentCipherError.
 */
export function decryptStream(key: Buffer, docId: string): Transform {
  let pending: Buffer = Buffer.alloc(0);
  let prefix: Buffer | undefined;
  let index = 0;
  const openSegment = (segment: Buffer, last: boolean): Buffer => {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce(prefix!, index++));
    decipher.setAAD(aad(docId, last));
    decipher.setAuthTag(segment.subarray(segment.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(segment.subarray(0, segment.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new DocumentCipherError('a document object does not decrypt: wrong key, tampered or cut short');
    }
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      try {
        if (!prefix) {
          if (pending.length < HEADER_BYTES) return done();
          if (!pending.subarray(0, MAGIC.length).equals(MAGIC)) throw new DocumentCipherError('not a document object');
          prefix = Buffer.from(pending.subarray(MAGIC.length, HEADER_BYTES));
          pending = pending.subarray(HEADER_BYTES);
        }
        // A segment is known not to be the last only once bytes after it have arrived.
        while (pending.length > SEGMENT_BYTES + TAG_BYTES) {
          this.push(openSegment(pending.subarray(0, SEGMENT_BYTES + TAG_BYTES), false));
          pending = pending.subarray(SEGMENT_BYTES + TAG_BYTES);
        }
        done();
      } catch (err) {
        done(err as Error);
      }
    },
    flush(done: TransformCallback) {
      try {
        if (!prefix || pending.length < TAG_BYTES) throw new DocumentCipherError('a document object was cut short');
        this.push(openSegment(pending, true));
        done();
      } catch (err) {
        done(err as Error);
      }
    },
  });
}

/** The cipher the document store uses, bound to the deployment secret. */
export function documentCipher(secret: string) {
  return {
    newKey(docId: string) {
      const key = newDataKey();
      return { key, sealed: sealDataKey(secret, docId, key) };
    },
    openKey: (docId: string, sealed: string) => openDataKey(secret, docId, sealed),
    encrypt: (key: Buffer, docId: string, bytes: Uint8Array) => ({ chunks: encryptSegments(key, docId, bytes), size: encryptedSize(bytes.byteLength) }),
    decrypt: decryptStream,
    plaintextSize,
  };
}
