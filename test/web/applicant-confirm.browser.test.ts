import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { applicantBrowserRig } from '../support/applicant-browser-rig.ts';
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, newContext, screenshot } from '../support/browser.ts';
import { newSession } from '../support/fixtures.ts';
import { textPdf } from '../extraction/helpers.ts';
import { readCase } from '../engine/engine-fixtures.ts';

/** Issue 26, item 3 in Chromium: the confirm page at both widths, "Yes", and a change the operator sees. */
describeInBrowser('applicant app in a browser: the applicant confirms what we read', () => {
  const rig = applicantBrowserRig();

  const today = () => rig.t.clock.now().toISOString().slice(0, 10);
  const payStub = () => textPdf([
    { text: 'ACME MANUFACTURING LTD', y: 780 },
    { text: 'Employee name: Jane Doe', y: 740 },
    { text: `Pay date: ${today()}`, y: 720 },
    { text: 'Gross pay: $2,150.00', y: 700 },
  ]);

  async function toConfirm(page: Page, signedUrl: string) {
    const link = new URL(signedUrl);
    await page.goto(`${rig.origin}${link.pathname}${link.search}`);
    await page.getByLabel('Full legal name').fill('Jane Doe');
    await page.getByLabel('Email address').fill('jane@example.com');
    await page.getByLabel('Day', { exact: true }).fill('7');
    await page.getByLabel('Month', { exact: true }).fill('3');
    await page.getByLabel('Year', { exact: true }).fill('1990');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Pay stub: choose a file').setInputFiles({ name: 'paystub.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await payStub()) });
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(/\/confirm\//);
    const heading = page.getByRole('heading', { name: 'We read these from your pay stub' });
    await expect.poll(async () => {
      if (await heading.count()) return true;
      await expectAccessible(page, 'confirm-reading');
      await page.getByRole('button', { name: 'Check again' }).click();
      return (await heading.count()) > 0;
    }, { timeout: 60_000, interval: 500 }).toBe(true);
  }

  for (const viewport of ['phone', 'desktop'] as const) {
    it(`shows each value with a crop of the page, and moves on on "Yes" (${viewport})`, async () => {
      const s = await newSession(rig.t, rig.ws, 'income_verification');
      const context = await newContext(rig.browser, { viewport });
      const page = await context.newPage();
      await toConfirm(page, s.signed_url);
      expect(await page.locator('[data-read-value="gross_pay"]').innerText()).toBe('$2,150.00');
      expect(await page.locator('[data-crop]').count()).toBeGreaterThan(0);
      await page.locator('[data-crop] image').first().evaluate((img) => new Promise((r) => { const i = new Image(); i.onload = r; i.onerror = r; i.src = (img as SVGImageElement).href.baseVal; }));
      await expectAccessible(page, `confirm-${viewport}`);
      await expectNoHorizontalScroll(page, `confirm-${viewport}`);
      await screenshot(page, `applicant-confirm-${viewport}`);

      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('link', { name: /Select yes if the gross pay is right/ }).waitFor();
      await expectAccessible(page, `confirm-error-${viewport}`);
      for (const yes of await page.getByRole('radio', { name: 'Yes' }).all()) await yes.check();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Check your answers before submitting' }).waitFor();
      await context.close();
    }, 180_000);
  }

  it('a change goes to the operator as "changed by the applicant", and the case to review', async () => {
    const s = await newSession(rig.t, rig.ws, 'income_verification');
    const context = await newContext(rig.browser, { viewport: 'desktop' });
    const page = await context.newPage();
    await toConfirm(page, s.signed_url);
    await page.getByRole('radio', { name: 'Yes' }).first().check();
    await page.getByRole('radio', { name: 'Yes' }).nth(1).check();
    await page.getByRole('radio', { name: 'No, change it' }).nth(2).check();
    await page.getByRole('textbox', { name: 'Gross pay' }).fill('2510');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Check your answers before submitting' }).waitFor();
    await page.getByRole('button', { name: /^Submit/ }).click();
    await expect.poll(async () => (await readCase(rig.t, rig.ws, s.case_id)).runtime_status, { timeout: 60_000 }).toBe('ready_for_review');
    const c = await readCase(rig.t, rig.ws, s.case_id);
    expect(c.queue_row.why_here_code).toBe('applicant_corrected_fact');
    expect(c.workspace.facts.find((f: { fact_id: string }) => f.fact_id === 'gross_pay')).toMatchObject({ value: '2510.00', corrected_by: 'applicant' });
    await context.close();
  }, 180_000);
});
