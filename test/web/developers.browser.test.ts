import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { createTestApp, until, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, screenshot, type TestBrowser, type ViewportName } from '../support/browser.ts';
import { newOperator } from '../support/web.ts';

/** Checks a page state as the UI guide asks: axe clean, no sideways scrolling, and a screenshot to look at. */
async function check(page: Page, state: string, viewport: ViewportName): Promise<void> {
  await expectAccessible(page, `${state} (${viewport})`);
  await expectNoHorizontalScroll(page, `${state} (${viewport})`);
  await screenshot(page, `developers-${state}-${viewport}`);
}

describeInBrowser('developer settings in a browser', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let browser: TestBrowser;
  let origin: string;
  beforeAll(async () => {
    t = await createTestApp('embedded', { env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true', WEBHOOK_RETRY_DELAYS: '1,1,1,1' } });
    ws = await t.workspace({ name: 'Acme Lending' });
    origin = await listen(t);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedIn(viewport: ViewportName, role: 'admin' | 'reviewer' = 'admin'): Promise<{ context: BrowserContext; page: Page }> {
    const op = await newOperator(t, ws.orgId, role);
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

  for (const viewport of ['phone', 'desktop'] as const satisfies readonly ViewportName[]) {
    it(`creates an API key, calls the API with it, and revokes it (${viewport})`, async () => {
      const { context, page } = await signedIn(viewport);
      await page.goto(`${origin}/dashboard/developers/keys`);
      await check(page, 'keys', viewport);

      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
      await check(page, 'keys-errors', viewport);

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
      await check(page, 'keys-created', viewport);

      const call = () => fetch(`${origin}/api/v1/cases`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
      expect(await call()).toBe(200);

      await page.getByRole('link', { name: `Revoke ${name}` }).click();
      await page.getByRole('heading', { name: `Revoke “${name}”?` }).waitFor();
      await check(page, 'keys-revoke-confirm', viewport);
      await page.getByRole('button', { name: 'Revoke key' }).click();
      await page.getByText(`The key “${name}” is revoked.`).waitFor();
      const started = Date.now();
      await until(async () => (await call()) === 401, 5_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      await check(page, 'keys-revoked', viewport);
      await context.close();
    });
  }
});
