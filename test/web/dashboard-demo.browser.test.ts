import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createTestApp, until, type TestApp } from '../support/harness.ts';
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, screenshot, type TestBrowser } from '../support/browser.ts';
import { addEndpoint, startDeliveries, startReceiver, verifySignatures, type Receiver, type RunningDeliveries } from '../webhooks/fixtures.ts';
import { drainCaseJobs } from '../engine/engine-fixtures.ts';
import { describeDemo } from '../../src/cli/commands/demo.ts';
import { ensureDemoWorkspace } from '../../src/domain/demo/demo-workspace.ts';
import { systemClock } from '../../src/ports/clock.ts';

/**
 * Issue 11 "Done when", with what `dossier demo` prints: a person signs in, finds the demo case
 * in the queue, checks each fact against the outlined document and approves it, and the
 * customer's receiver gets the handoff. Then, on a phone, every wide table of the case page and
 * of developer settings is a stack of cards rather than a sideways scroll.
 */
describeInBrowser('the demo case in a browser', () => {
  let t: TestApp;
  let browser: TestBrowser;
  let origin: string;
  let receiver: Receiver;
  let deliveries: RunningDeliveries;
  let secret: string;
  let demo: Awaited<ReturnType<typeof describeDemo>>;

  beforeAll(async () => {
    t = await createTestApp('embedded', { clock: systemClock, env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    receiver = await startReceiver();
    // The customer registers a receiver in the demo workspace, then runs the demo.
    const workspace = await ensureDemoWorkspace(t.ctx);
    secret = (await addEndpoint(t.ctx, workspace.org_id, receiver.url, ['*'])).signing_secret;
    demo = await describeDemo(t.ctx);
    await drainCaseJobs(t);
    deliveries = startDeliveries(t.ctx, 'embedded', { pollMs: 100 });
    origin = await listen(t);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await deliveries?.stop();
    await receiver?.close();
    await t?.close();
  });

  async function signIn(page: Page) {
    await page.goto(`${origin}/dashboard/login`);
    await page.getByLabel('Email').fill(demo.dashboard.email);
    await page.getByLabel('Password').fill(String(demo.dashboard.password));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }

  it('signs in with the printed credentials, finds the demo case, checks each fact and approves it; the receiver gets the signed handoff', async () => {
    const context = await newContext(browser, { viewport: 'desktop' });
    const page = await context.newPage();
    await signIn(page);
    await page.getByRole('link', { name: 'Cases' }).click();
    await page.getByRole('link', { name: String(demo.demo_case_id) }).click();
    await page.getByRole('heading', { name: 'Case DEMO-LOAN-0001' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(new URL(String(demo.dashboard.case_url)).pathname);
    for (const [fact, quote] of [['Employee name', 'Jane Doe'], ['Employer', 'Northwind Logistics LLC'], ['Gross pay', '$2,451.00']] as const) {
      await page.getByRole('link', { name: `Show evidence for ${fact}` }).or(page.getByRole('link', { name: `Showing evidence for ${fact}` })).click();
      await page.getByRole('heading', { name: `Evidence for ${fact}` }).waitFor();
      expect(await page.locator('mark.quote').textContent()).toBe(quote);
      expect(await page.locator('[data-evidence-box]').count()).toBe(1);
      await expectAccessible(page, `demo case, ${fact}`);
    }
    await screenshot(page, 'demo-case-desktop');
    // Approving needs no reason (issue 27 §4).
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText(/approved/i).first().waitFor();
    const handoff = await until(() => receiver.requests.find((r) => {
      const body = JSON.parse(r.rawBody) as { event_type?: string; case_id?: string };
      return body.event_type === 'v1.case.completed' && body.case_id === demo.demo_case_id;
    }), 30_000);
    verifySignatures(handoff, secret);
    await context.close();
  }, 120_000);

  it('stacks the wide tables of the case page and of developer settings into cards at 390 px', async () => {
    const context = await newContext(browser, { viewport: 'phone' });
    const page = await context.newPage();
    await signIn(page);
    const endpoint = await t.ctx.db.selectFrom('webhook_endpoints').select('endpoint_id').where('org_id', '=', demo.org_id).executeTakeFirstOrThrow();
    const delivery = await until(() => t.ctx.db.selectFrom('webhook_deliveries').select('delivery_id').where('endpoint_id', '=', endpoint.endpoint_id).where('attempt_count', '>', 0).executeTakeFirst(), 30_000);
    const pages: [string, string][] = [
      ['case', String(demo.dashboard.case_url).replace(/^https?:\/\/[^/]+/, '')],
      ['keys', '/dashboard/developers/keys'],
      ['webhooks', '/dashboard/developers/webhooks'],
      ['endpoint', `/dashboard/developers/webhooks/${endpoint.endpoint_id}`],
      ['delivery', `/dashboard/developers/webhooks/${endpoint.endpoint_id}/deliveries/${delivery.delivery_id}`],
      ['account', '/dashboard/developers/account'],
      ['case-types', '/dashboard/developers/case-types'],
      ['case-type', '/dashboard/developers/case-types/income_verification'],
    ];
    for (const [name, path] of pages) {
      await page.goto(`${origin}${path}`);
      const tables = await page.evaluate(() =>
        [...document.querySelectorAll('.table-wrap')].map((wrap) => ({
          sideways: wrap.scrollWidth - wrap.clientWidth,
          rows: [...wrap.querySelectorAll('tbody tr')].map((tr) => getComputedStyle(tr).display),
          headerShown: (wrap.querySelector('thead')?.getBoundingClientRect().height ?? 0) > 1,
        })),
      );
      expect(tables.length, `${name}: a table`).toBeGreaterThan(0);
      for (const table of tables) {
        expect(table.sideways, `${name}: a table scrolls sideways`).toBeLessThanOrEqual(0);
        expect(table.rows.every((d) => d === 'block'), `${name}: rows are cards`).toBe(true);
        expect(table.headerShown, `${name}: the header row is hidden`).toBe(false);
      }
      await expectAccessible(page, `${name} (phone)`);
      await expectNoHorizontalScroll(page, `${name} (phone)`);
      await screenshot(page, `phone-tables-${name}`);
    }
    await context.close();
  }, 180_000);
});
