import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { expect } from 'vitest';
import type { AppContext } from '../../src/domain/deps.ts';
import { createEndpoint } from '../../src/domain/webhooks/endpoints.ts';
import { enqueueWebhookEvent, type WebhookEventInput } from '../../src/domain/webhooks/outbox.ts';
import { webhookDeliveryTask, type WebhookDeliveryOptions, type WebhookDeliveryTask } from '../../src/jobs/webhook-delivery.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { randomBase62 } from '../../src/ports/ids.ts';
import { inTransaction } from '../../src/storage/unit-of-work.ts';
import { postgresUrlOf, type BackendKind } from '../support/harness.ts';

/** Every outbound request in these tests goes to loopback receivers, which needs this. */
export const PRIVATE_NETWORK_ENV = { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' };

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** Wall-clock ms when the body was complete. */
  at: number;
}

export type Responder = (request: ReceivedRequest, index: number) => { status: number; body?: string; delayMs?: number; headers?: Record<string, string> };

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** Changes how later requests are answered. */
  respond(responder: Responder): void;
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that records every request as it arrived, raw body included. */
export async function startReceiver(responder: Responder = () => ({ status: 200, body: 'ok' }), path = '/hooks'): Promise<Receiver> {
  let answer = responder;
  const requests: ReceivedRequest[] = [];
  const pending = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const index = requests.push(received) - 1;
      const { status, body = '', delayMs = 0, headers = {} } = answer(received, index);
      const send = () => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body);
      };
      if (delayMs > 0) {
        const timer = setTimeout(() => {
          pending.delete(timer);
          send();
        }, delayMs);
        pending.add(timer);
      } else send();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    respond: (r) => (answer = r),
    async close() {
      for (const t of pending) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const stripe = new Stripe('sk_test_unused');

/**
 * Verifies one received request with both published verifiers, as a receiver would. With
 * `receivedAtSeconds` (tests on a manual clock) Stripe's check is made at that time, and the
 * Standard Webhooks signature is recomputed with the library rather than checked against the wall clock.
 */
export function verifySignatures(request: ReceivedRequest, secret: string, receivedAtSeconds?: number): void {
  const header = String(request.headers['x-service-signature']);
  expect(header).toMatch(/^t=\d+(,v1=[0-9a-f]{64})+$/);
  expect(stripe.webhooks.signature!.verifyHeader(request.rawBody, header, secret, 300, undefined, receivedAtSeconds)).toBe(true);
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  const webhook = new Webhook(secret);
  if (receivedAtSeconds === undefined) {
    expect(() => webhook.verify(request.rawBody, headers)).not.toThrow();
  } else {
    const expected = webhook.sign(headers['webhook-id'], new Date(Number(headers['webhook-timestamp']) * 1000), request.rawBody);
    expect(headers['webhook-signature'].split(' ')).toContain(expected);
  }
}

/** A case row to hang deliveries on: the case engine's tables need a case type and its version first. */
export async function insertCase(
  ctx: AppContext,
  orgId: string,
  environment: 'test' | 'live' = 'test',
  identity: { externalCaseId?: string | null } = {},
): Promise<string> {
  const caseId = `case_${randomBase62(24)}`;
  const caseTypeId = 'fixture_type';
  const now = ctx.clock.now();
  await sql`
    insert into case_types (org_id, environment, case_type_id, name, operating_mode, workflow_id, workflow_version, definition, created_at, updated_at)
    values (${orgId}, ${environment}, ${caseTypeId}, 'Fixture', 'system_of_record', 'wf_fixture', 'v1', '{}', ${now}, ${now})
    on conflict do nothing`.execute(ctx.db);
  await sql`
    insert into case_type_versions (org_id, environment, case_type_id, workflow_version, version_number, definition_hash, definition, created_at)
    values (${orgId}, ${environment}, ${caseTypeId}, 'v1', 1, 'fixture', '{}', ${now})
    on conflict do nothing`.execute(ctx.db);
  await sql`
    insert into cases (case_id, org_id, environment, case_type_id, workflow_id, workflow_version, operating_mode, runtime_status, origin,
      external_case_id, status_changed_at, created_at, updated_at)
    values (${caseId}, ${orgId}, ${environment}, ${caseTypeId}, 'wf_fixture', 'v1', 'system_of_record', 'complete', 'process',
      ${identity.externalCaseId ?? null}, ${now}, ${now}, ${now})`.execute(ctx.db);
  return caseId;
}

export async function caseHandoff(ctx: AppContext, caseId: string) {
  return ctx.db
    .selectFrom('cases')
    .select(['handoff_state', 'handoff_delivery_id', 'handoff_acknowledged_at'])
    .where('case_id', '=', caseId)
    .executeTakeFirstOrThrow();
}

export async function addEndpoint(ctx: AppContext, orgId: string, url: string, events: string[] = ['*'], environment: 'test' | 'live' = 'test') {
  const created = await createEndpoint(ctx, { tenant: { orgId, environment }, url, events });
  if (!created.ok) throw new Error(created.message);
  return created.value;
}

export function caseEvent(orgId: string, caseId: string, overrides: Partial<WebhookEventInput> = {}): WebhookEventInput {
  return {
    orgId,
    environment: 'test',
    eventType: 'v1.case.completed',
    eventId: `evt_${randomBase62(24)}`,
    caseId,
    sessionId: null,
    externalCaseId: null,
    externalApplicantId: null,
    externalCustomerId: null,
    idempotencyKey: null,
    traceId: `req_${randomBase62(24)}`,
    occurredAt: new Date(),
    data: { case_status: 'approved' },
    ...overrides,
  };
}

/** The outbox as the case engine calls it: in a transaction, then the in-process wake-up. */
export async function enqueue(ctx: AppContext, event: WebhookEventInput): Promise<string[]> {
  const { deliveryIds } = await inTransaction(ctx.db, (tx) => enqueueWebhookEvent(tx, ctx, event));
  ctx.wake.notify('webhook-deliveries');
  return deliveryIds;
}

export interface RunningDeliveries {
  task: WebhookDeliveryTask;
  worker: Worker;
  stop(): Promise<void>;
}

/** A Worker running only the delivery task; on PostgreSQL it LISTENs on the test database. */
export function startDeliveries(ctx: AppContext, backend: BackendKind, options: WebhookDeliveryOptions = {}): RunningDeliveries {
  const task = webhookDeliveryTask({ pollMs: 200, listenUrl: backend === 'postgres' ? postgresUrlOf(ctx) : null, ...options });
  const worker = new Worker(ctx, [task]);
  worker.start();
  return {
    task,
    worker,
    stop: async () => {
      await Promise.all([task.stop(), worker.stop()]);
    },
  };
}

export async function deliveryRow(ctx: AppContext, deliveryId: string) {
  return ctx.db.selectFrom('webhook_deliveries').selectAll().where('delivery_id', '=', deliveryId).executeTakeFirstOrThrow();
}
