import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { decryptStream, encryptedSize, encryptSegments, newDataKey, openDataKey, plaintextSize, sealDataKey, SEGMENT_BYTES } from '../../src/domain/crypto/document-cipher.ts';

const SECRET = 'test-secret-test-secret-test-secret-0123';

async function decrypt(key: Buffer, docId: string, object: Buffer, chunk = 7_777): Promise<Buffer> {
  const parts: Buffer[] = [];
  const pieces = [];
  for (let i = 0; i < object.length; i += chunk) pieces.push(object.subarray(i, i + chunk));
  for await (const part of Readable.from(pieces).pipe(decryptStream(key, docId))) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

describe('document cipher (segmented AES-256-GCM)', () => {
  it.each([0, 1, SEGMENT_BYTES - 1, SEGMENT_BYTES, SEGMENT_BYTES + 1, 3 * SEGMENT_BYTES, 200_003])('round-trips %i bytes, whatever the chunking, at the size it announces', async (n) => {
    const key = newDataKey();
    const plain = randomBytes(n);
    const object = Buffer.concat([...encryptSegments(key, 'doc_a', plain)]);
    expect(object.length).toBe(encryptedSize(n));
    expect(plaintextSize(object.length)).toBe(n);
    expect((await decrypt(key, 'doc_a', object)).equals(plain)).toBe(true);
    expect((await decrypt(key, 'doc_a', object, 1_000_000)).equals(plain)).toBe(true);
  });

  it('refuses another document id, another key, a flipped bit, a cut and an appended segment', async () => {
    const key = newDataKey();
    const plain = randomBytes(2 * SEGMENT_BYTES + 10);
    const object = Buffer.concat([...encryptSegments(key, 'doc_a', plain)]);
    await expect(decrypt(key, 'doc_b', object)).rejects.toThrow(/does not decrypt/);
    await expect(decrypt(newDataKey(), 'doc_a', object)).rejects.toThrow(/does not decrypt/);
    const flipped = Buffer.from(object);
    flipped[SEGMENT_BYTES + 100]! ^= 1;
    await expect(decrypt(key, 'doc_a', flipped)).rejects.toThrow(/does not decrypt/);
    // Cut at a segment boundary: the last remaining segment was not sealed as the last one.
    await expect(decrypt(key, 'doc_a', object.subarray(0, 12 + SEGMENT_BYTES + 16))).rejects.toThrow(/does not decrypt/);
    await expect(decrypt(key, 'doc_a', Buffer.concat([object, object.subarray(12, 12 + SEGMENT_BYTES + 16)]))).rejects.toThrow(/does not decrypt/);
  });

  it('seals the data key to its document: the box opens for that id and this secret only', () => {
    const key = newDataKey();
    const sealed = sealDataKey(SECRET, 'doc_a', key);
    expect(openDataKey(SECRET, 'doc_a', sealed)?.equals(key)).toBe(true);
    expect(openDataKey(SECRET, 'doc_b', sealed)).toBeUndefined();
    expect(openDataKey(`${SECRET}x`, 'doc_a', sealed)).toBeUndefined();
  });
});
