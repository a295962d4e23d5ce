import { randomBytes, webcrypto } from 'node:crypto';
import { verifyWebhook, WebhookSignatureError, type Dossier, type WebhookEvent } from '@dossier/client';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64ToBytes } from '../../packages/client/src/verify-webhook.ts';
import { rotateEndpointSecret } from '../../src/domain/webhooks/endpoints.ts';
import { dossierFor } from '../support/dossier-client.ts';
import { createTestApp, until, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { addEndpoint, caseEvent, enqueue, insertCase, PRIVATE_NETWORK_ENV, startDeliveries, startReceiver, type Receiver, type ReceivedRequest } from '../webhooks/fixtures.ts';

let t: TestApp;
let ws: TestWorkspace;
let dossier: Dossier;
let receiver: Receiver;
const secret = `whsec_${randomBytes(32).toString('base64')}`;

beforeAll(async () => {
  t = await createTestApp('embedded', { env: PRIVATE_NETWORK_ENV });
  ws = await t.workspace();
  dossier = dossierFor(t, ws);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

/** Sends a real signed test delivery through the service and returns it as the receiver got it. */
async function testDelivery(signingSecret = secret): Promise<ReceivedRequest> {
  const before = receiver.requests.length;
  const result = await dossier.webhooks.test({ endpoint_url: receiver.url, signing_secret: signingSecret });
  expect(result.success).toBe(true);
  return receiver.requests[before]!;
}

const signedAt = (request: ReceivedRequest) => Number(/t=(\d+)/.exec(String(request.headers['x-service-signature']))![1]) * 1000;
const withoutServiceSignature = (request: ReceivedRequest) => Object.fromEntries(Object.entries(request.headers).filter(([name]) => name !== 'x-service-signature'));
const failure = (promise: Promise<unknown>) => promise.then(() => { throw new Error('verified, but should not have'); }, (e: unknown) => e as WebhookSignatureError);

describe('a valid delivery', () => {
  it('verifies and comes back typed by event_type', async () => {
    const request = await testDelivery();
    const event = await verifyWebhook(request.rawBody, request.headers, secret);
    expect(event).toEqual(JSON.parse(request.rawBody));
    expect(event.event_type).toBe('v1.webhook.test');
    if (event.event_type !== 'v1.webhook.test') throw new Error('narrowing');
    expect(event.data.message).toMatch(/test webhook/);
    expect(event.case_id).toBeNull();
    expect(event.delivery_id).toBe(request.headers['webhook-id']);
  });

  it('takes fetch Headers and raw bytes as well as Node headers and a string', async () => {
    const request = await testDelivery();
    const headers = new Headers(Object.entries(request.headers).map(([k, v]) => [k, String(v)] as [string, string]));
    const bytes = new TextEncoder().encode(request.rawBody);
    expect((await verifyWebhook(bytes, headers, secret)).delivery_id).toBe(request.headers['webhook-id']);
    expect((await verifyWebhook(bytes.buffer, headers, [secret])).delivery_id).toBe(request.headers['webhook-id']);
    // Node 18 has no global crypto: the caller hands in WebCrypto's subtle.
    expect((await verifyWebhook(request.rawBody, headers, secret, { subtle: webcrypto.subtle })).delivery_id).toBe(request.headers['webhook-id']);
  });
});

describe('refused deliveries', () => {
  it('refuses a tampered body, however small the change', async () => {
    const request = await testDelivery();
    for (const body of [request.rawBody.replace('Dossier', 'Dossiet'), `${request.rawBody} `, request.rawBody.replace('"schema_version":"v1"', '"schema_version": "v1"')]) {
      const error = await failure(verifyWebhook(body, request.headers, secret));
      expect(error).toBeInstanceOf(WebhookSignatureError);
      expect(error.reason).toBe('signature_mismatch');
    }
  });

  it('refuses another secret', async () => {
    const request = await testDelivery();
    expect((await failure(verifyWebhook(request.rawBody, request.headers, `whsec_${randomBytes(32).toString('base64')}`))).reason).toBe('signature_mismatch');
  });

  it('refuses a timestamp outside the tolerance, in the past or the future', async () => {
    const request = await testDelivery();
    const at = signedAt(request);
    await expect(verifyWebhook(request.rawBody, request.headers, secret, { now: () => at + 299_000 })).resolves.toMatchObject({ event_type: 'v1.webhook.test' });
    expect((await failure(verifyWebhook(request.rawBody, request.headers, secret, { now: () => at + 301_000 }))).reason).toBe('timestamp_outside_tolerance');
    expect((await failure(verifyWebhook(request.rawBody, request.headers, secret, { now: () => at - 301_000 }))).reason).toBe('timestamp_outside_tolerance');
    expect((await failure(verifyWebhook(request.rawBody, request.headers, secret, { now: () => at + 31_000, toleranceSeconds: 30 }))).reason).toBe('timestamp_outside_tolerance');
    // The Standard Webhooks timestamp is held to the same tolerance.
    expect((await failure(verifyWebhook(request.rawBody, withoutServiceSignature(request), secret, { now: () => at + 301_000 }))).reason).toBe('timestamp_outside_tolerance');
  });

  it('says what is missing or malformed', async () => {
    const request = await testDelivery();
    const { 'webhook-id': _id, 'webhook-timestamp': _ts, 'webhook-signature': _sig, 'x-service-signature': _svc, ...unsigned } = request.headers;
    expect((await failure(verifyWebhook(request.rawBody, unsigned, secret))).reason).toBe('missing_signature');
    expect((await failure(verifyWebhook(request.rawBody, { 'x-service-signature': 'v1=abc' }, secret))).reason).toBe('malformed_signature');
    expect((await failure(verifyWebhook(request.rawBody, { 'x-service-signature': 't=1,v0=abc' }, secret))).reason).toBe('malformed_signature');
    expect((await failure(verifyWebhook(request.rawBody, { 'x-service-signature': 't=soon,v1=abc' }, secret))).reason).toBe('malformed_signature');
    expect((await failure(verifyWebhook(request.rawBody, { 'webhook-id': 'dlv_1' }, secret))).reason).toBe('malformed_signature');
    expect((await failure(verifyWebhook(request.rawBody, request.headers, ''))).reason).toBe('missing_secret');
    expect((await failure(verifyWebhook(request.rawBody, request.headers, []))).reason).toBe('missing_secret');
  });
});

describe('Standard Webhooks headers', () => {
  it('verify a real delivery on their own, and refuse it tampered', async () => {
    const request = await testDelivery();
    const headers = withoutServiceSignature(request);
    expect((await verifyWebhook(request.rawBody, headers, secret)).delivery_id).toBe(request.headers['webhook-id']);
    expect((await failure(verifyWebhook(request.rawBody.replace('Dossier', 'Dossiet'), headers, secret))).reason).toBe('signature_mismatch');
    expect((await failure(verifyWebhook(request.rawBody, { ...headers, 'webhook-id': 'dlv_other' }, secret))).reason).toBe('signature_mismatch');
  });

  it('agree with the reference library, and refuse a webhook-id that is not the delivery', async () => {
    const request = await testDelivery();
    const at = new Date(signedAt(request));
    const reference = new Webhook(secret);
    const headers = { 'webhook-id': String(request.headers['webhook-id']), 'webhook-timestamp': String(at.getTime() / 1000), 'webhook-signature': reference.sign(String(request.headers['webhook-id']), at, request.rawBody) };
    expect(headers['webhook-signature']).toBe(request.headers['webhook-signature']);
    await expect(verifyWebhook(request.rawBody, headers, secret)).resolves.toMatchObject({ event_type: 'v1.webhook.test' });
    const forged = { ...headers, 'webhook-id': 'dlv_forged', 'webhook-signature': reference.sign('dlv_forged', at, request.rawBody) };
    expect((await failure(verifyWebhook(request.rawBody, forged, secret))).reason).toBe('invalid_payload');
  });

  it('use the service’s decoding of a secret that is not base64, as the test operation allows', async () => {
    const odd = 'my test secret: not base64!';
    const request = await testDelivery(odd);
    await expect(verifyWebhook(request.rawBody, request.headers, odd)).resolves.toMatchObject({ event_type: 'v1.webhook.test' });
    await expect(verifyWebhook(request.rawBody, withoutServiceSignature(request), odd)).resolves.toMatchObject({ event_type: 'v1.webhook.test' });
  });

  it('decodes base64 exactly as the service does, for any secret', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        expect(Buffer.from(base64ToBytes(text)).toString('hex')).toBe(Buffer.from(text, 'base64').toString('hex'));
      }),
      { numRuns: 500 },
    );
  });
});

