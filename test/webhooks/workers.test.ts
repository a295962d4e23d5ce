import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import { freshDatabase, silentLogger, until, type TestTarget } from '../support/harness.ts';
import { postgresUrlForSchema, startProcess, type RunningServer } from '../support/processes.ts';
import { createOrg } from '../../src/domain/orgs/orgs.ts';
import { PRIVATE_NETWORK_ENV, addEndpoint, caseEvent, enqueue, insertCase, startDeliveries, startReceiver, type Receiver } from './fixtures.ts';

const postgres = inject('postgresUrl');
const SECRET = 'test-secret-test-secret-test-secret-0123';

async function countByStatus(runtime: Runtime, orgId: string): Promise<Record<string, number>> {
  const rows = await runtime.ctx.db
    .selectFrom('webhook_deliveries')
    .select(['status', runtime.ctx.db.fn.countAll<string>().as('n')])
    .where('org_id', '=', orgId)
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

describe.runIf(postgres)('delivery workers sharing one PostgreSQL', () => {
  let db: TestTarget;
  const runtimes: Runtime[] = [];
  let receiver: Receiver;

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    const config = loadConfig({ ...PRIVATE_NETWORK_ENV, DOSSIER_SECRET: SECRET, LOG_LEVEL: 'silent', WEBHOOK_RETRY_DELAYS: '0,0,0,0' });
    for (let i = 0; i < 2; i++) runtimes.push(await openRuntime(config, { logger: silentLogger, clock: systemClock, target: db.target }));
  });
  afterAll(async () => {
    await receiver?.close();
    for (const r of runtimes) await r.close();
    await db.dispose();
  });

  it('two workers never send the same attempt twice', async () => {
    const [a, b] = runtimes as [Runtime, Runtime];
    // Every delivery's first attempt fails and its second succeeds: exactly two requests each.
    const seen = new Map<string, number>();
    receiver = await startReceiver((req) => {
      const id = String(req.headers['webhook-id']);
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      return { status: n === 1 ? 500 : 200 };
    });
    const org = await createOrg(a.ctx, { name: 'Two workers' });
    for (let i = 0; i < 3; i++) await addEndpoint(a.ctx, org.org_id, receiver.url, ['*']);
    const caseId = await insertCase(a.ctx, org.org_id);
    const workers = [startDeliveries(a.ctx, 'postgres', { maxInFlight: 16 }), startDeliveries(b.ctx, 'postgres', { maxInFlight: 16 })];
    try {
      const ids: string[] = [];
      for (let i = 0; i < 100; i++) ids.push(...(await enqueue(a.ctx, caseEvent(org.org_id, caseId, { eventType: 'v1.intake.submitted' }))));
      expect(ids).toHaveLength(300);
      await until(async () => (await countByStatus(a, org.org_id)).delivered === 300, 30_000);
      expect(receiver.requests).toHaveLength(600);
      expect([...seen.values()].every((n) => n === 2)).toBe(true);
      expect(new Set(seen.keys())).toEqual(new Set(ids));
      const attempts = await a.ctx.db.selectFrom('webhook_delivery_attempts').select(['delivery_id', 'attempt_number']).execute();
      expect(attempts).toHaveLength(600);
    } finally {
      for (const w of workers) await w.stop();
    }
  });
});

/**
 * A PostgreSQL database with a runtime to queue deliveries from, the receiver a test starts, and
 * the worker processes it starts: all stopped after the tests of the describe that calls it.
 */
function fanOutRig() {
  const rig = { db: undefined as unknown as TestTarget, runtime: undefined as unknown as Runtime, receiver: undefined as Receiver | undefined, processes: [] as RunningServer[] };
  beforeAll(async () => {
    rig.db = await freshDatabase('postgres');
    const config = loadConfig({ ...PRIVATE_NETWORK_ENV, DOSSIER_SECRET: SECRET, LOG_LEVEL: 'silent' });
    rig.runtime = await openRuntime(config, { logger: silentLogger, clock: systemClock, target: rig.db.target });
  });
  afterAll(async () => {
    for (const p of rig.processes) await p.stop('SIGKILL');
    await rig.receiver?.close();
    await rig.runtime.close();
    await rig.db.dispose();
  });
  return rig as { db: TestTarget; runtime: Runtime; receiver: Receiver; processes: RunningServer[] };
}

