import type { Deps } from './deps.ts';
import type { Environment } from './config.ts';
import type { ActionEnqueuer, WebhookEnqueuer } from './domain/cases/case-events.ts';
import { caseActionEnqueuer } from './domain/connectors/actions.ts';
import { wakeConnectorWorkers } from './jobs/connector-wake.ts';
import { cacheKeyLookup } from './domain/keys/verified-key-cache.ts';
import type { StoredKey } from './domain/keys/authenticate.ts';
import type { RateLimitStore } from './ports/rate-limit-store.ts';
import type { Metrics } from './metrics/metrics.ts';
import { createSafeHttpClient, type OutboundHttp } from './net/safe-fetch.ts';
import { createExtractionPool, type ExtractionPool } from './jobs/extraction-pool.ts';
import { findApiKeyByHash } from './storage/api-keys.ts';
import { caseWebhookEnqueuer } from './domain/webhooks/case-enqueuer.ts';
import { wakeDeliveryWorkers } from './jobs/webhook-wake.ts';
import { hasEnabledEndpoint } from './storage/webhooks/endpoints.ts';

/** Everything a running process shares between requests and jobs. */
export interface AppContext extends Deps {
  /** Signs links and tokens: DOSSIER_SECRET, or the one generated into the database at first start. */
  secret: string;
  rateLimits: RateLimitStore;
  /** This process's Prometheus series (served at /metrics when METRICS_TOKEN is set). */
  metrics: Metrics;
  keys: { find(hash: string): Promise<StoredKey | undefined>; forget(keyId: string): void };
  /** Writes webhook outbox rows for a catalog case event, in the event's transaction. */
  enqueueWebhook: WebhookEnqueuer;
  /** Writes the connector calls of the action nodes a case event triggers, in the event's transaction. */
  enqueueActions: ActionEnqueuer;
  /** The one SSRF-safe outbound HTTP client (document fetching; webhooks keep their own pool). */
  outbound: OutboundHttp;
  /** Document page extraction in child processes, started on first use (jobs/extraction-pool.ts). */
  extraction: ExtractionPool;
  /** Whether the workspace has an enabled webhook endpoint (SELF_SERVE_WEBHOOKS=false refuses sessions then). */
  hasEnabledWebhookEndpoint: (orgId: string, environment: Environment) => Promise<boolean>;
}

export function createAppContext(deps: Deps, secret: string, rateLimits: RateLimitStore, metrics: Metrics): AppContext {
  const outbound = createSafeHttpClient({ policy: { allowPrivateNetwork: deps.config.allowPrivateNetwork }, timeoutMs: 30_000 });
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
    metrics,
    keys,
    outbound,
    extraction: createExtractionPool({ size: deps.config.extractionProcesses, maxRssBytes: deps.config.extractionMemoryMb * 1024 * 1024 }),
    // Catalog case events write their deliveries in the event's transaction; workers in this
    // process start at once, others hear the NOTIFY the outbox issues.
    enqueueWebhook: caseWebhookEnqueuer(deps, () => wakeDeliveryWorkers(deps.db)),
    enqueueActions: caseActionEnqueuer(deps, () => wakeConnectorWorkers(deps.db)),
    hasEnabledWebhookEndpoint: (orgId, environment) => hasEnabledEndpoint(deps.db, orgId, environment),
  };
}
