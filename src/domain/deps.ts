import type { Mailer } from '../ports/mailer.ts';
import type { Logger } from 'pino';
import type { Config, Environment } from '../config.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { OutboundClients } from '../net/outbound-clients.ts';
import type { Clock } from '../ports/clock.ts';
import type { Ids } from '../ports/ids.ts';
import type { KeyLookup } from '../ports/key-lookup.ts';
import type { RateLimitStore } from '../ports/rate-limit-store.ts';
import type { CaseRevisions } from '../ports/case-revisions.ts';
import type { WakeUps } from '../ports/wake.ts';
import type { DocumentStore } from '../storage/document-store.ts';
import type { Db } from '../storage/schema.ts';
import type { DatabaseSession } from '../storage/database.ts';
import type { ActionEnqueuer, WebhookEnqueuer } from '../ports/enqueuers.ts';
import type { OpenApiReader } from './connectors/openapi-digest.ts';
import type { ExtractionPool } from './documents/extraction-port.ts';

/**
 * What domain operations receive as their first argument. Declared here, in the domain, so the
 * domain never imports the composition root (`src/app-context.ts` builds these and imports the
 * domain; the other direction would be a cycle).
 */

/** What every domain function may use. Passed in, never imported as a singleton. */
export interface Deps {
  db: Db;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  config: Config;
}

/** Everything a running process shares between requests and jobs. */
export interface AppContext extends Deps {
  /** Signs links and tokens: DOSSIER_SECRET, or the one generated into the database at first start. */
  secret: string;
  rateLimits: RateLimitStore;
  /**
   * Where case revisions are mirrored for readers holding rendered text (issue 29): in process on
   * the embedded database, Redis with REDIS_URL, none otherwise (reads check the database).
   */
  caseRevisions: CaseRevisions | null;
  /** This process's Prometheus series (served at /metrics when METRICS_TOKEN is set). */
  metrics: Metrics;
  keys: KeyLookup;
  /** Writes webhook outbox rows for a catalog case event, in the event's transaction. */
  enqueueWebhook: WebhookEnqueuer;
  /** Writes the connector calls of the action nodes a case event triggers, in the event's transaction. */
  enqueueActions: ActionEnqueuer;
  /** The SSRF-safe outbound clients, one per kind of traffic; closed with the runtime. */
  outbound: OutboundClients;
  /** Wakes this process's workers when work is queued (webhook deliveries, connector calls). */
  wake: WakeUps;
  /** Where document bytes and page images live: the database, or the bucket of DOCUMENT_STORE. */
  blobs: DocumentStore;
  /** Document page extraction in child processes, started on first use (jobs/extraction-pool.ts). */
  extraction: ExtractionPool;
  /** Reads OpenAPI documents for the connector import in worker threads with a deadline (jobs/openapi-reader.ts). */
  openApi: OpenApiReader;
  /** Dossier's own mail (SMTP_URL); null when the deployment has none and links are shown instead. */
  mailer: Mailer | null;
  /**
   * A database connection of its own, whose session outlives statements (the webhook delivery
   * lease's advisory locks); null on the embedded database, whose one connection is shared.
   */
  openDatabaseSession: () => DatabaseSession | null;
  /** Whether the database answers (readiness). */
  databaseReachable: () => Promise<boolean>;
  /** Whether the workspace has an enabled webhook endpoint (SELF_SERVE_WEBHOOKS=false refuses sessions then). */
  hasEnabledWebhookEndpoint: (orgId: string, environment: Environment) => Promise<boolean>;
}
