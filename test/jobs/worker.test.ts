import { afterAll, beforeAll, expect, it } from 'vitest';
import { idempotencySweep } from '../../src/jobs/idempotency-sweep.ts';
import { Worker, type JobTask } from '../../src/jobs/worker.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, until, type TestApp } from '../support/harness.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';

describeEachBackend('worker', (backend) => {
  let t: TestApp;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');
  beforeAll(async () => {
    t = await createTestApp(backend, { clock });
  });
  afterAll(() => t.close());

  it('runs tasks until idle, wakes on demand, survives a failing batch and stops cleanly', async () => {
    let runs = 0;
    let pending = 3;
    let failures = 0;
    const counting: JobTask = {
      name: 'counting',
      idleMs: 60_000,
      async run() {
        runs++;
        if (pending > 0) return pending--;
        return 0;
      },
    };
    const flaky: JobTask = {
      name: 'flaky',
      idleMs: 10,
      async run() {
        failures++;
        if (failures < 3) throw new Error('transient');
        return 0;
      },
    };
    const worker = new Worker(t.ctx, [counting, flaky]);
    worker.start();
    await until(() => runs === 4 && failures >= 3);
    pending = 2;
    worker.wake('counting');
    await until(() => runs === 7);
    await worker.stop();
  });

  it('stop waits for the batch in progress and starts no further batch', async () => {
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // Always reports work, so a loop that ignored `stop` would run it again at once.
    const busy: JobTask = {
      name: 'busy',
      idleMs: 60_000,
      async run() {
        runs++;
        await gate;
        return 1;
      },
    };
    const worker = new Worker(t.ctx, [busy]);
    worker.start();
    await until(() => runs === 1);
    let stopped = false;
    const stopping = worker.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(stopped).toBe(true);
    expect(runs).toBe(1);
  });

  it('sweeps idempotency records after 24 hours', async () => {
    const ws = await t.workspace();
    await withExampleCaseTypes(t, ws.orgId);
    await newSession(t, ws, 'income_verification');
    const count = async () => (await t.ctx.db.selectFrom('idempotency_records').select('org_id').where('org_id', '=', ws.orgId).execute()).length;
    expect(await count()).toBe(1);
    await idempotencySweep.run(t.ctx);
    expect(await count()).toBe(1);
    clock.advance(24 * 3600_000 + 1);
    await idempotencySweep.run(t.ctx);
    expect(await count()).toBe(0);
  });
});
