import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { createTestApp, until, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeInBrowser, expectAccessible, launchBrowser, listen, screenshot, type TestBrowser } from '../support/browser.ts';
import { newOperator } from '../support/web.ts';
import { systemClock } from '../../src/ports/clock.ts';
import { SCOPES } from '../../src/domain/keys/scopes.ts';
import { addEndpoint, caseEvent, enqueue, insertCase, startDeliveries, startReceiver, type Receiver, type RunningDeliveries } from '../webhooks/fixtures.ts';

/**
 * Issue 27 §6: every table and every button of the developer settings lies inside its card, at a
 * laptop's 1280×800 and a phone's 390 px, and the page never scrolls sideways. Measured in the
 * browser (bounding boxes), because an overflow is a matter of layout, not of markup.
 */
const SIZES = {
  laptop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
} as const;
type SizeName = keyof typeof SIZES;

/** What sticks out of its card (or out of the page) on the current page: empty when everything fits. */
async function overflows(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > window.innerWidth) problems.push(`the page is ${doc.scrollWidth} px wide in a ${window.innerWidth} px window`);
    // A table wider than its scroll box is partly hidden, even when the box itself fits.
    for (const wrap of document.querySelectorAll('.table-wrap')) {
      if (wrap.scrollWidth > wrap.clientWidth) problems.push(`table "${wrap.querySelector('caption')?.textContent?.trim() ?? ''}" scrolls sideways: ${wrap.scrollWidth} px in ${wrap.clientWidth} px`);
    }
    const cards = [...document.querySelectorAll('.card')];
    for (const card of cards) {
      const box = card.getBoundingClientRect();
      // Tables, buttons, and the links and fields in tables (Revoke is a link).
      for (const el of card.querySelectorAll('table, button, .button, table a, table select, table input')) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue; // hidden (closed details, no script)
        if (r.left < box.left - 0.5 || r.right > box.right + 0.5) {
          const name = el.tagName === 'TABLE' ? `table "${el.querySelector('caption')?.textContent?.trim() ?? ''}"` : `${el.tagName.toLowerCase()} "${el.textContent?.trim().replace(/\s+/g, ' ')}"`;
          problems.push(`${name}: ${Math.round(r.left)}–${Math.round(r.right)} outside its card ${Math.round(box.left)}–${Math.round(box.right)}`);
        }
      }
    }
    return cards.length === 0 ? ['no card on the page'] : problems;
  });
}

