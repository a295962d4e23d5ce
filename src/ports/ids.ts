import { randomBytes, randomUUID } from 'node:crypto';

/** The type prefixes of our identifiers (style guide: ids say what they are). */
export type IdPrefix =
  | 'org' | 'key' | 'case' | 'ct' | 'evt' | 'doc' | 'dlv' | 'ep' | 'ntf' | 'fact' | 'job' | 'op' | 'req' | 'att' | 'ack' | 'fq' | 'fc' | 'ops' | 'con' | 'call' | 'inv';

export interface Ids {
  /** A prefixed random id: `case_` + 24 base62 characters (~143 bits). */
  next(prefix: IdPrefix): string;
  uuid(): string;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes drawn from a 4 KB block of the CSPRNG, refilled when used up, as Node's own
 * randomUUID does: one randomBytes call per id was a getrandom system call per request (each
 * request gets an id), 7% of the server's CPU under the case-read load (bench/profile.ts). Each
 * byte is handed out once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolAt = 0;

function randomByte(): number {
  if (poolAt >= pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/** Base62 text of `length` characters with rejection sampling, so every character is uniform. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export const randomIds: Ids = {
  next: (prefix) => `${prefix}_${randomBase62(24)}`,
  uuid: () => randomUUID(),
};
