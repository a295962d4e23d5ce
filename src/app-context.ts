import type { Deps } from './deps.ts';
import type { Environment } from './config.ts';
import type { WebhookEnqueuer } from './domain/cases/case-events.ts';
import { cacheKeyLookup } from './domain/keys/verified-key-cache.ts';
import type { StoredKey } from './domain/keys/authenticate.ts';
import type { RateLimitStore } from './ports/rate-limit-store.ts';
import { findApiKeyByHash } from './storage/api-keys.ts';

/** Everything a running process shares between requests and jobs. */
export interface AppContext extends Deps {
  /** Signs links and tokens: DOSSIER_SECRET, or the one generated into the database at first start. */
  secret: string;
  rateLimits: RateLimitStore;
  keys: { find(hash: string): Promise<StoredKey | undefined>; forget(keyId: string): void };
  /** Writes webhook outbox rows for a catalog case event, in the event's transaction. */
  enqueueWebhook?: WebhookEnqueuer;
  /** Whether the workspace has an enabled webhook endpoint (SELF_SERVE_WEBHOOKS=false refuses sessions then). */
  hasEnabledWebhookEndpoint?: (orgId: string, environment: Environment) => Promise<boolean>;
}

export function createAppContext(deps: Deps, secret: string, rateLimits: RateLimitStore): AppContext {
  const keys = cacheKeyLookup(async (hash) => {
    const row = await findApiKeyByHash(deps.db, hash);
    return row
      ? {
          keyId: row.key_id,
          orgId: row.org_id,
          environment: row.environment,
          scopes: row.scopes,
          rateLimitPerMinute: row.rate_limit_per_minute,
          expiresAt: row.expires_at,
          revokedAt: row.revoked_at,
        }
      : undefined;
  }, deps.clock);
  return {
    ...deps,
    secret,
    rateLimits,
    keys,
  };
}
