import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/storage/database.ts';
import type { Executor } from '../../src/storage/schema.ts';
import { afterCommit, beforeCommit, inTransaction, inTransactionResult } from '../../src/storage/unit-of-work.ts';
import { describeEachBackend, freshDatabase, type TestTarget } from '../support/harness.ts';

const failure = { ok: false as const, code: 'invalid_request' };

async function write(db: Executor, id: string): Promise<void> {
  await sql`insert into uow_probe (id) values (${id})`.execute(db);
}

describeEachBackend('nested units of work', (backend) => {
  let target: TestTarget;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    target = await freshDatabase(backend);
    handle = await openDatabase(target.target);
    await sql`create table uow_probe (id text primary key)`.execute(handle.db);
  });
  afterAll(async () => {
    await handle.close();
    await target.dispose();
  });

  async function written(prefix: string): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`select id from uow_probe where id like ${`${prefix}%`} order by id`.execute(handle.db);
    return rows.map((r) => r.id);
  }

  it('regression: a nested inTransactionResult that fails leaves no inner writes while the outer writes commit', async () => {
    const outcome = await inTransactionResult(handle.db, async (tx) => {
      await write(tx, 'a-outer-1');
      const inner = await inTransactionResult(tx, async (itx) => {
        await write(itx, 'a-inner');
        return failure;
      });
      expect(inner).toEqual(failure);
      await write(tx, 'a-outer-2');
      return { ok: true as const, value: 'done' };
    });
    expect(outcome).toEqual({ ok: true, value: 'done' });
    expect(await written('a-')).toEqual(['a-outer-1', 'a-outer-2']);
  });

  it('keeps the writes of a nested unit that succeeds, and undoes only the failed one of two', async () => {
    await inTransaction(handle.db, async (tx) => {
      await inTransactionResult(tx, async (itx) => {
        await write(itx, 'b-kept');
        return { ok: true as const, value: null };
      });
      await inTransactionResult(tx, async (itx) => {
        await write(itx, 'b-undone');
        return failure;
      });
    });
    expect(await written('b-')).toEqual(['b-kept']);
  });

  it('undoes a failed unit nested two deep without touching the level between', async () => {
    await inTransaction(handle.db, async (tx) => {
      const middle = await inTransactionResult(tx, async (mtx) => {
        await write(mtx, 'c-middle');
        const deep = await inTransactionResult(mtx, async (dtx) => {
          await write(dtx, 'c-deep');
          return failure;
        });
        expect(deep.ok).toBe(false);
        return { ok: true as const, value: null };
      });
      expect(middle.ok).toBe(true);
    });
    expect(await written('c-')).toEqual(['c-middle']);
  });

  it('rolls a nested unit that throws back to its savepoint, so the outer unit can carry on after a failed statement', async () => {
    await inTransaction(handle.db, async (tx) => {
      await write(tx, 'd-outer');
      // A duplicate key aborts a PostgreSQL transaction; the rollback to the savepoint revives it.
      await expect(
        inTransactionResult(tx, async (itx) => {
          await write(itx, 'd-inner');
          await write(itx, 'd-outer');
          return { ok: true as const, value: null };
        }),
      ).rejects.toMatchObject({ code: '23505' });
      await write(tx, 'd-after');
    });
    expect(await written('d-')).toEqual(['d-after', 'd-outer']);
  });

  it('drops the before-commit work a failed nested unit registered and keeps what a successful one did', async () => {
    const ran: string[] = [];
    await inTransaction(handle.db, async (tx) => {
      await inTransactionResult(tx, async (itx) => {
        beforeCommit(itx, 'kept', async () => void ran.push('kept'));
        return { ok: true as const, value: null };
      });
      await inTransactionResult(tx, async (itx) => {
        beforeCommit(itx, 'dropped', async () => void ran.push('dropped'));
        return failure;
      });
    });
    expect(ran).toEqual(['kept']);
  });

  it('a failure at the top level still rolls the whole transaction back', async () => {
    const outcome = await inTransactionResult(handle.db, async (tx) => {
      await write(tx, 'e-outer');
      return failure;
    });
    expect(outcome).toEqual(failure);
    expect(await written('e-')).toEqual([]);
  });

  it('runs afterCommit work once the unit commits, and none of a unit or nested unit that rolled back', async () => {
    const ran: string[] = [];
    await inTransaction(handle.db, async (tx) => {
      afterCommit(tx, async () => void ran.push('committed'));
      expect(ran).toEqual([]);
      await inTransactionResult(tx, async (itx) => {
        afterCommit(itx, async () => void ran.push('nested, rolled back'));
        return failure;
      });
      await inTransactionResult(tx, async (itx) => {
        afterCommit(itx, async () => void ran.push('nested, kept'));
        return { ok: true as const, value: 1 };
      });
    });
    expect(ran).toEqual(['committed', 'nested, kept']);
    await inTransactionResult(handle.db, async (tx) => {
      afterCommit(tx, async () => void ran.push('rolled back'));
      return failure;
    });
    await expect(
      inTransaction(handle.db, async (tx) => {
        afterCommit(tx, async () => void ran.push('thrown'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(ran).toEqual(['committed', 'nested, kept']);
  });
});
