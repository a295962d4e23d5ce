import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createOrg } from '../../src/domain/orgs/orgs.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { openRuntime, type Runtime } from '../../src/runtime.ts';
import type { DatabaseSession } from '../../src/storage/database.ts';
import type { Executor } from '../../src/storage/schema.ts';
import {
  claimDueDeliveriesUnscoped,
  DELIVERY_LOCK_CLASS,
  recordAttemptOutcomesUnscoped,
  releaseSessionLocksUnscoped,
  SESSION,
  type DeliveryLease,
} from '../../src/storage/webhooks/deliveries.ts';
import { claimCapsOf, nextClaimOffer, type ClaimOffer } from '../../src/jobs/webhook-delivery/claim-offers.ts';
import { freshDatabase, silentLogger, until, type TestTarget } from '../support/harness.ts';
import { PRIVATE_NETWORK_ENV, addEndpoint, caseEvent, enqueue, insertCase, startDeliveries, startReceiver, type Receiver } from './fixtures.ts';

const postgres = inject('postgresUrl');
const SECRET = 'test-secret-test-secret-test-secret-0123';

/**
 * The webhook delivery lease on PostgreSQL (issue 29): a session-level advisory lock taken by the
 * claim, released after the outcome on the session that took it, and by PostgreSQL when that
 * session's connection ends. Each test would fail if the lease broke: a lock not taken (a second
 * session claims the same delivery), a lock not released with the connection (the delivery stays
 * unclaimable), a session re-taking its own (re-entrant) locks, or overlapping claims exceeding an
 * endpoint's limit.
 */
