import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../../domain/deps.ts';
import { authenticateApiKey, presentedKeyHash, requireScope } from '../../domain/keys/authenticate.ts';
import type { AuthenticatedKey } from '../../ports/key-lookup.ts';
import { consumeRateLimit, rateLimitHeaders } from '../../domain/rate-limit/rate-limit.ts';
import { AppError } from '../../domain/errors.ts';
import { recordApiKeyUse } from '../../domain/keys/keys.ts';
import { isScopeAuth } from './route-auth.ts';
import { FailedAuthLimiter } from '../../domain/keys/failed-auth-limit.ts';
import { addressLimitKey } from '../../net/client-address.ts';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: AuthenticatedKey;
  }
  interface FastifyContextConfig {
    /**
     * Started once the key is authenticated and permitted, before the rate limit is counted: a
     * read the handler will need (the case revision mirror, issue 29) then waits on the same
     * round trip as the rate limit's counter instead of one after it.
     */
    prefetch?: (request: FastifyRequest, key: AuthenticatedKey) => void;
  }
}

/** The key that authenticated this request; only callable on routes whose `auth` is an API scope. */
export function authOf(request: FastifyRequest): AuthenticatedKey {
  if (!request.apiKey) throw new Error('authOf called on a route without a scope');
  return request.apiKey;
}

/** `last_used_at` is written at most once a minute per key and process: precise enough, and no write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Contract §4 order: authentication (401) → scope (403) → rate limit (429), all before the body
 * is parsed or validated, so a bad key never learns anything about request validation. Before all
 * of them, an address over its failed-authentication budget is refused 429 without a query, unless
 * the request's key is one this process knows to be live: other requests' failures never refuse a
 * key that verifies (issue 23 §2b: behind one NAT or proxy address, one client's bad keys took the
 * API away from everyone sharing it).
 */
export function registerAuthentication(app: FastifyInstance, ctx: AppContext): void {
  const lastUsedWritten = new Map<string, number>();
  const failedAuth = new FailedAuthLimiter(ctx.config.authFailuresPerMinute);

  app.addHook('onRequest', async (request, reply) => {
    const scope = request.routeOptions.config.auth;
    if (!isScopeAuth(scope)) return;
    const address = addressLimitKey(request.ip);
    const refused = failedAuth.refusal(address, ctx.clock.now());
    if (refused) {
      const hash = presentedKeyHash(request.headers.authorization);
      if (hash === undefined || !(await ctx.keys.isKnown(hash))) throw AppError.from(refused);
    }
    const authenticated = await authenticateApiKey(
      { clock: ctx.clock, acceptedEnvironments: ctx.config.acceptedKeyEnvironments, findKeyByHash: ctx.keys.find, verifiedHeaders: ctx.keys },
      request.headers.authorization,
    );
    if (!authenticated.ok) {
      failedAuth.record(address, ctx.clock.now());
      throw AppError.from(authenticated);
    }
    const permitted = requireScope(authenticated.value, scope);
    if (!permitted.ok) throw AppError.from(permitted);
    const key = permitted.value;
    request.routeOptions.config.prefetch?.(request, key);

    const now = ctx.clock.now();
    const limited = await consumeRateLimit(ctx, { subject: key.keyId, limit: key.rateLimitPerMinute ?? ctx.config.rateLimitPerMinute });
    if (!limited.ok) throw AppError.from(limited);
    reply.headers(rateLimitHeaders(limited.value));
    request.apiKey = key;

    const written = lastUsedWritten.get(key.keyId) ?? 0;
    if (now.getTime() - written >= LAST_USED_RESOLUTION_MS) {
      if (lastUsedWritten.size > 10_000) lastUsedWritten.clear();
      lastUsedWritten.set(key.keyId, now.getTime());
      await recordApiKeyUse(ctx, { orgId: key.orgId, keyId: key.keyId, at: now });
    }
  });
}
