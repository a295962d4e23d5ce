import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seal } from '../../src/domain/crypto/secret-box.ts';
import { signAttempt, signAttemptWithKeys, signingKeysOf } from '../../src/domain/webhooks/signature.ts';
import { SigningSecretCache } from '../../src/jobs/webhook-delivery/secret-cache.ts';
import type { ClaimedDelivery } from '../../src/storage/webhooks/deliveries.ts';

const deploymentSecret = 'a-deployment-secret-of-enough-length-0123';
const body = '{"id":"evt_1","type":"v1.intake.submitted","data":{}}';

function delivery(endpointId: string, secretBox: string): ClaimedDelivery {
  return {
    delivery_id: 'dlv_1', org_id: 'org_1', environment: 'test', endpoint_id: endpointId, event_id: 'evt_1', event_type: 'v1.intake.submitted',
    case_id: null, payload: body, attempt_count: 0, total_attempts: 0, url: 'https://example.com/hook', kind: 'url', enabled: true,
    secret_box: secretBox, previous_secret_box: null, previous_secret_expires_at: null,
  };
}

describe('signing with keys made once', () => {
  it('gives the same headers as signing with the secret strings, checked by hand', () => {
    const secrets = ['whsec_' + Buffer.alloc(32, 1).toString('base64'), 'whsec_' + Buffer.alloc(32, 2).toString('base64')];
    const headers = signAttemptWithKeys(secrets.map(signingKeysOf), 'dlv_1', 1_700_000_000, body);
    expect(headers).toEqual(signAttempt(secrets, 'dlv_1', 1_700_000_000, body));
    const stripe = createHmac('sha256', secrets[1]!).update(`1700000000.${body}`).digest('hex');
    const standard = createHmac('sha256', Buffer.alloc(32, 2)).update(`dlv_1.1700000000.${body}`).digest('base64');
    expect(headers['x-service-signature'].split(',')).toContain(`v1=${stripe}`);
    expect(headers['webhook-signature'].split(' ')).toContain(`v1,${standard}`);
  });
});

describe('the delivery worker’s signing-key cache', () => {
  it('opens a box once per endpoint, and does not serve it to another endpoint it was copied to', () => {
    const cache = new SigningSecretCache();
    const secret = 'whsec_' + Buffer.alloc(32, 3).toString('base64');
    const box = seal(deploymentSecret, { purpose: 'webhook-signing-secret', owner: 'ep_A' }, secret);
    const ctx = { secret: deploymentSecret };
    const keys = cache.get(ctx, delivery('ep_A', box), new Date());
    expect(cache.get(ctx, delivery('ep_A', box), new Date())).toBe(keys);
    expect(signAttemptWithKeys(keys, 'dlv_1', 1, body)).toEqual(signAttempt([secret], 'dlv_1', 1, body));
    expect(() => cache.get(ctx, delivery('ep_B', box), new Date())).toThrow(/cannot be opened/);
  });
});
