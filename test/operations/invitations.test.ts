import { afterAll, beforeAll, expect, it } from 'vitest';
import { acceptInvitation, findInvitation, INVITATION_TTL_MS, inviteOperator, listInvitations, withdrawInvitation } from '../../src/domain/operators/invitations.ts';
import { signIn } from '../../src/domain/operators/sign-in.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { createTestApp, describeEachBackend, itOnPostgres, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { newOperator } from '../support/web.ts';

const LINK = /https?:\/\/\S+\/dashboard\/join\/[A-Za-z0-9_-]{20,}/;
const tokenOf = (link: string) => link.slice(link.lastIndexOf('/') + 1);

/**
 * Issue 27 §5: operators join by invitation. The mail goes through a real SMTP server on loopback;
 * the test reads the message as the invitee would and follows its link.
 */
describeEachBackend('operator invitations', (backend) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let ws: TestWorkspace;
  let adminId: string;
  const clock = new ManualClock('2026-06-15T12:00:00.000Z');
  const invite = (email: string, role: 'admin' | 'reviewer' = 'reviewer') =>
    inviteOperator(t.ctx, { orgId: ws.orgId, invitedBy: adminId, email, role, orgName: 'Acme Lending' });

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp(backend, { clock, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Dossier <dossier@acme.example>', BASE_URL: 'https://dossier.acme.example' } });
    ws = await t.workspace({ name: 'Acme Lending' });
    adminId = (await newOperator(t, ws.orgId, 'admin')).operator_id;
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('mails a one-time link; the invitee follows it, chooses a password and signs in with it', async () => {
    clock.set('2026-06-15T12:00:00.000Z');
    const invited = await invite('jane.doe@acme.example');
    expect(invited.ok && invited.value.delivery).toBe('mailed');
    const mail = await smtp.next();
    expect(mail.to).toEqual(['jane.doe@acme.example']);
    expect(mail.from).toBe('dossier@acme.example');
    expect(mail.raw).toMatch(/^Subject: You are invited to Acme Lending on Dossier/m);
    expect(mail.text).toContain('as a reviewer');
    const link = LINK.exec(mail.text)?.[0];
    expect(link).toBe(invited.ok ? invited.value.link : 'no link');
    expect(link!.startsWith('https://dossier.acme.example/dashboard/join/')).toBe(true);

    const found = await findInvitation(t.ctx, { token: tokenOf(link!) });
    expect(found).toMatchObject({ kind: 'open', email: 'jane.doe@acme.example', role: 'reviewer', orgName: 'Acme Lending' });
    expect((await listInvitations(t.ctx, { orgId: ws.orgId })).map((i) => i.email)).toContain('jane.doe@acme.example');

    const accepted = await acceptInvitation(t.ctx, { token: tokenOf(link!), password: 'a password of her own' });
    expect(accepted).toMatchObject({ kind: 'accepted', operator: { email: 'jane.doe@acme.example', role: 'reviewer', org_id: ws.orgId } });
    const signedIn = await signIn(t.ctx, { email: 'jane.doe@acme.example', password: 'a password of her own', clientAddress: '127.0.0.1' });
    expect(signedIn.kind).toBe('signed_in');

    // The link works once; the invitation leaves the open list.
    expect(await acceptInvitation(t.ctx, { token: tokenOf(link!), password: 'another password again' })).toEqual({ kind: 'no_longer_open', why: 'accepted' });
    expect(await findInvitation(t.ctx, { token: tokenOf(link!) })).toEqual({ kind: 'accepted' });
    expect((await listInvitations(t.ctx, { orgId: ws.orgId })).map((i) => i.email)).not.toContain('jane.doe@acme.example');
  });

  it('refuses a short password without using the link up', async () => {
    clock.set('2026-06-15T12:10:00.000Z');
    const invited = await invite('short@acme.example');
    await smtp.next();
    const token = tokenOf(invited.ok ? invited.value.link : '');
    expect(await acceptInvitation(t.ctx, { token, password: 'short' })).toMatchObject({ kind: 'invalid_password', message: expect.stringContaining('at least 12') });
    expect((await findInvitation(t.ctx, { token })).kind).toBe('open');
  });

  it('expires after 72 hours', async () => {
    clock.set('2026-06-15T12:20:00.000Z');
    const invited = await invite('late@acme.example');
    await smtp.next();
    const token = tokenOf(invited.ok ? invited.value.link : '');
    clock.advance(INVITATION_TTL_MS - 1000);
    expect((await findInvitation(t.ctx, { token })).kind).toBe('open');
    clock.advance(1000);
    expect(await findInvitation(t.ctx, { token })).toEqual({ kind: 'expired' });
    expect(await acceptInvitation(t.ctx, { token, password: 'a long enough password' })).toEqual({ kind: 'no_longer_open', why: 'expired' });
    expect((await listInvitations(t.ctx, { orgId: ws.orgId })).find((i) => i.email === 'late@acme.example')?.expired).toBe(true);
  });

  it('a second invitation to one address replaces the first; a withdrawn link no longer works', async () => {
    clock.set('2026-06-18T13:00:00.000Z');
    const first = await invite('twice@acme.example');
    const second = await invite('twice@acme.example', 'admin');
    await smtp.next();
    await smtp.next();
    const firstToken = tokenOf(first.ok ? first.value.link : '');
    const secondToken = tokenOf(second.ok ? second.value.link : '');
    expect(await findInvitation(t.ctx, { token: firstToken })).toEqual({ kind: 'withdrawn' });
    expect(await findInvitation(t.ctx, { token: secondToken })).toMatchObject({ kind: 'open', role: 'admin' });
    expect((await listInvitations(t.ctx, { orgId: ws.orgId })).filter((i) => i.email === 'twice@acme.example')).toHaveLength(1);

    const withdrawn = await withdrawInvitation(t.ctx, { orgId: ws.orgId, invitationId: second.ok ? second.value.invitation.invitation_id : '' });
    expect(withdrawn.ok).toBe(true);
    expect(await acceptInvitation(t.ctx, { token: secondToken, password: 'a long enough password' })).toEqual({ kind: 'no_longer_open', why: 'withdrawn' });
    // Another workspace cannot withdraw it (it names nothing there).
    const other = await t.workspace({ name: 'Other' });
    expect((await withdrawInvitation(t.ctx, { orgId: other.orgId, invitationId: 'inv_nope' })).ok).toBe(false);
  });

  it('refuses an address that already has an operator, in the words used for adding one', async () => {
    clock.set('2026-06-18T14:00:00.000Z');
    const taken = await newOperator(t, ws.orgId, 'reviewer');
    const invited = await invite(taken.email);
    expect(invited.ok).toBe(false);
    expect(!invited.ok && invited.message).toMatch(/cannot be used for a new operator/);
    expect(await findInvitation(t.ctx, { token: 'not-a-token' })).toEqual({ kind: 'unknown' });
  });

  itOnPostgres(backend, 'two submissions of one link at once make one operator', async () => {
    clock.set('2026-06-18T15:00:00.000Z');
    const invited = await invite('race@acme.example');
    await smtp.next();
    const token = tokenOf(invited.ok ? invited.value.link : '');
    const outcomes = await Promise.all([1, 2, 3].map(() => acceptInvitation(t.ctx, { token, password: 'a long enough password' })));
    expect(outcomes.filter((o) => o.kind === 'accepted')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'no_longer_open')).toHaveLength(2);
  });
});

describeEachBackend('operator invitations without a working mail server', (backend) => {
  it('keeps the invitation and hands the link to the admin when SMTP_URL is unset or the server refuses', async () => {
    const refusing = await startSmtpServer({ refuse: true });
    const envs: Record<string, string>[] = [{}, { SMTP_URL: refusing.url }];
    for (const env of envs) {
      const t = await createTestApp(backend, { env });
      try {
        const ws = await t.workspace();
        const admin = await newOperator(t, ws.orgId, 'admin');
        const invited = await inviteOperator(t.ctx, { orgId: ws.orgId, invitedBy: admin.operator_id, email: 'someone@acme.example', role: 'reviewer', orgName: 'Test workspace' });
        expect(invited.ok && invited.value.delivery).toBe('SMTP_URL' in env ? 'mail_failed' : 'no_mailer');
        const token = tokenOf(invited.ok ? invited.value.link : '');
        expect((await findInvitation(t.ctx, { token })).kind).toBe('open');
      } finally {
        await t.close();
      }
    }
    await refusing.close();
  });
});
