import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { createAppContext, type AppContext } from './app-context.ts';
import type { Config } from './config.ts';
import { systemClock, type Clock } from './ports/clock.ts';
import { randomIds, type Ids } from './ports/ids.ts';
import type { RateLimitStore } from './ports/rate-limit-store.ts';
import { openDatabase, type DatabaseHandle, type DatabaseTarget } from './storage/database.ts';
import { migrate, type MigrationReport } from './storage/migrate.ts';
import { createRateLimitStore } from './ports/rate-limit-store.ts';
import { insertSettingOnce } from './storage/settings.ts';
import { createMetrics } from './metrics/metrics.ts';
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
}

export function databaseTargetOf(config: Config): DatabaseTarget {
  return config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl } : { kind: 'embedded', dataDir: config.dataDir };
}

/** Opens the database, brings its schema up to date and assembles what every face of the process shares. */
export async function openRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const database = await openDatabase(options.target ?? databaseTargetOf(config));
  try {
    const migrations = await migrate(database.db);
    const clock = options.clock ?? systemClock;
    const secret =
      config.secret ?? (await insertSettingOnce(database.db, 'dossier_secret', randomBytes(32).toString('base64url'), clock.now()));
    const rateLimits = options.rateLimits ?? (await createRateLimitStore(config.redisUrl, options.logger));
    const metrics = createMetrics({ processMetrics: config.metricsToken !== undefined });
    registerCollectors(metrics, { db: database.db, clock, pool: database.poolStats, rateLimits });
    const ctx = createAppContext(
      { db: database.db, clock, ids: options.ids ?? randomIds, logger: options.logger, config },
      secret,
      rateLimits,
      metrics,
    );
    return {
      ctx,
      database,
      migrations,
      async close() {
        await ctx.rateLimits.close();
        await ctx.outbound.close();
        await ctx.extraction.close();
        await database.close();
      },
    };
  } catch (err) {
    await database.close();
    throw err;
  }
}
