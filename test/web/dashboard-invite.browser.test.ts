import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, screenshot, type TestBrowser } from '../support/browser.ts';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp.ts';
import { newOperator } from '../support/web.ts';
import { systemClock } from '../../src/ports/clock.ts';

/**
 * Issue 27 §5, as people do it: an admin invites a colleague from the account page; the
 * invitation arrives by mail (a real SMTP server on loopback); the colleague opens the link on
 * their phone, chooses a password, lands in the console, and later signs in with that password.
 */
describeInBrowser('operator invitations in a browser', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let smtp: TestSmtpServer;
  let browser: TestBrowser;
  let origin: string;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp('embedded', { clock: systemClock, env: { SMTP_URL: smtp.url, MAIL_FROM: 'Acme Dossier <dossier@acme.example>' } });
    ws = await t.workspace({ name: 'Acme Lending' });
    origin = await listen(t);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('an invitation mailed, followed and used to sign in', async () => {
    const admin = await newOperator(t, ws.orgId, 'admin');
    const adminContext = await newContext(browser, { viewport: 'desktop' });
    const page = await adminContext.newPage();
    await page.goto(`${origin}/dashboard/login`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    await page.goto(`${origin}/dashboard/developers/account`);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    await expectAccessible(page, 'invite errors (desktop)');
    await page.getByLabel('Email address').fill('sam.reviewer@acme.example');
    await page.getByLabel('Reviewer').check();
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText('Invitation sent to').waitFor();
    await expect(page.getByRole('table', { name: 'Invitations not yet accepted' }).getByRole('rowheader', { name: 'sam.reviewer@acme.example' }).count()).resolves.toBe(1);
    await expectAccessible(page, 'invitation sent (desktop)');
    await expectNoHorizontalScroll(page, 'invitation sent (desktop)');
    await screenshot(page, 'dashboard-invitation-sent-desktop');

    const mail = await smtp.next();
    expect(mail.to).toEqual(['sam.reviewer@acme.example']);
    expect(mail.raw).toMatch(/^Subject: You are invited to Acme Lending on Dossier/m);
    const link = /https?:\/\/\S+\/dashboard\/join\/[A-Za-z0-9_-]+/.exec(mail.text)?.[0];
    expect(link).toBeDefined();

    // The invitee, on their phone, with nothing but the mail.
    const phone = await newContext(browser, { viewport: 'phone' });
    const invitee = await phone.newPage();
    await invitee.goto(`${origin}${new URL(link!).pathname}`);
    await invitee.getByRole('heading', { name: 'Join Acme Lending on Dossier' }).waitFor();
    expect(await invitee.getByLabel('Email').inputValue()).toBe('sam.reviewer@acme.example');
    await expectAccessible(invitee, 'join (phone)');
    await expectNoHorizontalScroll(invitee, 'join (phone)');
    await screenshot(invitee, 'dashboard-join-phone');
    await invitee.getByLabel('Choose a password').fill('short');
    await invitee.getByRole('button', { name: 'Set password and sign in' }).click();
    await invitee.getByRole('heading', { name: 'There is a problem' }).waitFor();
    await expectAccessible(invitee, 'join errors (phone)');
    await invitee.getByLabel('Choose a password').fill('sunlight over the harbour');
    await invitee.getByRole('button', { name: 'Set password and sign in' }).click();
    await invitee.getByRole('heading', { name: 'Overview' }).waitFor();

    // Signed out, the new password signs them in; the link does not work a second time.
    await invitee.getByRole('button', { name: 'Sign out' }).click();
    await invitee.getByRole('heading', { name: 'Sign in to Dossier' }).waitFor();
    await invitee.getByLabel('Email').fill('sam.reviewer@acme.example');
    await invitee.getByLabel('Password').fill('sunlight over the harbour');
    await invitee.getByRole('button', { name: 'Sign in' }).click();
    await invitee.getByRole('heading', { name: 'Overview' }).waitFor();
    await invitee.goto(`${origin}${new URL(link!).pathname}`);
    await invitee.getByRole('heading', { name: 'This invitation has been used' }).waitFor();

    // The admin's list no longer holds it.
    await page.reload();
    await expect(page.getByRole('table', { name: 'Invitations not yet accepted' }).count()).resolves.toBe(0);
    await expect(page.getByRole('table', { name: 'Operators of this workspace' }).getByRole('rowheader', { name: 'sam.reviewer@acme.example' }).count()).resolves.toBe(1);
    await phone.close();
    await adminContext.close();
  }, 120_000);
});
