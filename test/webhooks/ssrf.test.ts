import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkOutboundUrl, checkOutboundUrlResolved, isPublicAddress } from '../../src/net/address-policy.ts';
import { createSafeHttpClient, type OutboundHttp } from '../../src/net/safe-fetch.ts';
import { startReceiver, type Receiver } from './fixtures.ts';

// Every request these tests make goes to a receiver on loopback. The refusals are what is under
// test: with private networks disallowed, the receiver must see nothing at all.

const strict = { allowPrivateNetwork: false };
const lenient = { allowPrivateNetwork: true };

describe('address policy (pure: nothing is sent)', () => {
  it.each([
    ['127.0.0.1', false], ['127.1.2.3', false], ['::1', false], ['::ffff:127.0.0.1', false], ['::ffff:7f00:1', false],
    ['0.0.0.0', false], ['::', false], ['10.0.0.1', false], ['172.16.5.4', false], ['192.168.1.1', false],
    ['100.64.0.1', false], ['169.254.169.254', false], ['224.0.0.1', false], ['255.255.255.255', false], ['198.18.0.1', false],
    ['fe80::1', false], ['fc00::1', false], ['fd12:3456::1', false], ['ff02::1', false], ['2001:db8::1', false],
    ['64:ff9b::7f00:1', false], ['2002:7f00:1::', false], ['::ffff:10.0.0.1', false], ['not-an-ip', false],
    ['8.8.8.8', true], ['1.1.1.1', true], ['2606:4700:4700::1111', true], ['::ffff:8.8.8.8', true],
    // Issue 9 §5: IPv6 only in global unicast 2000::/3, minus its special ranges.
    ['::127.0.0.1', false], ['::7f00:1', false], ['::8.8.8.8', false], ['::ffff:0:127.0.0.1', false], ['64:ff9b::8.8.8.8', false],
    ['64:ff9b:1::1', false], ['2001:db8:1::1', false], ['2001::1', false], ['2001:0:4136:e378::1', false], ['2001:2::1', false],
    ['2001:10::1', false], ['2002:808:808::1', false], ['3fff::1', false], ['fc00::1', false], ['fdff::1', false], ['fe80::1%1', false],
    ['febf::1', false], ['fec0::1', false], ['ff0e::1', false], ['100::1', false], ['1fff:ffff::1', false], ['4000::1', false], ['e000::1', false],
    ['2001:4860:4860::8888', true], ['2a00:1450:4001::1', true], ['2400:cb00::1', true], ['3ffe::1', true],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it.each([
    ['https://127.0.0.1/hook', 'blocked_address'],
    ['https://127.1.2.3/hook', 'blocked_address'],
    ['https://localhost/hook', 'blocked_address'],
    ['https://api.localhost/hook', 'blocked_address'],
    ['https://[::1]/hook', 'blocked_address'],
    ['https://[::ffff:127.0.0.1]/hook', 'blocked_address'],
    ['https://[::127.0.0.1]/hook', 'blocked_address'],
    ['https://[64:ff9b::7f00:1]/hook', 'blocked_address'],
    ['https://[fd00::1]/hook', 'blocked_address'],
    ['https://0.0.0.0/hook', 'blocked_address'],
    ['https://2130706433/hook', 'blocked_address'],
    ['https://0x7f.1/hook', 'blocked_address'],
    ['http://127.0.0.1/hook', 'invalid_url'],
    ['ftp://127.0.0.1/hook', 'invalid_url'],
    ['https://user:pw@127.0.0.1/hook', 'invalid_url'],
    ['not a url', 'invalid_url'],
  ])('refuses %s upfront (%s)', (url, reason) => {
    const checked = checkOutboundUrl(url, strict);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.reason).toBe(reason);
  });

  it('refuses a name that resolves to loopback, and lets private networks through when allowed', async () => {
    const lookup = async () => [{ address: '127.0.0.1', family: 4 }];
    expect(await checkOutboundUrlResolved('https://rebind.test/hook', strict, lookup)).toMatchObject({ ok: false, reason: 'blocked_address' });
    expect(await checkOutboundUrlResolved('http://127.0.0.1:9/hook', lenient, lookup)).toMatchObject({ ok: true });
  });
});

describe('the safe HTTP client against loopback', () => {
  let target: Receiver;
  let other: Receiver;
  let strictClient: OutboundHttp;
  let lenientClient: OutboundHttp;
  let port: string;

  beforeAll(async () => {
    target = await startReceiver();
    other = await startReceiver();
    port = new URL(target.url).port;
    // Every name resolves to loopback: the connection-time check must stop it (DNS rebinding).
    strictClient = createSafeHttpClient({ policy: strict, timeoutMs: 1000, lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    lenientClient = createSafeHttpClient({ policy: lenient, timeoutMs: 300 });
  });
  afterAll(async () => {
    await strictClient.close();
    await lenientClient.close();
    await target.close();
    await other.close();
  });

  it.each([
    ['https://127.0.0.1:PORT/hooks', 'blocked_address'],
    ['https://127.1.2.3:PORT/hooks', 'blocked_address'],
    ['https://localhost:PORT/hooks', 'blocked_address'],
    ['https://[::1]:PORT/hooks', 'blocked_address'],
    ['https://[::ffff:127.0.0.1]:PORT/hooks', 'blocked_address'],
    ['https://0.0.0.0:PORT/hooks', 'blocked_address'],
    ['http://127.0.0.1:PORT/hooks', 'invalid_url'],
    ['https://rebound.example:PORT/hooks', 'blocked_address'],
  ])('never reaches %s without DOSSIER_ALLOW_PRIVATE_NETWORK (%s)', async (template, reason) => {
    const before = target.requests.length;
    const result = await strictClient.fetch({ url: template.replace('PORT', port), method: 'POST', body: '{}' });
    expect(result).toMatchObject({ ok: false, reason });
    expect(target.requests.length).toBe(before);
  });

  it('does not follow a redirect: a 3xx is a failure and its target sees nothing', async () => {
    target.respond(() => ({ status: 307, headers: { location: other.url } }));
    const result = await lenientClient.fetch({ url: target.url, method: 'POST', body: '{}' });
    expect(result).toMatchObject({ ok: false, reason: 'redirect', status: 307 });
    expect(other.requests).toHaveLength(0);
    target.respond(() => ({ status: 200, body: 'ok' }));
  });

  it('keeps one deadline for the whole answer', async () => {
    target.respond(() => ({ status: 200, delayMs: 3000 }));
    const result = await lenientClient.fetch({ url: target.url, method: 'POST', body: '{}' });
    expect(result).toMatchObject({ ok: false, reason: 'timeout' });
    expect(result.durationMs).toBeLessThan(1500);
    target.respond(() => ({ status: 200, body: 'ok' }));
  });

  it('reads at most 64 KiB of the answer and keeps a 4 KiB excerpt', async () => {
    target.respond(() => ({ status: 200, body: 'x'.repeat(300_000) }));
    const result = await lenientClient.fetch({ url: target.url, method: 'POST', body: '{}' });
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.body.length).toBe(64 * 1024);
      expect(result.truncated).toBe(true);
      expect(result.bodyExcerpt.length).toBe(4096);
    }
    target.respond(() => ({ status: 200, body: 'ok' }));
  });

  it('reports a refused connection with no status', async () => {
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const result = await lenientClient.fetch({ url, method: 'POST', body: '{}' });
    expect(result).toMatchObject({ ok: false, reason: 'connection_failed' });
    expect(result.status).toBeUndefined();
  });
});
