import { afterAll, beforeAll, expect, it } from 'vitest';
import { decideAfterAttempt } from '../../src/domain/retry-schedule.ts';
import { webhookDeliveryTask, type WebhookDeliveryTask } from '../../src/jobs/webhook-delivery.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { listAttempts } from '../../src/storage/webhooks/deliveries.ts';
import { createTestApp, describeEachBackend, until, type TestApp } from '../support/harness.ts';
import { PRIVATE_NETWORK_ENV, addEndpoint, caseEvent, caseHandoff, deliveryRow, enqueue, insertCase, startReceiver, verifySignatures, type Receiver } from './fixtures.ts';

it('decides the retry schedule of spec §3.2: 60 s, 5 min, 30 min, 2 h, then failed', () => {
  const now = new Date('2026-01-15T12:00:00.000Z');
  const delays = [60, 300, 1800, 7200];
  const after = (attemptCountBefore: number, succeeded = false) => decideAfterAttempt({ attemptCountBefore, succeeded, succeededAs: 'delivered', now, retryDelaysSeconds: delays });
  expect([0, 1, 2, 3].map((n) => after(n).nextAttemptAt!.getTime() - now.getTime())).toEqual([60_000, 300_000, 1_800_000, 7_200_000]);
  expect([0, 1, 2, 3].map((n) => after(n).status)).toEqual(['retry_scheduled', 'retry_scheduled', 'retry_scheduled', 'retry_scheduled']);
  expect(after(4)).toEqual({ status: 'failed', attemptCount: 5, nextAttemptAt: null });
  expect(after(2, true)).toEqual({ status: 'delivered', attemptCount: 3, nextAttemptAt: null });
});

describeEachBackend('webhook retry schedule on a manual clock', (backend) => {
  let t: TestApp;
  let r: Receiver;
  let task: WebhookDeliveryTask;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    t = await createTestApp(backend, { clock, env: PRIVATE_NETWORK_ENV });
    r = await startReceiver(() => ({ status: 500, body: 'try later' }));
    // Driven by hand: each run() claims whatever is due on the manual clock, and nothing else.
    task = webhookDeliveryTask({ pollMs: 20, listenUrl: null });
  });
  afterAll(async () => {
    await task.stop();
    await r.close();
    await t.close();
  });

  it('attempts exactly when each delay has passed, five times, then fails', async () => {
    const ws = await t.workspace();
    const endpoint = await addEndpoint(t.ctx, ws.orgId, r.url, ['v1.case.completed']);
    const caseId = await insertCase(t.ctx, ws.orgId);
    const [id] = await enqueue(t.ctx, caseEvent(ws.orgId, caseId));
    const start = clock.now().getTime();

    const attemptAndSettle = async (expected: number) => {
      expect(await task.run(t.ctx)).toBe(1);
      await until(async () => (await listAttempts(t.ctx.db, { orgId: ws.orgId, environment: 'test' }, id!)).length === expected);
      await until(() => task.inFlight === 0);
    };
    await attemptAndSettle(1);
    let elapsed = 0;
    for (const [i, delaySeconds] of [60, 300, 1800, 7200].entries()) {
      const row = await deliveryRow(t.ctx, id!);
      expect(row.status).toBe('retry_scheduled');
      expect(row.next_attempt_at!.getTime() - start).toBe(elapsed + delaySeconds * 1000);
      clock.advance(delaySeconds * 1000 - 1);
      expect(await task.run(t.ctx)).toBe(0);
      expect(r.requests).toHaveLength(i + 1);
      clock.advance(1);
      elapsed += delaySeconds * 1000;
      await attemptAndSettle(i + 2);
      // Signed with the attempt's own time: a retry hours later still passes a 300 s tolerance.
      const last = r.requests.at(-1)!;
      expect(Number(last.headers['webhook-timestamp'])).toBe(Math.floor(clock.now().getTime() / 1000));
      verifySignatures(last, endpoint.signing_secret, Math.floor(clock.now().getTime() / 1000));
    }
    const row = await deliveryRow(t.ctx, id!);
    expect(row).toMatchObject({ status: 'failed', attempt_count: 5, next_attempt_at: null });
    const attempts = await listAttempts(t.ctx.db, { orgId: ws.orgId, environment: 'test' }, id!);
    expect(attempts.map((a) => a.attempted_at.getTime() - start)).toEqual([0, 60_000, 360_000, 2_160_000, 9_360_000]);
    expect(await caseHandoff(t.ctx, caseId)).toMatchObject({ handoff_state: 'dispatch_failed' });
    clock.advance(24 * 3600 * 1000);
    expect(await task.run(t.ctx)).toBe(0);
    expect(r.requests).toHaveLength(5);
  });
});
