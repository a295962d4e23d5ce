/**
 * Webhook fan-out benchmark: `node bench/webhooks-fanout.ts` (PostgreSQL at
 * postgres://postgres@127.0.0.1:5432/test, or BENCH_DATABASE_URL; a fresh schema, dropped after).
 *
 * 1. Raw: 10 000 plain undici POSTs to a local receiver, CONCURRENCY in flight.
 * 2. Dossier: 10 000 queued deliveries (1 000 events × 10 endpoints) sent by one delivery worker
 *    with the same concurrency: claim, sign, send through the SSRF-safe client, record.
 * 3. Idle latency: single events enqueued one at a time into an idle worker; enqueue (before the
 *    transaction) to receipt at the receiver, p50 and p95.
 *
 * Goals: ≥ 0.5 of the raw loop, ≥ 2 000 deliveries/s, idle p50 ≤ 25 ms.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { Agent } from 'undici';
import { loadConfig } from '../src/config.ts';
import { createOrg } from '../src/domain/orgs/orgs.ts';
import { createEndpoint } from '../src/domain/webhooks/endpoints.ts';
import { enqueueWebhookEvent, type WebhookEventInput } from '../src/domain/webhooks/outbox.ts';
import { webhookDeliveryTask } from '../src/jobs/webhook-delivery.ts';
import { Worker } from '../src/jobs/worker.ts';
import { randomBase62 } from '../src/ports/ids.ts';
import { openRuntime } from '../src/runtime.ts';
import { quoteIdent } from '../src/storage/database.ts';
import { inTransaction } from '../src/storage/unit-of-work.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DELIVERIES = 10_000;
const ENDPOINTS = 10;
const CONCURRENCY = 32;
const LATENCY_SAMPLES = 200;

type ReceiverMessage = { type: 'ready'; port: number } | { type: 'count'; count: number } | { type: 'receipt'; id: string; at: number };

const receiver = fork(fileURLToPath(new URL('./webhooks-receiver.ts', import.meta.url)), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const receipts = new Map<string, (at: number) => void>();
let countWaiter: ((n: number) => void) | undefined;
const port = await new Promise<number>((resolve) => {
  receiver.on('message', (msg: ReceiverMessage) => {
    if (msg.type === 'ready') resolve(msg.port);
    if (msg.type === 'count') countWaiter?.(msg.count);
    if (msg.type === 'receipt') receipts.get(msg.id)?.(msg.at);
  });
});
const receiverCount = () =>
  new Promise<number>((resolve) => {
    countWaiter = resolve;
    receiver.send({ type: 'count' });
  });
async function waitForCount(n: number): Promise<void> {
  while ((await receiverCount()) < n) await new Promise((r) => setTimeout(r, 5));
}

const schema = `bench_${randomBase62(10).toLowerCase()}`;
const admin = new pg.Client({ connectionString: DATABASE_URL });
await admin.connect();
await admin.query(`create schema ${quoteIdent(schema)}`);

const config = loadConfig({ DATABASE_URL, DOSSIER_ALLOW_PRIVATE_NETWORK: 'true', DOSSIER_SECRET: 'bench-secret-bench-secret-bench-secret-01', LOG_LEVEL: 'warn' });
const runtime = await openRuntime(config, { logger: pino({ level: 'warn' }), target: { kind: 'postgres', url: DATABASE_URL, schema, poolSize: 10 } });
const { ctx } = runtime;

function event(orgId: string, caseId: string): WebhookEventInput {
  return {
    orgId, environment: 'test', eventType: 'v1.intake.submitted', eventId: ctx.ids.next('evt'), caseId, sessionId: null,
    externalCaseId: 'loan-4711', externalApplicantId: null, externalCustomerId: null, idempotencyKey: null,
    traceId: ctx.ids.next('req'), occurredAt: new Date(), data: { runtime_status: 'processing' },
  };
}

try {
  // ── 1. the raw loop ──────────────────────────────────────────────────────────────────────
  const sample = JSON.stringify({ ...event('org_x', 'case_x'), delivery_id: 'dlv_x' });
  const agent = new Agent();
  let next = 0;
  const rawStart = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < DELIVERIES) {
        const i = next++;
        const res = await agent.request({
          origin: `http://127.0.0.1:${port}`, path: `/raw/e${i % ENDPOINTS}`, method: 'POST',
          headers: { 'content-type': 'application/json' }, body: sample,
        });
        await res.body.dump();
      }
    }),
  );
  const rawSeconds = (performance.now() - rawStart) / 1000;
  await agent.close();
  const rawRate = DELIVERIES / rawSeconds;
  receiver.send({ type: 'reset' });

  // ── 2. the fan-out through the outbox and one worker ─────────────────────────────────────
  const org = await createOrg(ctx, { name: 'bench' });
  for (let i = 0; i < ENDPOINTS; i++) {
    const created = await createEndpoint(ctx, { orgId: org.org_id, environment: 'test', url: `http://127.0.0.1:${port}/e${i}`, events: ['*'] });
    if (!created.ok) throw new Error(created.message);
  }
  await ctx.db.insertInto('case_types').values({
    org_id: org.org_id, environment: 'test', case_type_id: 'bench', name: 'bench', operating_mode: 'system_of_record',
    workflow_id: 'wf', workflow_version: 'v1', definition: '{}', created_at: new Date(), updated_at: new Date(),
  }).execute();
  // Deliveries name their case but need no case row: the case id is carried, not joined.
  const caseId = ctx.ids.next('case');
  for (let i = 0; i < DELIVERIES / ENDPOINTS; i += 100) {
    await inTransaction(ctx.db, async (tx) => {
      for (let j = 0; j < 100; j++) await enqueueWebhookEvent(tx, ctx, event(org.org_id, caseId));
    });
  }
  const task = webhookDeliveryTask({ maxInFlight: CONCURRENCY, listenUrl: DATABASE_URL });
  const worker = new Worker(ctx, [task]);
  const fanStart = performance.now();
  worker.start();
  await waitForCount(DELIVERIES);
  const fanSeconds = (performance.now() - fanStart) / 1000;
  for (;;) {
    const left = await ctx.db.selectFrom('webhook_deliveries').select(ctx.db.fn.countAll<string>().as('n')).where('status', '<>', 'delivered').executeTakeFirstOrThrow();
    if (Number(left.n) === 0) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const recordedSeconds = (performance.now() - fanStart) / 1000;
  const fanRate = DELIVERIES / fanSeconds;

  // ── 3. idle latency, one event at a time ─────────────────────────────────────────────────
  const solo = await createOrg(ctx, { name: 'bench-latency' });
  const soloEndpoint = await createEndpoint(ctx, { orgId: solo.org_id, environment: 'test', url: `http://127.0.0.1:${port}/solo`, events: ['*'] });
  if (!soloEndpoint.ok) throw new Error(soloEndpoint.message);
  receiver.send({ type: 'latency' });
  await new Promise((r) => setTimeout(r, 200));
  const latencies: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    await new Promise((r) => setTimeout(r, 20)); // let the worker go idle between events
    const started = Date.now();
    const { deliveryIds } = await inTransaction(ctx.db, (tx) => enqueueWebhookEvent(tx, ctx, event(solo.org_id, caseId)));
    const at = await new Promise<number>((resolve) => receipts.set(deliveryIds[0]!, resolve));
    receipts.delete(deliveryIds[0]!);
    latencies.push(at - started);
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;

  await Promise.all([task.stop(), worker.stop()]);

  const ratio = fanRate / rawRate;
  const results = {
    raw_undici_posts_per_s: Math.round(rawRate),
    webhook_deliveries_per_s: Math.round(fanRate),
    ratio: Math.round(ratio * 100) / 100,
    all_recorded_delivered_s: Math.round(recordedSeconds * 100) / 100,
    idle_event_to_receipt_ms: { p50: pct(50), p95: pct(95), max: latencies.at(-1) },
    goals: { ratio_at_least_0_5: ratio >= 0.5, at_least_2000_per_s: fanRate >= 2000, idle_p50_at_most_25_ms: pct(50) <= 25 },
    setup: { deliveries: DELIVERIES, endpoints: ENDPOINTS, concurrency: CONCURRENCY, latency_samples: LATENCY_SAMPLES },
  };
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
} finally {
  await runtime.close();
  await admin.query(`drop schema if exists ${quoteIdent(schema)} cascade`);
  await admin.end();
  receiver.send({ type: 'stop' });
}
