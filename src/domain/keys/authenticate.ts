import type { Environment } from '../../config.ts';
import type { AuthenticatedKey, StoredKey } from '../../ports/key-lookup.ts';
import type { Clock } from '../../ports/clock.ts';
import { fail, ok, type Failure, type Result } from '../errors.ts';
import { hashApiKey, parseApiKeyEnvironment } from './api-key-token.ts';
import { hasScope, type Scope } from './scopes.ts';

export interface AuthenticationDeps {
  clock: Clock;
  acceptedEnvironments: readonly Environment[];
  findKeyByHash(hash: string): Promise<StoredKey | undefined>;
  /** Keys verified a moment ago under the exact header text (verified-key-cache.ts); optional. */
  verifiedHeaders?: { forHeader(authorization: string): StoredKey | undefined; rememberHeader(authorization: string, key: StoredKey): void };
}

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

function invalidKey(message: string): Failure {
  return fail('invalid_api_key', message);
}

/** The hash of the key an Authorization header carries, if it carries a well-formed one. */
export function presentedKeyHash(authorization: string | undefined): string | undefined {
  const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  return token !== undefined && parseApiKeyEnvironment(token) !== undefined ? hashApiKey(token) : undefined;
}

/**
 * Every way a request can fail to authenticate ends in 401 `invalid_api_key` (spec §5.3); the
 * message says which, without echoing the key.
 */
export async function authenticateApiKey(
  deps: AuthenticationDeps,
  authorization: string | undefined,
): Promise<Result<AuthenticatedKey>> {
  // A header that verified a moment ago (≤ 4 s) in this process: the same text is the same key, so
  // neither the parse nor the SHA-256 is needed again; revocation and expiry are still checked.
  const cached = authorization === undefined ? undefined : deps.verifiedHeaders?.forHeader(authorization);
  if (cached !== undefined) return checkStoredKey(cached, deps.clock.now().getTime(), authorization!.trim());
  if (authorization === undefined || authorization.trim() === '') {
    return invalidKey('No API key provided. Send it as "Authorization: Bearer <API_KEY>".');
  }
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) {
    return invalidKey('The Authorization header must have the form "Bearer <API_KEY>".');
  }
  const environment = parseApiKeyEnvironment(token);
  if (environment === undefined) {
    return invalidKey('Malformed API key: keys look like sk_test_… or sk_live_….');
  }
  if (!deps.acceptedEnvironments.includes(environment)) {
    return invalidKey(`This deployment does not accept ${environment} keys.`);
  }
  const stored = await deps.findKeyByHash(hashApiKey(token));
  if (stored === undefined) return invalidKey(`Invalid API key ending in ${token.slice(-4)}.`);
  if (stored.environment !== environment) return invalidKey(`Invalid API key ending in ${token.slice(-4)}.`);
  const checked = checkStoredKey(stored, deps.clock.now().getTime(), token);
  if (checked.ok) deps.verifiedHeaders?.rememberHeader(authorization, stored);
  return checked;
}

/** One AuthenticatedKey per stored row: a cached key answers every request with the same object. */
const authenticatedOf = new WeakMap<StoredKey, AuthenticatedKey>();

/** Revocation and expiry, checked on every use, cached or not. */
function checkStoredKey(stored: StoredKey, now: number, token: string): Result<AuthenticatedKey> {
  if (stored.revokedAt !== null && stored.revokedAt.getTime() <= now) {
    return invalidKey(`The API key ending in ${token.slice(-4)} has been revoked.`);
  }
  if (stored.expiresAt !== null && stored.expiresAt.getTime() <= now) {
    return invalidKey(`The API key ending in ${token.slice(-4)} has expired.`);
  }
  let key = authenticatedOf.get(stored);
  if (key === undefined) {
    key = Object.freeze({
      keyId: stored.keyId,
      orgId: stored.orgId,
      environment: stored.environment,
      scopes: stored.scopes,
      rateLimitPerMinute: stored.rateLimitPerMinute,
    });
    authenticatedOf.set(stored, key);
  }
  return ok(key);
}

export function requireScope(key: AuthenticatedKey, scope: Scope): Result<AuthenticatedKey> {
  return hasScope(key.scopes, scope)
    ? ok(key)
    : fail('forbidden', `This API key lacks the "${scope}" scope required for this operation.`);
}
