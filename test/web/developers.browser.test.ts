import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { createTestApp, until, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { atBothWidths, describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, screenshot, type TestBrowser, type ViewportName } from '../support/browser.ts';
import { newOperator } from '../support/web.ts';
import { incomeVerification } from '../support/fixtures.ts';
import { createOrg } from '../../src/domain/orgs/orgs.ts';
import { putCaseType } from '../../src/domain/case-types/case-types.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { caseEvent, enqueue, insertCase, startDeliveries, startReceiver, verifySignatures, type Receiver, type RunningDeliveries } from '../webhooks/fixtures.ts';

/**
 * Checks a page state as the UI guide asks, at both widths whichever the flow walks at: axe clean,
 * no sideways scrolling, and a screenshot to look at.
 */
async function check(page: Page, state: string): Promise<void> {
  await atBothWidths(page, async (viewport) => {
    await expectAccessible(page, `${state} (${viewport})`);
    await expectNoHorizontalScroll(page, `${state} (${viewport})`);
    await screenshot(page, `developers-${state}-${viewport}`);
  });
}

describeInBrowser('developer settings in a browser', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let browser: TestBrowser;
  let origin: string;
  let receiver: Receiver;
  let deliveries: RunningDeliveries;
  beforeAll(async () => {
    // A real clock: retries become due as time passes, and Stripe's verifier checks the timestamp against it.
    t = await createTestApp('embedded', { clock: systemClock, env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true', WEBHOOK_RETRY_DELAYS: '1,1,1,1' } });
    ws = await t.workspace({ name: 'Acme Lending' });
    origin = await listen(t);
    browser = await launchBrowser();
    receiver = await startReceiver();
    deliveries = startDeliveries(t.ctx, 'embedded', { pollMs: 100 });
  });
  afterAll(async () => {
    await deliveries?.stop();
    await receiver?.close();
    await browser?.close();
    await t?.close();
  });

  async function signedIn(viewport: ViewportName, role: 'admin' | 'reviewer' = 'admin', orgId = ws.orgId): Promise<{ context: BrowserContext; page: Page }> {
    const op = await newOperator(t, orgId, role);
    const context = await newContext(browser, { viewport });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const page = await context.newPage();
    await page.goto(`${origin}/dashboard/login`);
    await page.getByLabel('Email').fill(op.email);
    await page.getByLabel('Password').fill(op.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    return { context, page };
  }

  // Walked once, at one width; each state is checked at both (issue 24 §7).
  {
    const viewport: ViewportName = 'phone';
    it(`creates an API key, calls the API with it, and revokes it (${viewport})`, async () => {
      const { context, page } = await signedIn(viewport);
      await page.goto(`${origin}/dashboard/developers/keys`);
      await check(page, 'keys');

      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
      await check(page, 'keys-errors');

      const name = `Backend ${viewport}`;
      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByLabel('cases:read').check();
      await page.getByLabel('sessions:write').check();
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByText('will not be shown again').waitFor();
      const key = (await page.locator('#new-key').textContent())!.trim();
      expect(key).toMatch(/^sk_test_/);
      await page.getByRole('button', { name: 'Copy key' }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
      await check(page, 'keys-created');

      const call = () => fetch(`${origin}/api/v1/cases`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
      expect(await call()).toBe(200);

      await page.getByRole('link', { name: `Revoke ${name}` }).click();
      await page.getByRole('heading', { name: `Revoke “${name}”?` }).waitFor();
      await check(page, 'keys-revoke-confirm');
      await page.getByRole('button', { name: 'Revoke key' }).click();
      await page.getByText(`The key “${name}” is revoked.`).waitFor();
      const started = Date.now();
      await until(async () => (await call()) === 401, 5_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      await check(page, 'keys-revoked');
      await context.close();
    }, 60_000);
  }

  // Walked once, at one width; each state is checked at both (issue 24 §7).
  {
    const viewport: ViewportName = 'desktop';
    it(`adds an endpoint, sends a verified test event, watches failed attempts and retries one (${viewport})`, async () => {
      receiver.respond(() => ({ status: 200, body: 'ok' }));
      const { context, page } = await signedIn(viewport);
      await page.goto(`${origin}/dashboard/developers/webhooks`);
      await check(page, 'webhooks');

      const url = `${receiver.url}?viewport=${viewport}`;
      await page.getByLabel('Endpoint URL').fill(url);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
      expect(await page.getByLabel('Endpoint URL').inputValue()).toBe(url);
      await check(page, 'webhooks-errors');
      await page.getByLabel('All events').check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByText('Endpoint added: its signing secret').waitFor();
      const secret = (await page.locator('#signing-secret').textContent())!.trim();
      expect(secret).toMatch(/^whsec_/);
      await check(page, 'endpoint-secret');
      const endpointUrl = page.url();
      await page.goto(endpointUrl);
      expect(await page.locator('#signing-secret').count(), 'the secret is shown once').toBe(0);

      const before = receiver.requests.length;
      await page.getByRole('button', { name: 'Send test event' }).click();
      await page.getByText('Test event delivered').waitFor();
      await check(page, 'endpoint-test-sent');
      const test = receiver.requests[before]!;
      expect(JSON.parse(test.rawBody).event_type).toBe('v1.webhook.test');
      verifySignatures(test, secret);

      // The receiver fails: five attempts one second apart, then the delivery is failed.
      receiver.respond(() => ({ status: 500, body: 'receiver is down' }));
      const endpointId = endpointUrl.split('/').pop()!;
      const caseId = await insertCase(t.ctx, ws.orgId);
      await enqueue(t.ctx, caseEvent(ws.orgId, caseId));
      // Other tests' endpoints are subscribed too: take this endpoint's delivery.
      const { delivery_id: deliveryId } = await t.ctx.db
        .selectFrom('webhook_deliveries')
        .select('delivery_id')
        .where('endpoint_id', '=', endpointId)
        .where('case_id', '=', caseId)
        .executeTakeFirstOrThrow();
      await until(async () => {
        await page.goto(`${endpointUrl}?status=failed`);
        return (await page.getByRole('link', { name: new RegExp(`delivery ${deliveryId}`) }).count()) > 0;
      }, 20_000, 500);
      await check(page, 'delivery-log-failed');
      await page.getByLabel('Case id').fill(caseId);
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByRole('link', { name: new RegExp(`delivery ${deliveryId}`) }).click();
      await page.getByRole('heading', { name: /^Delivery/ }).waitFor();
      expect(await page.getByRole('table', { name: 'Attempts, oldest first' }).getByRole('row').count()).toBe(6);
      expect(await page.getByText('receiver is down').count()).toBeGreaterThan(0);
      // The body indented for reading, and byte for byte as sent (compact JSON) in its details (issue 27 §6).
      expect(await page.locator('pre.request-body').textContent()).toContain(`\n  "delivery_id": "${deliveryId}",\n`);
      expect(await page.locator('#raw-body').inputValue()).toContain(`"delivery_id":"${deliveryId}"`);
      await check(page, 'delivery-detail-failed');

      receiver.respond(() => ({ status: 200, body: 'ok' }));
      await page.getByRole('button', { name: 'Retry delivery' }).click();
      await page.getByText('The delivery is queued again.').waitFor();
      await until(async () => {
        await page.reload();
        return (await page.getByText('Delivered', { exact: true }).count()) > 0;
      }, 10_000, 300);
      await check(page, 'delivery-detail-retried');
      expect(endpointId).toMatch(/^ep_/);

      await page.goto(endpointUrl);
      await page.getByRole('link', { name: 'Rotate secret' }).click();
      await check(page, 'endpoint-rotate-confirm');
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      await page.getByText('The new signing secret').waitFor();
      const rotated = (await page.locator('#signing-secret').textContent())!.trim();
      expect(rotated).not.toBe(secret);
      page.once('dialog', (d) => void d.accept());
      await page.getByRole('button', { name: 'Disable endpoint' }).click();
      await page.getByText('The endpoint is disabled').waitFor();
      await check(page, 'endpoint-disabled');
      await page.getByRole('button', { name: 'Enable endpoint' }).click();
      await page.getByText('The endpoint is enabled.').waitFor();
      await context.close();
    }, 120_000);
  }

  for (const viewport of ['phone', 'desktop'] as const satisfies readonly ViewportName[]) {
    it(`renders the API reference from the local bundle with no CSP violation (${viewport})`, async () => {
      const context = await newContext(browser, { viewport });
      const page = await context.newPage();
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      const consoleErrors: string[] = [];
      page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
      await page.addInitScript(() => {
        (window as unknown as { __violations: string[] }).__violations = [];
        document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { __violations: string[] }).__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
      });
      const res = await page.goto(`${origin}/docs`);
      expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
      await page.getByRole('heading', { name: /Send a signed test webhook/ }).first().waitFor({ timeout: 20_000 });
      expect(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)).toEqual([]);
      expect(consoleErrors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
      // The search worker is a blob: URL of this origin: local, nothing fetched from elsewhere.
      const local = (u: string) => u.startsWith(origin) || u.startsWith(`blob:${origin}/`);
      expect(requests.every(local), requests.filter((u) => !local(u)).join(', ')).toBe(true);
      // The way back, search (its worker is a blob: URL the page's policy allows), and copyable samples.
      expect(await page.getByRole('banner').getByRole('link', { name: 'Back to the dashboard' }).getAttribute('href')).toBe('/dashboard');
      if (viewport === 'desktop') {
        // On a phone the search box sits in Redoc's closed menu.
        await page.getByPlaceholder('Search...').fill('acknowledge');
        await page.getByRole('menuitem', { name: /Acknowledge a decision-ready handoff/ }).first().waitFor({ timeout: 10_000 });
        await page.getByPlaceholder('Search...').fill('');
      }
      expect(await page.getByRole('tab', { name: 'TypeScript (@dossier/client)' }).count()).toBeGreaterThan(20);
      expect(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)).toEqual([]);
      await screenshot(page, `developers-api-reference-${viewport}`, { firstScreen: true });
      await context.close();
    }, 60_000);
  }

  // Walked once, at one width; each state is checked at both (issue 24 §7).
  {
    const viewport: ViewportName = 'phone';
    it(`shows case type problems at their JSON paths, accepts the terms for a live session, and reads notifications (${viewport})`, async () => {
      const org = await createOrg(t.ctx, { name: `Terms ${viewport}`, billing: 'active' });
      for (const environment of ['test', 'live'] as const) await putCaseType(t.ctx, { orgId: org.org_id, environment, definition: incomeVerification });
      const { context, page } = await signedIn(viewport, 'admin', org.org_id);
      await page.goto(`${origin}/dashboard/developers/case-types`);
      await check(page, 'case-types');
      const broken = { ...structuredClone(incomeVerification), case_type_id: 'Not An Id', facts: 'none' };
      await page.getByLabel('The case type as JSON').fill(JSON.stringify(broken));
      await page.getByRole('button', { name: 'Upload case type' }).click();
      await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
      expect(await page.locator('.problems code').allTextContents()).toEqual(expect.arrayContaining(['$.case_type_id', '$.facts']));
      await check(page, 'case-types-problems');
      await page.goto(`${origin}/dashboard/developers/case-types/income_verification`);
      await page.getByText(/^Why: /).first().waitFor();
      await check(page, 'case-type-view');

      const live = await t.createKey(org.org_id, { environment: 'live' });
      const createLive = () =>
        fetch(`${origin}/api/v1/sessions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${live.key}`, 'content-type': 'application/json', 'idempotency-key': `live-${viewport}-${Date.now()}` },
          body: JSON.stringify({ case_type_id: 'income_verification' }),
        });
      const refused = await createLive();
      expect(refused.status).toBe(428);
      expect((await refused.json()).error.code).toBe('legal_acceptance_required');
      await page.goto(`${origin}/dashboard/developers/account`);
      await check(page, 'account');
      await page.getByRole('button', { name: 'Accept terms' }).click();
      await page.getByText('You accepted the legal terms').waitFor();
      await check(page, 'account-terms-accepted');
      expect((await createLive()).status).toBe(201);

      await t.ctx.db
        .insertInto('integration_notifications')
        .values({ notification_id: `ntf_browser_${viewport}`, org_id: org.org_id, environment: 'test', kind: 'webhook_no_endpoint', message: 'case.completed had no endpoint to go to.', data: '{}', created_at: new Date(), read_at: null })
        .execute();
      await page.goto(`${origin}/dashboard/developers/notifications`);
      await page.getByRole('link', { name: /Notifications\s*1 unread/ }).waitFor();
      await check(page, 'notifications');
      await page.getByRole('button', { name: 'Mark as read' }).click();
      await page.getByText('Read', { exact: true }).waitFor();
      expect(await page.getByText('1 unread').count()).toBe(0);
      await context.close();

      const reviewer = await signedIn(viewport, 'reviewer', org.org_id);
      for (const path of ['keys', 'webhooks', 'notifications', 'case-types', 'account']) {
        const res = await reviewer.page.goto(`${origin}/dashboard/developers/${path}`);
        expect(res?.status(), path).toBe(403);
      }
      await check(reviewer.page, 'reviewer-refused');
      await reviewer.context.close();
    }, 90_000);
  }
});
