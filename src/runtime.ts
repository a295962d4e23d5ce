import type { Logger } from 'pino';
import { createAppContext } from './app-context.ts';
import type { AppContext } from './domain/deps.ts';
import { ConfigError, type Config } from './config.ts';
import { systemClock, type Clock } from './ports/clock.ts';
import { randomIds, type Ids } from './ports/ids.ts';
import type { RateLimitStore } from './ports/rate-limit-store.ts';
import type { ExtractionPool } from './domain/documents/extraction-port.ts';
import { openDatabase, type DatabaseHandle, type DatabaseTarget } from './storage/database.ts';
import { migrate, type MigrationReport } from './storage/migrate.ts';
import { createRateLimitStore } from './ports/rate-limit-store.ts';
import { processCaseRevisions, redisCaseRevisions, type CaseRevisions } from './ports/case-revisions.ts';
import { MissingSecretError, resolveDeploymentSecret } from './deployment-secret.ts';
import { checkDataDirMode } from './storage/data-dir.ts';
import { resealLegacyEndpointSecrets } from './domain/webhooks/endpoints.ts';
import { createMetrics } from './metrics/metrics.ts';
import { closeOutboundClients } from './net/outbound-clients.ts';
import { registerCollectors } from './metrics/collectors.ts';

export interface Runtime {
  ctx: AppContext;
  database: DatabaseHandle;
  /** What start-up migration did: `dossier migrate` reports it. */
  migrations: MigrationReport;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  logger: Logger;
  clock?: Clock;
  ids?: Ids;
  target?: DatabaseTarget;
  rateLimits?: RateLimitStore;
  /** An extraction pool the caller owns: the runtime uses it and leaves it open when it closes. */
  extraction?: ExtractionPool;
}

export function databaseTargetOf(config: Config): DatabaseTarget {
  return config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl } : { kind: 'embedded', dataDir: config.dataDir };
}

/** Opens the database, brings its schema up to date and assembles what every face of the process shares. */
export async function openRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const target = options.target ?? databaseTargetOf(config);
  // Refused before the database is touched: PostgreSQL needs DOSSIER_SECRET (issue 9 §4).
  if (target.kind === 'postgres' && !config.secret) throw new MissingSecretError(false);
  if (target.kind === 'embedded') {
    const checked = checkDataDirMode(target.dataDir);
    if (!checked.ok) throw new ConfigError(checked.message);
    if (checked.warning) options.logger.warn(checked.warning);
  }
  const database = await openDatabase(target);
  let caseRevisions: CaseRevisions | null = null;
  try {
    // The embedded database has one process (its lock file); on PostgreSQL only a shared mirror will do.
    caseRevisions = database.kind === 'embedded' ? processCaseRevisions() : config.redisUrl ? await redisCaseRevisions(config.redisUrl, options.logger) : null;
    if (caseRevisions) database.mirrorCaseRevisions(caseRevisions.record);
    const migrations = await migrate(database.db);
    const clock = options.clock ?? systemClock;
    const secret = await resolveDeploymentSecret(database.db, target, config.secret);
    const resealed = await resealLegacyEndpointSecrets({ db: database.db, secret });
    if (resealed > 0) options.logger.info({ endpoints: resealed }, 'webhook signing secrets re-sealed, bound to their endpoint');
    const rateLimits = options.rateLimits ?? (await createRateLimitStore(config.redisUrl, options.logger));
    const metrics = createMetrics({ processMetrics: config.metricsToken !== undefined });
    registerCollectors(metrics, { db: database.db, clock, pool: database.poolStats, rateLimits });
    const ctx = createAppContext(
      { db: database.db, clock, ids: options.ids ?? randomIds, logger: options.logger, config },
      secret,
      rateLimits,
      metrics,
      { caseRevisions, openDatabaseSession: () => database.openSession(), ...(options.extraction ? { extraction: options.extraction } : {}) },
    );
    return {
      ctx,
      database,
      migrations,
      async close() {
        await ctx.rateLimits.close();
        await ctx.caseRevisions?.close();
        await closeOutboundClients(ctx.outbound);
        if (!options.extraction) await ctx.extraction.close();
        ctx.blobs.close();
        ctx.mailer?.close();
        await database.close();
      },
    };
  } catch (err) {
    await caseRevisions?.close();
    await database.close();
    throw err;
  }
}