describe.runIf(postgres)('session leases of webhook deliveries', () => {
  let db: TestTarget;
  let runtime: Runtime;
  const sessions: DatabaseSession[] = [];

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    const config = loadConfig({ ...PRIVATE_NETWORK_ENV, DOSSIER_SECRET: SECRET, LOG_LEVEL: 'silent', WEBHOOK_RETRY_DELAYS: '0,0,0,0' });
    runtime = await openRuntime(config, { logger: silentLogger, clock: systemClock, target: db.target });
  });
  afterAll(async () => {
    for (const s of sessions) await s.close();
    await runtime?.close();
    await db?.dispose();
  });

  function session(): DatabaseSession {
    const opened = runtime.database.openSession();
    if (!opened) throw new Error('PostgreSQL opens sessions');
    sessions.push(opened);
    return opened;
  }

  function claim(on: Executor, lease: DeliveryLease = 'session', workerId = 'w') {
    const now = new Date(Date.now() + 1_000);
    return claimDueDeliveriesUnscoped(on, { workerId, now, leaseUntil: new Date(now.getTime() + 60_000), limit: 10, perEndpointLimit: 8, inFlight: new Map(), lease });
  }

  async function oneDelivery(name: string): Promise<string> {
    const org = await createOrg(runtime.ctx, { name });
    await addEndpoint(runtime.ctx, org.org_id, 'http://127.0.0.1:9/hooks');
    const [id] = await enqueue(runtime.ctx, caseEvent(org.org_id, `case_${name}`));
    return id!;
  }

  async function backendPid(s: DatabaseSession): Promise<number> {
    return (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(s.db)).rows[0]!.pid;
  }

  it('is taken by one session only, is not taken twice by its own, and keeps row claims (listen streams) out', async () => {
    const id = await oneDelivery('exclusive');
    const [a, b] = [session(), session()];
    const claimed = await claim(a.db);
    expect(claimed.map((d) => d.delivery_id)).toContain(id);
    // Nothing was written on the row.
    const row = await runtime.ctx.db.selectFrom('webhook_deliveries').select(['locked_by', 'locked_until']).where('delivery_id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ locked_by: null, locked_until: null });
    expect((await claim(b.db)).map((d) => d.delivery_id)).not.toContain(id);
    // Session locks are re-entrant: the claim must skip what its own session holds.
    expect((await claim(a.db)).map((d) => d.delivery_id)).not.toContain(id);
    // A row lease (a `dossier listen` stream's claim, on the pool) skips it too.
    expect((await claim(runtime.ctx.db, 'row', 'listen:x')).map((d) => d.delivery_id)).not.toContain(id);
    await releaseSessionLocksUnscoped(a.db, claimed.map((d) => d.delivery_id));
    expect((await claim(b.db)).map((d) => d.delivery_id)).toContain(id);
  });

  it('is released by PostgreSQL when its connection ends: the delivery is claimable again at once', async () => {
    const id = await oneDelivery('connection-lost');
    const [a, b] = [session(), session()];
    expect((await claim(a.db)).map((d) => d.delivery_id)).toContain(id);
    expect((await claim(b.db)).map((d) => d.delivery_id)).not.toContain(id);
    const generation = a.generation;
    const pid = await backendPid(a);
    await sql`select pg_terminate_backend(${pid})`.execute(runtime.ctx.db);
    await until(async () => (await claim(b.db)).some((d) => d.delivery_id === id), 10_000);
    // The session that lost its connection knows its locks are gone: its generation moves, so the
    // worker drops what it had claimed there instead of sending it beside the new holder.
    await sql`select 1`.execute(a.db).catch(() => undefined);
    await sql`select 1`.execute(a.db);
    expect(a.generation).toBeGreaterThan(generation);
  });

  it('is released by the next claim of its session, in the same statement, even one that claims nothing', async () => {
    const id = await oneDelivery('carried');
    const a = session();
    const [claimed] = (await claim(a.db)).filter((d) => d.delivery_id === id);
    expect(claimed).toBeDefined();
    const locks = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from pg_locks where locktype = 'advisory' and classid = ${sql.raw(String(DELIVERY_LOCK_CLASS))}
            and objsubid = 2 and objid = (hashtext(${id})::bigint & 4294967295)::text::oid`.execute(runtime.ctx.db)
        ).rows[0]!.n,
      );
    expect(await locks()).toBe(1);
    const now = new Date();
    const record = {
      delivery_id: id, attempt_number: 1, attempted_at: now, status_code: 200, duration_ms: 3, error: null,
      response_excerpt: 'ok', status: 'delivered' as const, attempt_count: 1, next_attempt_at: null,
    };
    expect(await recordAttemptOutcomesUnscoped(runtime.ctx.db, SESSION, [record], now, { relaxed: true })).toEqual([id]);
    expect(await locks()).toBe(1);
    const later = new Date(Date.now() + 1_000);
    const none = await claimDueDeliveriesUnscoped(a.db, {
      workerId: 'w', now: later, leaseUntil: later, limit: 10, perEndpointLimit: 8, inFlight: new Map(), lease: 'session', release: [id], endpointId: 'ep_none',
    });
    expect(none).toEqual([]);
    expect(await locks()).toBe(0);
  });

  it('stays held after its outcome is recorded, until it is released: a due retry is not claimed before', async () => {
    const id = await oneDelivery('retry');
    const [a, b] = [session(), session()];
    const [claimed] = (await claim(a.db)).filter((d) => d.delivery_id === id);
    expect(claimed).toBeDefined();
    const now = new Date();
    const record = {
      delivery_id: id, attempt_number: claimed!.total_attempts + 1, attempted_at: now, status_code: 500, duration_ms: 3, error: 'HTTP 500',
      response_excerpt: '', status: 'retry_scheduled' as const, attempt_count: 1, next_attempt_at: now,
    };
    // Recorded on the pool (any connection); the lock is still the claiming session's.
    expect(await recordAttemptOutcomesUnscoped(runtime.ctx.db, SESSION, [record], now, { relaxed: true })).toEqual([id]);
    expect((await claim(b.db)).map((d) => d.delivery_id)).not.toContain(id);
    // The same attempt cannot be recorded twice.
    expect(await recordAttemptOutcomesUnscoped(runtime.ctx.db, SESSION, [record], now, { relaxed: true })).toEqual([]);
    await releaseSessionLocksUnscoped(a.db, [id]);
    const retried = (await claim(b.db)).find((d) => d.delivery_id === id);
    expect(retried?.total_attempts).toBe(1);
  });
});

describe('offers of overlapping claims', () => {
  /** Endpoint → in hand, after every claim that has returned took all it was offered. */
  function worstCase(rounds: number, seed: number): { most: number; reached: boolean } {
    const LIMIT = 5;
    const endpoints = ['ep_a', 'ep_b', 'ep_c'];
    const inHand = new Map<string, number>([['ep_b', 2]]);
    const running: ClaimOffer[] = [];
    let most = 0;
    let reached = false;
    let x = seed;
    const random = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let i = 0; i < rounds; i++) {
      const r = random();
      if (r < 0.45 && running.length < 3) {
        running.push(nextClaimOffer({ room: 64, perEndpointLimit: LIMIT, inHand, running, shared: true, minimum: 8 }));
      } else if (r < 0.85 && running.length > 0) {
        // A claim returns, with everything it was offered (the worst case).
        const offer = running.splice(Math.floor(random() * running.length), 1)[0]!;
        for (const e of endpoints) inHand.set(e, (inHand.get(e) ?? 0) + (offer.caps.get(e) ?? offer.defaultCap));
      } else {
        // An attempt finishes somewhere.
        const e = endpoints[Math.floor(random() * endpoints.length)]!;
        if ((inHand.get(e) ?? 0) > 0) inHand.set(e, inHand.get(e)! - 1);
      }
      for (const e of endpoints) {
        const committed = (inHand.get(e) ?? 0) + running.reduce((n, o) => n + (o.caps.get(e) ?? o.defaultCap), 0);
        most = Math.max(most, committed);
        if (committed === LIMIT) reached = true;
      }
    }
    return { most, reached };
  }

  it('never exceed an endpoint\'s limit, whatever overlaps and in whatever order claims return', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const { most, reached } = worstCase(400, seed);
      expect(most).toBeLessThanOrEqual(5);
      expect(reached).toBe(true);
    }
  });

  it('leave something for a second claim: each is offered half of what is free', () => {
    const first = nextClaimOffer({ room: 64, perEndpointLimit: 8, inHand: new Map([['ep_a', 3]]), running: [], shared: true, minimum: 8 });
    expect(first).toEqual({ limit: 32, defaultCap: 4, caps: new Map([['ep_a', 3]]) });
    const second = nextClaimOffer({ room: 32, perEndpointLimit: 8, inHand: new Map([['ep_a', 3]]), running: [first], shared: true, minimum: 8 });
    expect(second).toEqual({ limit: 16, defaultCap: 2, caps: new Map([['ep_a', 1]]) });
    expect(claimCapsOf(second)).toEqual({ perEndpointLimit: 2, inFlight: new Map([['ep_a', 1]]) });
  });
});

describe.runIf(postgres)('overlapping claims of one worker', () => {
  let db: TestTarget;
  let runtime: Runtime;
  let receiver: Receiver;

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    const config = loadConfig({ ...PRIVATE_NETWORK_ENV, DOSSIER_SECRET: SECRET, LOG_LEVEL: 'silent' });
    runtime = await openRuntime(config, { logger: silentLogger, clock: systemClock, target: db.target });
  });
  afterAll(async () => {
    await receiver?.close();
    await runtime?.close();
    await db?.dispose();
  });

  it('claimed back to back on two sessions, before the first is counted in hand, stay within the limit', async () => {
    const LIMIT = 4;
    const org = await createOrg(runtime.ctx, { name: 'Back to back' });
    const endpoint = await addEndpoint(runtime.ctx, org.org_id, 'http://127.0.0.1:9/hooks');
    const caseId = await insertCase(runtime.ctx, org.org_id);
    for (let i = 0; i < 20; i++) await enqueue(runtime.ctx, caseEvent(org.org_id, caseId, { eventType: 'v1.intake.submitted' }));
    const [a, b] = [runtime.database.openSession()!, runtime.database.openSession()!];
    try {
      const inHand = new Map([[endpoint.endpoint_id, 1]]);
      const now = new Date(Date.now() + 1_000);
      const claimWith = (on: Executor, offer: ClaimOffer) =>
        claimDueDeliveriesUnscoped(on, { workerId: 'w', now, leaseUntil: now, limit: offer.limit, lease: 'session', endpointId: endpoint.endpoint_id, ...claimCapsOf(offer) });
      const first = nextClaimOffer({ room: 64, perEndpointLimit: LIMIT, inHand, running: [], shared: true, minimum: 8 });
      const second = nextClaimOffer({ room: 64 - first.limit, perEndpointLimit: LIMIT, inHand, running: [first], shared: true, minimum: 8 });
      // The first has committed and holds its locks; the worker has not counted its rows yet.
      const fromFirst = await claimWith(a.db, first);
      const fromSecond = await claimWith(b.db, second);
      expect(new Set([...fromFirst, ...fromSecond].map((d) => d.delivery_id)).size).toBe(fromFirst.length + fromSecond.length);
      expect(1 + fromFirst.length + fromSecond.length).toBe(LIMIT);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('never have more in flight to one endpoint than its limit', async () => {
    const LIMIT = 3;
    // Every answer takes 40 ms, so each endpoint's requests pile up against the limit while two
    // claims (two sessions) keep running side by side.
    receiver = await startReceiver(() => ({ status: 200, delayMs: 40 }));
    const org = await createOrg(runtime.ctx, { name: 'Overlap' });
    for (let i = 0; i < 3; i++) await addEndpoint(runtime.ctx, org.org_id, `${receiver.url}/e${i}`, ['*']);
    const caseId = await insertCase(runtime.ctx, org.org_id);
    for (let i = 0; i < 40; i++) await enqueue(runtime.ctx, caseEvent(org.org_id, caseId, { eventType: 'v1.intake.submitted' }));
    const worker = startDeliveries(runtime.ctx, 'postgres', { maxInFlight: 32, perEndpointInFlight: LIMIT, claimLanes: 2 });
    try {
      await until(() => receiver.requests.length >= 120, 30_000);
    } finally {
      await worker.stop();
    }
    // Each request is in flight from its arrival until its answer 40 ms later; the next one to the
    // same endpoint can only arrive after an answer freed a slot.
    const byEndpoint = new Map<string, number[]>();
    for (const r of receiver.requests) byEndpoint.set(r.url, [...(byEndpoint.get(r.url) ?? []), r.at]);
    expect(byEndpoint.size).toBe(3);
    for (const [, arrivals] of byEndpoint) {
      const most = Math.max(...arrivals.map((at) => arrivals.filter((other) => other <= at && other + 40 > at).length));
      expect(most).toBeLessThanOrEqual(LIMIT);
      // The limit is reached, so the test can tell a limit that holds from one never tried.
      expect(most).toBe(LIMIT);
    }
    const left = await runtime.ctx.db.selectFrom('webhook_deliveries').select('status').where('org_id', '=', org.org_id).where('status', '<>', 'delivered').execute();
    expect(left).toEqual([]);
  }, 60_000);
});

describe.runIf(postgres)('a delivery whose outcome cannot be written', () => {
  let db: TestTarget;
  let runtime: Runtime;
  let receiver: Receiver;

  beforeAll(async () => {
    db = await freshDatabase('postgres');
    const config = loadConfig({ ...PRIVATE_NETWORK_ENV, DOSSIER_SECRET: SECRET, LOG_LEVEL: 'silent', WEBHOOK_TIMEOUT_MS: '1000' });
    runtime = await openRuntime(config, { logger: silentLogger, clock: systemClock, target: db.target });
  });
  afterAll(async () => {
    await receiver?.close();
    await runtime?.close();
    await db?.dispose();
  });

  it('is sent again once a lease would have run out, not at once while writes fail', async () => {
    receiver = await startReceiver(() => ({ status: 200 }));
    const org = await createOrg(runtime.ctx, { name: 'Refused writes' });
    await addEndpoint(runtime.ctx, org.org_id, receiver.url, ['*']);
    // PostgreSQL refuses every attempt row while the trigger exists: the outcome cannot be written.
    await sql`create function refuse_attempts() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`.execute(runtime.ctx.db);
    await sql`create trigger refuse_attempts before insert on webhook_delivery_attempts for each row execute function refuse_attempts()`.execute(runtime.ctx.db);
    const [id] = await enqueue(runtime.ctx, caseEvent(org.org_id, 'case_refused'));
    const worker = startDeliveries(runtime.ctx, 'postgres', { maxInFlight: 4 });
    try {
      await until(() => receiver.requests.length >= 1, 10_000);
      // Long enough for a released lock to be claimed and sent again many times over.
      await new Promise((r) => setTimeout(r, 1_000));
      await sql`drop trigger refuse_attempts on webhook_delivery_attempts`.execute(runtime.ctx.db);
      await until(async () => (await runtime.ctx.db.selectFrom('webhook_deliveries').select('status').where('delivery_id', '=', id!).executeTakeFirstOrThrow()).status === 'delivered', 20_000);
    } finally {
      await worker.stop();
    }
    // Sent twice: once refused, once after the lease's length (the timeout plus 5 s).
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]!.at - receiver.requests[0]!.at).toBeGreaterThanOrEqual(5_900);
  }, 40_000);
});
