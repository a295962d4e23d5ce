import { hash, verify } from '@node-rs/argon2';

/**
 * argon2id with OWASP's baseline (19 MiB, 2 passes, 1 lane). One hash takes ~25 ms on this
 * machine's cores: slow enough to make guessing costly, fast enough that sign-in stays snappy.
 */
const OPTIONS = { algorithm: 2 /* Argon2id */, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function passwordMatches(password: string, passwordHash: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/**
 * A hash of nothing anyone knows, verified when the email names no operator, so a wrong email
 * costs the same time as a wrong password and the timing does not tell which accounts exist.
 */
let decoy: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoy ??= hashPassword(`decoy-${Math.random()}`);
  return decoy;
}
