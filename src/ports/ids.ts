import { randomBytes, randomUUID } from 'node:crypto';

/** The type prefixes of our identifiers (style guide: ids say what they are). */
export type IdPrefix =
  | 'org' | 'key' | 'case' | 'ct' | 'evt' | 'doc' | 'dlv' | 'ep' | 'ntf' | 'fact' | 'job' | 'op' | 'req' | 'att' | 'ack' | 'fq' | 'fc' | 'ops' | 'con' | 'call';

export interface Ids {
  /** A prefixed random id: `case_` + 24 base62 characters (~143 bits). */
  next(prefix: IdPrefix): string;
  uuid(): string;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Base62 text of `length` characters with rejection sampling, so every character is uniform. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export const randomIds: Ids = {
  next: (prefix) => `${prefix}_${randomBase62(24)}`,
  uuid: () => randomUUID(),
};
