import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { putCaseType } from '../../src/domain/case-types/case-types.ts';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, pickFilesWithKeyboard, screenshot, type TestBrowser } from '../support/browser.ts';
import { newOperator } from '../support/web.ts';
import { petRenewalCaseType, petRenewalPdf } from '../api/case-type-try-fixtures.ts';

/**
 * Issue 28 §4 as an admin does it, with the keyboard alone: the case type page, Try a document
 * with a sample, the results (found facts on the page image, suggestions for the rest). Axe and
 * no sideways scrolling at both widths.
 */
describeInBrowser('Try a document in a browser', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let browser: TestBrowser;
  let origin: string;
  let sample: string;
  beforeAll(async () => {
    t = await createTestApp('embedded');
    ws = await t.workspace({ name: 'Acme Pets' });
    for (const environment of ['test', 'live'] as const) {
      const put = await putCaseType(t.ctx, { orgId: ws.orgId, environment, definition: petRenewalCaseType({ yearly_premium: ['Premium (yearly)'] }) });
      if (!put.ok) throw new Error(JSON.stringify(put.problems));
    }
    sample = join(mkdtempSync(join(tmpdir(), 'dossier-try-')), 'renewal.pdf');
    writeFileSync(sample, await petRenewalPdf());
    origin = await listen(t);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const viewport of ['phone', 'desktop'] as const) {
    it(`tries a sample with the keyboard alone and reads the results (${viewport})`, async () => {
      const op = await newOperator(t, ws.orgId, 'admin');
      const context = await newContext(browser, { viewport });
      const page = await context.newPage();
      await page.goto(`${origin}/dashboard/login`);
      await page.getByLabel('Email').fill(op.email);
      await page.getByLabel('Password').fill(op.password);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Overview' }).waitFor();

      await page.goto(`${origin}/dashboard/developers/case-types/pet_renewal`);
      await expectAccessible(page, `case type (${viewport})`);
      await page.getByLabel('A sample document').focus();
      const sampleInput = page.getByLabel('A sample document');
      await pickFilesWithKeyboard(page, async () => expect(await sampleInput.evaluate((el) => el === document.activeElement)).toBe(true), sample);
      await page.getByRole('button', { name: 'Try a document' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Try a document', level: 1 }).waitFor({ timeout: 60_000 });
      await page.getByText('Facts found (1)').waitFor();
      await page.getByText("Add 'Policy holder' as an anchor").waitFor();
      expect(await page.locator('[data-evidence-box]').count()).toBeGreaterThan(0);
      await expectAccessible(page, `try results (${viewport})`);
      await expectNoHorizontalScroll(page, `try results (${viewport})`);
      await screenshot(page, `case-type-try-${viewport}`);
      await context.close();
    }, 120_000);
  }
});