describeInBrowser('developer settings tables fit their cards (issue 27 §6)', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let browser: TestBrowser;
  let origin: string;
  let receiver: Receiver;
  let deliveries: RunningDeliveries;
  let endpointId: string;
  let deliveryId: string;
  let rawBody: string;

  beforeAll(async () => {
    t = await createTestApp('embedded', { clock: systemClock, env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    ws = await t.workspace({ name: 'Acme Lending' });
    origin = await listen(t);
    browser = await launchBrowser();
    receiver = await startReceiver();
    // Long names, every scope one by one, long addresses: what makes a table wide.
    await t.createKey(ws.orgId, { name: 'Loan origination backend (production cluster, eu-west-1)', scopes: [...SCOPES], rateLimitPerMinute: 1200, expiresInSeconds: 90 * 86_400 });
    await t.createKey(ws.orgId, { name: 'Reporting', scopes: ['cases:read', 'webhooks:read'] });
    const endpoint = await addEndpoint(t.ctx, ws.orgId, `${receiver.url}/acme-lending/loan-origination/dossier-handoff?tenant=eu-west-1-production`, ['v1.case.completed', 'v1.case.ready_for_review', 'v1.case.needs_input', 'v1.session.expired']);
    endpointId = endpoint.endpoint_id;
    await addEndpoint(t.ctx, ws.orgId, `${receiver.url}/all-events`);
    for (const [i, role] of (['admin', 'reviewer', 'reviewer'] as const).entries()) {
      await newOperator(t, ws.orgId, role, `a.very-long-operator-address-number-${i}@operations.acme-lending-example.co.uk`);
    }
    deliveries = startDeliveries(t.ctx, 'embedded', { pollMs: 100 });
    const caseId = await insertCase(t.ctx, ws.orgId, 'test', { externalCaseId: 'loan-2026-000417' });
    await enqueue(t.ctx, caseEvent(ws.orgId, caseId));
    const row = await until(() =>
      t.ctx.db.selectFrom('webhook_deliveries').select(['delivery_id', 'payload', 'status']).where('endpoint_id', '=', endpointId).where('case_id', '=', caseId).where('status', '=', 'delivered').executeTakeFirst(),
    20_000);
    deliveryId = row.delivery_id;
    rawBody = row.payload;
  }, 90_000);
  afterAll(async () => {
    await deliveries?.stop();
    await receiver?.close();
    await browser?.close();
    await t?.close();
  });

  async function signedIn(size: SizeName, javaScriptEnabled = true): Promise<{ context: BrowserContext; page: Page }> {
    const op = await newOperator(t, ws.orgId, 'admin');
    const context = await browser.browser.newContext({ ...SIZES[size], locale: 'en-GB', javaScriptEnabled });
    if (javaScriptEnabled) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const page = await context.newPage();
    await page.goto(`${origin}/dashboard/login`);
    await page.getByLabel('Email').fill(op.email);
    await page.getByLabel('Password').fill(op.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    return { context, page };
  }

  for (const size of ['laptop', 'phone'] as const) {
    it(`keeps every table and button inside its card on the keys, webhooks, endpoint and account pages (${size})`, async () => {
      const { context, page } = await signedIn(size);
      const pages = {
        keys: '/dashboard/developers/keys',
        webhooks: '/dashboard/developers/webhooks',
        endpoint: `/dashboard/developers/webhooks/${endpointId}`,
        delivery: `/dashboard/developers/webhooks/${endpointId}/deliveries/${deliveryId}`,
        account: '/dashboard/developers/account',
      };
      for (const [name, path] of Object.entries(pages)) {
        await page.goto(`${origin}${path}`);
        await page.locator('main table').first().waitFor();
        expect(await overflows(page), `${name} at ${size}`).toEqual([]);
        await expectAccessible(page, `${name} (${size})`);
        await screenshot(page, `tables-${name}-${size}`);
      }
      // The buttons the issue names, to be sure they were measured.
      await page.goto(`${origin}${pages.account}`);
      expect(await page.getByRole('button', { name: /^Disable a\.very-long/ }).count()).toBeGreaterThan(0);
      await page.goto(`${origin}${pages.endpoint}`);
      expect(await page.getByRole('button', { name: 'Disable endpoint' }).count()).toBe(1);
      await context.close();
    }, 120_000);
  }

  it('copies the raw body as signed with one button, and says so (phone)', async () => {
    const { context, page } = await signedIn('phone');
    await page.goto(`${origin}/dashboard/developers/webhooks/${endpointId}/deliveries/${deliveryId}`);
    // Indented for reading …
    const shown = await page.locator('pre.request-body').textContent();
    expect(shown).toBe(JSON.stringify(JSON.parse(rawBody), null, 2));
    // … and the exact bytes on the clipboard.
    await page.getByRole('button', { name: 'Copy raw body' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(rawBody);
    await expectAccessible(page, 'delivery copied (phone)');
    // DOCS_IMAGES=1 refreshes the pictures the documentation shows.
    if (process.env.DOCS_IMAGES === '1') {
      // A phone's screen each: the body with its copy button, and the keys table as cards.
      await page.getByRole('heading', { name: 'Body', exact: true }).evaluate((h) => h.scrollIntoView());
      await page.screenshot({ path: new URL('../../docs/images/console-delivery-phone.png', import.meta.url).pathname });
      await page.goto(`${origin}/dashboard/developers/keys`);
      await page.getByRole('heading', { name: 'Keys of this workspace' }).evaluate((h) => h.scrollIntoView());
      await page.screenshot({ path: new URL('../../docs/images/console-keys-phone.png', import.meta.url).pathname });
    }
    await context.close();
  }, 60_000);

  it('keeps the raw body reachable without script: in its details, byte for byte', async () => {
    const { context, page } = await signedIn('phone', false);
    await page.goto(`${origin}/dashboard/developers/webhooks/${endpointId}/deliveries/${deliveryId}`);
    expect(await page.getByRole('button', { name: 'Copy raw body' }).count(), 'no button that cannot work').toBe(0);
    await page.getByText('Raw body, as signed').click();
    const raw = page.getByRole('textbox', { name: 'Raw body, as signed' });
    await raw.waitFor();
    expect(await raw.inputValue()).toBe(rawBody);
    expect(await overflows(page)).toEqual([]);
    await context.close();
  }, 60_000);
});