describe('a secret rotation', () => {
  it('signs real deliveries with both secrets, and either one verifies', async () => {
    const rotationReceiver = await startReceiver();
    const deliveries = startDeliveries(t.ctx, 'embedded');
    try {
      const endpoint = await addEndpoint(t.ctx, ws.orgId, rotationReceiver.url, ['v1.case.completed']);
      const rotated = await rotateEndpointSecret(t.ctx, { tenant: { orgId: ws.orgId, environment: 'test' }, endpointId: endpoint.endpoint_id });
      if (!rotated.ok) throw new Error(rotated.message);
      const [oldSecret, newSecret] = [endpoint.signing_secret, rotated.value.signing_secret];
      const caseId = await insertCase(t.ctx, ws.orgId);
      await enqueue(t.ctx, caseEvent(ws.orgId, caseId));
      const request = await until(() => rotationReceiver.requests[0]);
      expect(String(request.headers['x-service-signature']).match(/v1=/g)).toHaveLength(2);
      expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);

      const unrelated = `whsec_${randomBytes(32).toString('base64')}`;
      for (const secrets of [oldSecret, newSecret, [unrelated, newSecret], [oldSecret, unrelated]]) {
        const event: WebhookEvent = await verifyWebhook(request.rawBody, request.headers, secrets);
        expect(event.event_type).toBe('v1.case.completed');
        if (event.event_type === 'v1.case.completed') expect(event.data.case_status).toBe('approved');
        await expect(verifyWebhook(request.rawBody, withoutServiceSignature(request), secrets)).resolves.toMatchObject({ case_id: caseId });
      }
      expect((await failure(verifyWebhook(request.rawBody, request.headers, unrelated))).reason).toBe('signature_mismatch');
    } finally {
      await deliveries.stop();
      await rotationReceiver.close();
    }
  });
});
