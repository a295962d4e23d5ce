import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, screenshot, type TestBrowser, type ViewportName } from '../support/browser.ts';
import { newOperator } from '../support/web.ts';

describeInBrowser('dashboard sign-in in a browser', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let browser: TestBrowser;
  let origin: string;
  beforeAll(async () => {
    t = await createTestApp('embedded');
    ws = await t.workspace({ name: 'Acme Lending' });
    origin = await listen(t);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const viewport of ['phone', 'desktop'] as const satisfies readonly ViewportName[]) {
    it(`signs in, switches to live and signs out (${viewport})`, async () => {
      const op = await newOperator(t, ws.orgId, 'admin');
      const context = await newContext(browser, { viewport });
      const page = await context.newPage();
      await page.goto(`${origin}/dashboard`);
      await expect.poll(() => page.url()).toContain('/dashboard/login');
      await expectAccessible(page, `sign-in (${viewport})`);
      await expectNoHorizontalScroll(page, `sign-in (${viewport})`);
      await screenshot(page, `dashboard-sign-in-${viewport}`);

      await page.getByLabel('Email').fill(op.email);
      await page.getByLabel('Password').fill('this is not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.title()).toBe('Error: Sign in – Dossier');
      // The error summary takes focus, so a screen reader announces it at once.
      await expect.poll(() => page.evaluate(() => document.activeElement?.className)).toBe('error-summary');
      expect(await page.getByLabel('Email').inputValue()).toBe(op.email);
      await expectAccessible(page, `sign-in error (${viewport})`);
      await screenshot(page, `dashboard-sign-in-error-${viewport}`);

      await page.getByLabel('Password').fill(op.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      await expectAccessible(page, `overview (${viewport})`);
      await expectNoHorizontalScroll(page, `overview (${viewport})`);
      await screenshot(page, `dashboard-overview-${viewport}`);

      await page.getByRole('button', { name: 'Live' }).click();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      expect(await page.getByText('Test mode').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Live' }).getAttribute('aria-pressed')).toBe('true');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByText('You have signed out.').waitFor();
      await context.close();
    });
  }

  it('can be worked with the keyboard alone', async () => {
    const op = await newOperator(t, ws.orgId, 'reviewer');
    const context = await newContext(browser, { viewport: 'desktop' });
    const page = await context.newPage();
    await page.goto(`${origin}/dashboard/login`);
    const focused = (p: Page) => p.evaluate(() => document.activeElement?.getAttribute('id') ?? document.activeElement?.textContent?.trim());
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Skip to main content');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('email');
    await page.keyboard.type(op.email);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('password');
    await page.keyboard.type(op.password);
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('Sign in');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    // A reviewer sees no developer settings, and the server refuses them if typed in.
    expect(await page.getByRole('link', { name: 'API keys' }).count()).toBe(0);
    const refused = await page.goto(`${origin}/dashboard/developers`);
    expect(refused?.status()).toBe(403);
    await expectAccessible(page, 'reviewer refused developer settings');
    await screenshot(page, 'dashboard-reviewer-refused-desktop');
    await context.close();
  });
});
