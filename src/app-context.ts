import type { AppContext, Deps } from './domain/deps.ts';
import { caseActionEnqueuer } from './domain/connectors/action-triggers.ts';
import { cacheKeyLookup } from './domain/keys/verified-key-cache.ts';
import type { RateLimitStore } from './ports/rate-limit-store.ts';
import type { CaseRevisions } from './ports/case-revisions.ts';
import type { Metrics } from './metrics/metrics.ts';
import { createOutboundClients } from './net/outbound-clients.ts';
import { inProcessWakeUps } from './ports/wake.ts';
import { createExtractionPool } from './jobs/extraction-pool.ts';
import type { ExtractionPool } from './domain/documents/extraction-port.ts';
import { createOpenApiReader } from './jobs/openapi-reader.ts';
import { findApiKeyByHash, listLiveApiKeyHashPrefixesUnscoped } from './storage/api-keys.ts';
import { knownKeyHashes } from './domain/keys/known-keys.ts';
import { createDocumentStore } from './storage/document-store.ts';
import { documentCipher } from './domain/crypto/document-cipher.ts';
import { caseWebhookEnqueuer } from './domain/webhooks/case-enqueuer.ts';
import { hasEnabledEndpoint } from './storage/webhooks/endpoints.ts';
import { pingDatabase, type DatabaseSession } from './storage/database.ts';
import { createSmtpMailer } from './net/smtp-mailer.ts';

/** What the caller owns and hands in: the case revision mirror, and an extraction pool it closes itself (tests share one per worker; otherwise the context makes its own). */
export interface AppContextParts {
  caseRevisions?: CaseRevisions | null;
  extraction?: ExtractionPool;
  /** The database handle's `openSession`. */
  openDatabaseSession: () => DatabaseSession | null;
}

export function createAppContext(deps: Deps, secret: string, rateLimits: RateLimitStore, metrics: Metrics, parts: AppContextParts): AppContext {
  const { caseRevisions = null, extraction, openDatabaseSession } = parts;
  const outbound = createOutboundClients(deps.config);
  const wake = inProcessWakeUps();
  const known = knownKeyHashes((since, now) => listLiveApiKeyHashPrefixesUnscoped(deps.db, since, now), deps.clock);
  const keys = cacheKeyLookup(async (hash) => {
    const row = await findApiKeyByHash(deps.db, hash);
    if (row && row.revoked_at === null) known.remember(hash);
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
    caseRevisions,
    metrics,
    keys: { find: keys.find, forHeader: keys.forHeader, rememberHeader: keys.rememberHeader, forget: keys.forget, isKnown: known.has },
    outbound,
    wake,
    blobs: createDocumentStore({ config: deps.config.documentStore, cipher: documentCipher(secret), logger: deps.logger }),
    extraction: extraction ?? createExtractionPool({ size: deps.config.extractionProcesses, maxRssBytes: deps.config.extractionMemoryMb * 1024 * 1024 }),
    openApi: createOpenApiReader(),
    mailer: deps.config.mail ? createSmtpMailer(deps.config.mail) : null,
    // Catalog case events write their deliveries in the event's transaction; workers in this
    // process start at once, others hear the NOTIFY the outbox issues.
    enqueueWebhook: caseWebhookEnqueuer(deps, () => wake.notify('webhook-deliveries')),
    enqueueActions: caseActionEnqueuer(deps, () => wake.notify('connector-calls')),
    openDatabaseSession,
    databaseReachable: () => pingDatabase(deps.db),
    hasEnabledWebhookEndpoint: (orgId, environment) => hasEnabledEndpoint(deps.db, { orgId, environment }),
  };
}