describe.runIf(postgres)('a worker killed in the middle of a fan-out', () => {
  const rig = fanOutRig();

  it('loses nothing: every delivery reaches the receiver and ends delivered', async () => {
    rig.receiver = await startReceiver(() => ({ status: 200, delayMs: 15 }));
    const org = await createOrg(rig.runtime.ctx, { name: 'Fan-out' });
    for (let i = 0; i < 4; i++) await addEndpoint(rig.runtime.ctx, org.org_id, rig.receiver.url, ['*']);
    const caseId = await insertCase(rig.runtime.ctx, org.org_id);
    for (let i = 0; i < 250; i++) await enqueue(rig.runtime.ctx, caseEvent(org.org_id, caseId, { eventType: 'v1.intake.submitted' }));
    expect((await countByStatus(rig.runtime, org.org_id)).pending).toBe(1000);

    if (rig.db.target.kind !== 'postgres') throw new Error('unreachable');
    const env = {
      DATABASE_URL: postgresUrlForSchema(rig.db.target.url, rig.db.target.schema!),
      DOSSIER_SECRET: SECRET,
      ...PRIVATE_NETWORK_ENV,
      WEBHOOK_TIMEOUT_MS: '1000',
    };
    const first = await startProcess(['worker'], env);
    rig.processes.push(first);
    await until(() => rig.receiver.requests.length >= 150, 30_000);
    expect(await first.stop('SIGKILL')).toBe(null);
    const sentBeforeKill = rig.receiver.requests.length;
    expect(sentBeforeKill).toBeLessThan(1000);

    const second = await startProcess(['worker'], env);
    rig.processes.push(second);
    await until(async () => (await countByStatus(rig.runtime, org.org_id)).delivered === 1000, 60_000);
    const ids = await rig.runtime.ctx.db.selectFrom('webhook_deliveries').select('delivery_id').where('org_id', '=', org.org_id).execute();
    const received = new Set(rig.receiver.requests.map((r) => String(r.headers['webhook-id'])));
    expect(ids.every((d) => received.has(d.delivery_id))).toBe(true);
    await second.stop('SIGTERM');
  }, 120_000);
});

describe.runIf(postgres)('one of several worker processes killed in the middle of a fan-out', () => {
  const rig = fanOutRig();

  /** Whether a process still exists (signal 0 only checks). */
  function alive(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  it('loses nothing, and the others take over its deliveries at once, not when a lease would run out', async () => {
    rig.receiver = await startReceiver(() => ({ status: 200, delayMs: 15 }));
    const org = await createOrg(rig.runtime.ctx, { name: 'Fan-out, three workers' });
    for (let i = 0; i < 4; i++) await addEndpoint(rig.runtime.ctx, org.org_id, `${rig.receiver.url}/e${i}`, ['*']);
    const caseId = await insertCase(rig.runtime.ctx, org.org_id);
    for (let i = 0; i < 300; i++) await enqueue(rig.runtime.ctx, caseEvent(org.org_id, caseId, { eventType: 'v1.intake.submitted' }));
    expect((await countByStatus(rig.runtime, org.org_id)).pending).toBe(1200);

    if (rig.db.target.kind !== 'postgres') throw new Error('unreachable');
    const env = {
      DATABASE_URL: postgresUrlForSchema(rig.db.target.url, rig.db.target.schema!),
      DOSSIER_SECRET: SECRET,
      ...PRIVATE_NETWORK_ENV,
      // A row lease would last 65 s: the deliveries of the killed worker could not be delivered
      // within the 30 s below unless its session locks ended with it.
      WEBHOOK_TIMEOUT_MS: '60000',
    };
    const supervisor = await startProcess(['worker', '--concurrency', '3'], env);
    rig.processes.push(supervisor);
    const workers = supervisor.banner.workers as number[];
    expect(supervisor.banner).toMatchObject({ status: 'running', processes: 3 });
    expect(workers).toHaveLength(3);
    await until(() => rig.receiver.requests.length >= 200, 30_000);
    // Killed mid-batch: with 200 of 1,200 received, each worker has deliveries in hand.
    const victim = workers[1]!;
    process.kill(victim, 'SIGKILL');
    const sentBeforeKill = rig.receiver.requests.length;
    expect(sentBeforeKill).toBeLessThan(1200);

    await until(async () => (await countByStatus(rig.runtime, org.org_id)).delivered === 1200, 30_000);
    const ids = await rig.runtime.ctx.db.selectFrom('webhook_deliveries').select('delivery_id').where('org_id', '=', org.org_id).execute();
    const received = new Set(rig.receiver.requests.map((r) => String(r.headers['webhook-id'])));
    expect(ids.every((d) => received.has(d.delivery_id))).toBe(true);
    // Each attempt recorded once: a delivery sent twice (the killed worker's, sent again) has one attempt row.
    const attempts = await rig.runtime.ctx.db.selectFrom('webhook_delivery_attempts').select('delivery_id').execute();
    expect(new Set(attempts.map((a) => a.delivery_id)).size).toBe(1200);
    expect(attempts).toHaveLength(1200);

    // The supervisor noticed and started another in its place.
    await until(() => supervisor.output().stderr.includes('worker process died: starting another'), 10_000);
    // The supervisor stops every worker it started on SIGTERM.
    expect(await supervisor.stop('SIGTERM')).toBe(0);
    for (const pid of workers) expect(alive(pid)).toBe(false);
  }, 120_000);
});
