import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/storage/database.ts';
import { migrate } from '../../src/storage/migrate.ts';
import { MIGRATIONS } from '../../src/storage/migrations/index.ts';
import { createTestApp, describeEachBackend, freshDatabase, type TestApp, type TestTarget } from '../support/harness.ts';

describeEachBackend('migrations', (backend) => {
  let target: TestTarget;
  let handles: DatabaseHandle[] = [];
  beforeAll(async () => {
    target = await freshDatabase(backend, { empty: true });
  });
  afterAll(async () => {
    for (const h of handles) await h.close();
    await target.dispose();
  });

  it('apply once, in order, and are a no-op afterwards — also when several processes start at once', async () => {
    if (backend === 'postgres') {
      handles = await Promise.all([1, 2, 3].map(() => openDatabase(target.target)));
      const reports = await Promise.all(handles.map((h) => migrate(h.db)));
      const applied = reports.flatMap((r) => r.applied).sort();
      expect(applied).toEqual(MIGRATIONS.map((m) => m.id).sort());
    } else {
      // The embedded template is already migrated.
      handles = [await openDatabase(target.target)];
    }
    const again = await migrate(handles[0]!.db);
    expect(again.applied).toEqual([]);
    expect(again.already_applied).toEqual(MIGRATIONS.map((m) => m.id));
  });
});

describeEachBackend('health', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(backend);
  });
  afterAll(() => t.close());

  it('answers /healthz and /readyz, and /readyz 503 when the database is gone', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
    await t.runtime.database.close();
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ status: 'unavailable' });
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});
