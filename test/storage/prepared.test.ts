import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, PREPARED, type DatabaseHandle } from '../../src/storage/database.ts';
import { describeEachBackend, freshDatabase, itOnPostgres, type TestTarget } from '../support/harness.ts';

describeEachBackend('prepared statements', (backend) => {
  let fresh: TestTarget;
  let database: DatabaseHandle;
  beforeAll(async () => {
    fresh = await freshDatabase(backend);
    // One connection, so every statement below runs where pg_prepared_statements is read.
    database = await openDatabase(fresh.target.kind === 'postgres' ? { ...fresh.target, poolSize: 1 } : fresh.target);
  });
  afterAll(async () => {
    await database?.close();
    await fresh?.dispose();
  });

  it('answers marked texts like any other (PGlite runs them unnamed)', async () => {
    const marked = await sql<{ n: number }>`${sql.raw(PREPARED)}select ${41}::int + 1 as n`.execute(database.db);
    expect(marked.rows).toEqual([{ n: 42 }]);
  });

  itOnPostgres(backend, 'runs marked texts as one named statement per connection, and leaves the rest unnamed', async () => {
    const prepared = () => sql<{ n: number }>`${sql.raw(PREPARED)}select ${41}::int + 1 as n`.execute(database.db);
    expect((await prepared()).rows).toEqual([{ n: 42 }]);
    expect((await prepared()).rows).toEqual([{ n: 42 }]);
    await sql`select ${1}::int as plain`.execute(database.db);
    const names = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(database.db);
    expect(names.rows).toHaveLength(1);
    expect(names.rows[0]!.name).toMatch(/^dossier_/);
    expect(names.rows[0]!.statement).toContain('select $1::int + 1 as n');
  });
});
