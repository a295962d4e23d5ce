import { sql } from 'kysely';
import type { Db } from './schema.ts';
import { MIGRATIONS, type Migration } from './migrations/index.ts';

export interface MigrationReport {
  applied: string[];
  already_applied: string[];
}

/** Any constant shared by every process of a deployment; it keys the advisory lock that serialises migrators. */
const MIGRATION_LOCK_KEY = 7_163_411_019;

/**
 * Applies pending migrations in order. Each runs in its own transaction that holds an advisory
 * lock, so several processes starting at once against one PostgreSQL apply each step exactly once.
 */
export async function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): Promise<MigrationReport> {
  assertOrdered(migrations);

  const report: MigrationReport = { applied: [], already_applied: [] };
  for (const migration of migrations) {
    const applied = await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(trx);
      // Under the lock: concurrent `create table if not exists` can otherwise collide in the catalog.
      await sql`
        create table if not exists schema_migrations (
          migration_id text primary key,
          applied_at timestamptz not null default now()
        )`.execute(trx);
      const done = await trx
        .selectFrom('schema_migrations')
        .select('migration_id')
        .where('migration_id', '=', migration.id)
        .executeTakeFirst();
      if (done) return false;
      await migration.up(trx);
      await trx.insertInto('schema_migrations').values({ migration_id: migration.id }).execute();
      return true;
    });
    (applied ? report.applied : report.already_applied).push(migration.id);
  }
  return report;
}

function assertOrdered(migrations: readonly Migration[]): void {
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i - 1]!.id >= migrations[i]!.id) {
      throw new Error(`migrations out of order: ${migrations[i - 1]!.id} before ${migrations[i]!.id}`);
    }
  }
}
