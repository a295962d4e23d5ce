import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADD_OPERATOR_ATTEMPTS_PER_MINUTE, EMAIL_NOT_AVAILABLE } from '../../src/domain/operators/operators.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { dashboardAgent, type DashboardAgent } from '../support/dashboard-agent.ts';
import { newOperator } from '../support/web.ts';

/**
 * Issue 23 §5: adding an operator whose email belongs to another workspace said "already exists",
 * so any admin could probe every workspace's operators. The refusal now reads the same whoever
 * holds the address, and a workspace may try only a few additions a minute.
 */
describeEachBackend('dashboard: adding an operator reveals nothing about other workspaces', (backend) => {
  let t: TestApp;
  let ws: TestWorkspace;
  let admin: DashboardAgent;
  let adminEmail: string;
  let elsewhere: string;
  const clock = new ManualClock('2026-06-15T12:00:05.000Z');
  const ACCOUNT = '/dashboard/developers/account';
  const INVITATIONS = `${ACCOUNT}/invitations`;
  beforeAll(async () => {
    t = await createTestApp(backend, { clock });
    ws = await t.workspace({ name: 'Acme Lending' });
    const op = await newOperator(t, ws.orgId, 'admin');
    adminEmail = op.email;
    admin = await dashboardAgent(t, op.email, op.password);
    const other = await t.workspace({ name: 'Other Co' });
    elsewhere = (await newOperator(t, other.orgId, 'reviewer', 'someone@other.example')).email;
  });
  afterAll(() => t.close());

  const add = async (email: string) => admin.post(INVITATIONS, { email, role: 'reviewer' }, (await admin.get(ACCOUNT)).body);

  it('regression: refuses an email of another workspace with the same words as one of its own, never "already exists"', async () => {
    clock.set('2026-06-15T12:00:05.000Z');
    const foreign = await add(elsewhere);
    const own = await add(adminEmail);
    for (const res of [foreign, own]) {
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain(EMAIL_NOT_AVAILABLE);
      expect(res.body).not.toMatch(/already exists/i);
    }
    // The error summary and the field's message are the same, word for word.
    const problems = (body: string) => [...body.matchAll(/<ul class="error-summary__list">(.*?)<\/ul>|<p id="invite-email-error"[^>]*>(.*?)<\/p>/g)].map((m) => m[0]);
    expect(problems(foreign.body)).toHaveLength(2);
    expect(problems(foreign.body)).toEqual(problems(own.body));
    expect(await t.ctx.db.selectFrom('operators').select('org_id').where('email', '=', elsewhere).execute()).toHaveLength(1);
  });

  it(`regression: allows ${ADD_OPERATOR_ATTEMPTS_PER_MINUTE} attempts a minute per workspace, then answers 429 until the next minute`, async () => {
    clock.set('2026-06-15T12:05:05.000Z');
    for (let i = 0; i < ADD_OPERATOR_ATTEMPTS_PER_MINUTE; i++) expect((await add(elsewhere)).statusCode).toBe(400);
    const limited = await add('new.person@example.com');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(limited.body).toContain('Wait a minute and try again');
    expect(await t.ctx.db.selectFrom('operator_invitations').select('email').where('email', '=', 'new.person@example.com').execute()).toEqual([]);
    clock.advance(60_000);
    const added = await add('new.person@example.com');
    expect(added.statusCode).toBe(303);
    expect((await admin.follow(added)).body).toContain('Invitation for new.person@example.com created');
  });
});
