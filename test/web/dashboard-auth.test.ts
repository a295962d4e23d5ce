import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS, MAX_FAILURES_PER_ADDRESS } from '../../src/domain/operators/sign-in.ts';
import { SESSION_IDLE_MS } from '../../src/domain/operators/operator-sessions.ts';
import { listPageOf } from '../../src/web/dashboard/auth/session-actions.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, itOnPostgres, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { cookieHeader, cookiesOf, csrfOf, form, FORM, newOperator, signInOperator } from '../support/web.ts';

describeEachBackend('dashboard sign-in, sessions and roles', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  const clock = new ManualClock('2026-03-02T09:00:00.000Z');
  beforeAll(async () => {
    t = await createTestApp(backend, { clock });
    ws = await t.workspace();
  });
  afterAll(() => t.close());

  it('shows a labelled sign-in form with a strict, HttpOnly CSRF cookie', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard/login' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.body).toContain('<label class="label" for="email">Email</label>');
    expect(res.body).toContain('<label class="label" for="password">Password</label>');
    expect(res.body).toMatch(/<button[^>]*type="submit"[^>]*>Sign in<\/button>/);
    const csrf = res.cookies.find((c) => c.name === 'dossier_login_csrf');
    expect(csrf).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard/login' });
  });

  it('signs in, sets a strict session cookie, and opens the dashboard', async () => {
    const op = await newOperator(t, ws.orgId, 'reviewer');
    const { res, cookie } = await signInOperator(t, op.email.toUpperCase(), op.password);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard');
    const session = res.cookies.find((c) => c.name === 'dossier_dash');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
    expect(session?.secure).toBeFalsy();
    const home = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } });
    expect(home.statusCode).toBe(200);
    expect(home.body).toContain(op.email);
    expect(home.body).toContain('Test mode');
    const stored = await t.ctx.db.selectFrom('operator_sessions').select('token_hash').execute();
    expect(stored.map((s) => s.token_hash)).not.toContain(session!.value);
  });

  it('refuses a wrong password and an unknown email with the same message', async () => {
    const op = await newOperator(t, ws.orgId);
    const wrong = await signInOperator(t, op.email, 'not the password at all', '10.0.0.1');
    const unknown = await signInOperator(t, 'nobody-here@example.com', 'not the password at all', '10.0.0.1');
    for (const { res } of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.body).toContain('The email address or password is not right');
      expect(res.body).toContain('<title>Error: Sign in');
      expect(res.cookies.find((c) => c.name === 'dossier_dash')).toBeUndefined();
    }
    const shape = (body: string) => body.replace(/value="[^"]*"/g, '');
    expect(shape(wrong.res.body)).toBe(shape(unknown.res.body));
  });

  it('locks an email from one address after repeated failures, even against the right password, and says when to retry', async () => {
    const op = await newOperator(t, ws.orgId);
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS; i++) {
      expect((await signInOperator(t, op.email, `wrong-${i}-password`, '10.1.0.1')).res.statusCode).toBe(401);
    }
    const locked = await signInOperator(t, op.email, op.password, '10.1.0.1');
    expect(locked.res.statusCode).toBe(429);
    expect(Number(locked.res.headers['retry-after'])).toBeGreaterThan(0);
    expect(locked.res.body).toContain('Too many failed attempts');
    // An email that names no account locks the same way: the lock-out does not reveal accounts.
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS; i++) await signInOperator(t, 'ghost@example.com', 'wrong password here', '10.2.0.1');
    expect((await signInOperator(t, 'ghost@example.com', 'wrong password here', '10.2.0.1')).res.statusCode).toBe(429);
    clock.advance(16 * 60_000);
    expect((await signInOperator(t, op.email, op.password, '10.1.0.1')).res.statusCode).toBe(303);
  });

  // Issue 23 §2: anyone who knew an operator's email could lock them out for 15 minutes.
  it('regression: a stranger guessing an operator\'s password locks out only their own address', async () => {
    const op = await newOperator(t, ws.orgId);
    for (let i = 0; i < 3 * MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS; i++) await signInOperator(t, op.email, `wrong-${i}-password`, '198.51.100.66');
    expect((await signInOperator(t, op.email, op.password, '198.51.100.66')).res.statusCode).toBe(429);
    expect((await signInOperator(t, op.email, op.password, '10.1.0.77')).res.statusCode).toBe(303);
    // One IPv6 host holds a whole /64: a new address inside it is the same address to the lock.
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS; i++) await signInOperator(t, op.email, `wrong-${i}-password`, `2001:db8:5:6::${i + 1}`);
    expect((await signInOperator(t, op.email, op.password, '2001:db8:5:6::ffff')).res.statusCode).toBe(429);
    expect((await signInOperator(t, op.email, op.password, '2001:db8:5:7::1')).res.statusCode).toBe(303);
    clock.advance(16 * 60_000);
  });

  it('locks an email from every address once guesses spread over many addresses reach the account ceiling', async () => {
    const op = await newOperator(t, ws.orgId);
    const perAddress = MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS;
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT; i++) {
      expect((await signInOperator(t, op.email, `wrong-${i}-password`, `10.3.${Math.floor(i / perAddress)}.1`)).res.statusCode).toBe(401);
    }
    expect((await signInOperator(t, op.email, op.password, '10.3.200.1')).res.statusCode).toBe(429);
    clock.advance(16 * 60_000);
    expect((await signInOperator(t, op.email, op.password, '10.3.200.1')).res.statusCode).toBe(303);
  }, 60_000);

  // Issue 23 §2: the failures were read, the password checked, and only then the failure counted,
  // so 40 wrong passwords sent at once all reached the password check and none got 429.
  itOnPostgres(backend, 'regression: 40 concurrent wrong passwords for one email from one address reach at most 5 password checks', async () => {
    const op = await newOperator(t, ws.orgId);
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => signInOperator(t, op.email, `wrong-${i}-password`, '192.0.2.40')));
    const statuses = outcomes.map((o) => o.res.statusCode);
    // A 429 is answered before the password is looked at; anything else checked it.
    const checked = statuses.filter((s) => s !== 429).length;
    console.info(`40 concurrent wrong passwords: ${checked} password checks, ${statuses.length - checked} locked`);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    expect(checked).toBeLessThanOrEqual(MAX_FAILURES_PER_ACCOUNT_AND_ADDRESS);
    expect(checked).toBeGreaterThan(0);
    clock.advance(16 * 60_000);
  }, 60_000);

  it('locks a client address that guesses across many emails', async () => {
    const op = await newOperator(t, ws.orgId);
    for (let i = 0; i < MAX_FAILURES_PER_ADDRESS; i++) await signInOperator(t, `guess-${i}@example.com`, 'wrong password here', '10.9.9.9');
    expect((await signInOperator(t, op.email, op.password, '10.9.9.9')).res.statusCode).toBe(429);
    expect((await signInOperator(t, op.email, op.password, '10.9.9.10')).res.statusCode).toBe(303);
    clock.advance(16 * 60_000);
  });

  it('refuses a sign-in post without the form nonce', async () => {
    const op = await newOperator(t, ws.orgId);
    const res = await t.app.inject({ method: 'POST', url: '/dashboard/login', headers: FORM, payload: form({ email: op.email, password: op.password }) });
    expect(res.statusCode).toBe(400);
    expect(res.cookies.find((c) => c.name === 'dossier_dash')).toBeUndefined();
  });

  it('sends signed-out visitors to the sign-in page and back to where they were going', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard/developers?tab=keys' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/login?reason=none&next=${encodeURIComponent('/dashboard/developers?tab=keys')}`);
    const op = await newOperator(t, ws.orgId);
    const page = await t.app.inject({ method: 'GET', url: '/dashboard/login?next=/dashboard/developers' });
    const signedIn = await t.app.inject({
      method: 'POST',
      url: '/dashboard/login',
      headers: { ...FORM, cookie: cookieHeader(cookiesOf(page)) },
      payload: form({ _csrf: csrfOf(page.body), email: op.email, password: op.password, next: '/dashboard/developers' }),
    });
    expect(signedIn.headers.location).toBe('/dashboard/developers');
    const offsite = await t.app.inject({ method: 'GET', url: '/dashboard/login?next=//evil.example/dashboard' });
    expect(offsite.body).not.toContain('evil.example');
  });

  it('enforces CSRF tokens on every dashboard form', async () => {
    const op = await newOperator(t, ws.orgId);
    const { cookie } = await signInOperator(t, op.email, op.password);
    const without = await t.app.inject({ method: 'POST', url: '/dashboard/logout', headers: { ...FORM, cookie }, payload: '' });
    expect(without.statusCode).toBe(403);
    const forged = await t.app.inject({ method: 'POST', url: '/dashboard/environment', headers: { ...FORM, cookie }, payload: form({ _csrf: 'x'.repeat(43), environment: 'live' }) });
    expect(forged.statusCode).toBe(403);
    // A token of another session is refused too: tokens are bound to the session.
    const other = await signInOperator(t, op.email, op.password);
    const otherCsrf = csrfOf((await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie: other.cookie } })).body);
    const crossed = await t.app.inject({ method: 'POST', url: '/dashboard/logout', headers: { ...FORM, cookie }, payload: form({ _csrf: otherCsrf }) });
    expect(crossed.statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } })).statusCode).toBe(200);
  });

  it('switches between test and live, scoping the session and dropping the banner', async () => {
    const op = await newOperator(t, ws.orgId);
    const { cookie } = await signInOperator(t, op.email, op.password);
    const home = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } });
    const res = await t.app.inject({
      method: 'POST',
      url: '/dashboard/environment',
      headers: { ...FORM, cookie },
      payload: form({ _csrf: csrfOf(home.body), environment: 'live', return_to: '/dashboard/cases/case_abc123' }),
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/cases');
    const live = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } });
    expect(live.body).not.toContain('Test mode');
    expect(live.body).toContain('aria-pressed="true">Live');
  });

  it('signs out: the session is revoked server-side and the cookie cleared', async () => {
    const op = await newOperator(t, ws.orgId);
    const { cookie } = await signInOperator(t, op.email, op.password);
    const home = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } });
    const out = await t.app.inject({ method: 'POST', url: '/dashboard/logout', headers: { ...FORM, cookie }, payload: form({ _csrf: csrfOf(home.body) }) });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/dashboard/login?reason=signed_out');
    expect(out.cookies.find((c) => c.name === 'dossier_dash')?.value).toBe('');
    const after = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } });
    expect(after.statusCode).toBe(303);
  });

  it('ends a session after the idle timeout', async () => {
    const op = await newOperator(t, ws.orgId);
    const { cookie } = await signInOperator(t, op.email, op.password);
    clock.advance(SESSION_IDLE_MS - 60_000);
    expect((await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } })).statusCode).toBe(200);
    clock.advance(SESSION_IDLE_MS - 60_000);
    expect((await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } })).statusCode).toBe(200);
    clock.advance(SESSION_IDLE_MS + 1);
    const expired = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } });
    expect(expired.statusCode).toBe(303);
    expect(expired.headers.location).toContain('reason=expired');
    // Revoked on the spot: turning the clock back does not revive it.
    clock.advance(-SESSION_IDLE_MS);
    expect((await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie } })).statusCode).toBe(303);
    clock.advance(SESSION_IDLE_MS);
  });

  it('refuses developer settings to a reviewer on the server, and opens them to an admin', async () => {
    const reviewer = await newOperator(t, ws.orgId, 'reviewer');
    const admin = await newOperator(t, ws.orgId, 'admin');
    const r = await signInOperator(t, reviewer.email, reviewer.password);
    const a = await signInOperator(t, admin.email, admin.password);
    const refused = await t.app.inject({ method: 'GET', url: '/dashboard/developers', headers: { cookie: r.cookie } });
    expect(refused.statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie: r.cookie } })).body).not.toContain('/dashboard/developers/keys');
    expect((await t.app.inject({ method: 'GET', url: '/dashboard/developers', headers: { cookie: a.cookie } })).statusCode).toBe(200);
  });

  it('answers odd dashboard addresses with a page, never a server error', async () => {
    const op = await newOperator(t, ws.orgId);
    const { cookie } = await signInOperator(t, op.email, op.password);
    for (const url of ['/dashboard/no-such-page', '/dashboard/%ZZ', '/dashboard/login?next=%00', `/dashboard/${'a'.repeat(5000)}`]) {
      const res = await t.app.inject({ method: 'GET', url, headers: { cookie } });
      expect(res.statusCode, url).toBeLessThan(500);
    }
    const missing = await t.app.inject({ method: 'GET', url: '/dashboard/no-such-page', headers: { cookie } });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toContain('text/html');
  });
});

describe('the environment switch returns to a list page when the page named an item', () => {
  it.each([
    ['/dashboard/cases/case_abc', '/dashboard/cases'],
    ['/dashboard/cases', '/dashboard/cases'],
    ['/dashboard/developers/keys', '/dashboard/developers/keys'],
    ['/dashboard/developers/webhooks/ep_123/deliveries', '/dashboard/developers/webhooks'],
    ['/dashboard/developers/case-types/income_verification', '/dashboard/developers/case-types'],
  ])('%s → %s', (from, to) => expect(listPageOf(from)).toBe(to));
});

describe('https deployments', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('embedded', { env: { BASE_URL: 'https://dossier.example.com' } });
  });
  afterAll(() => t.close());

  it('marks dashboard cookies Secure', async () => {
    const ws = await t.workspace();
    const op = await newOperator(t, ws.orgId);
    const { res } = await signInOperator(t, op.email, op.password);
    expect(res.cookies.find((c) => c.name === 'dossier_dash')?.secure).toBe(true);
    const page = await t.app.inject({ method: 'GET', url: '/dashboard/login' });
    expect(page.cookies.find((c) => c.name === 'dossier_login_csrf')?.secure).toBe(true);
  });
});
