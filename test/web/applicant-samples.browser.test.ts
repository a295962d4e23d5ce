import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { Worker } from '../../src/jobs/worker.ts';
import { jobTasks } from '../../src/jobs/tasks.ts';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, screenshot, type TestBrowser } from '../support/browser.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { expectAccessibleMarkup } from '../support/applicant.ts';
import { readCase } from '../engine/engine-fixtures.ts';

/** "Use a sample document" pressed by a person on a phone, with and without JavaScript. */
describeInBrowser('applicant app in a browser: a sample document at phone size', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let browser: TestBrowser;
  let origin: string;
  let worker: Worker;
  let helper: Page | undefined;
  beforeAll(async () => {
    t = await createTestApp('embedded');
    ws = await t.workspace({ name: 'Acme Lending' });
    await withExampleCaseTypes(t, ws.orgId);
    origin = await listen(t);
    browser = await launchBrowser();
    worker = new Worker(t.ctx, jobTasks());
    worker.start();
  });
  afterAll(async () => {
    await worker?.stop();
    await browser?.close();
    await t?.close();
  });

  for (const js of [true, false]) {
    const tag = js ? 'phone' : 'phone-nojs';
    it(`chooses an outcome, presses the button, and the case follows it (${tag})`, async () => {
      const s = await newSession(t, ws, 'income_verification', { prefill: { full_name: 'Jane Doe' } });
      const context = await newContext(browser, { viewport: 'phone', javaScriptEnabled: js });
      const page = await context.newPage();
      const url = new URL(s.signed_url);
      await page.goto(`${origin}${url.pathname}${url.search}`);
      await page.getByRole('heading', { name: 'About you' }).waitFor();
      await page.getByLabel('Email address').fill('jane@example.com');
      await page.getByLabel('Day', { exact: true }).fill('7');
      await page.getByLabel('Month', { exact: true }).fill('3');
      await page.getByLabel('Year', { exact: true }).fill('1990');
      await page.getByRole('button', { name: 'Continue' }).click();

      await page.getByRole('heading', { name: 'Your most recent pay stub' }).waitFor();
      if (js) await expectAccessible(page, `sample-upload-${tag}`);
      else await expectAccessibleMarkup(page, (helper ??= await (await newContext(browser, { viewport: 'desktop' })).newPage()), origin, `sample-upload-${tag}`);
      await expectNoHorizontalScroll(page, `sample-upload-${tag}`);
      await screenshot(page, `applicant-sample-upload-${tag}`);

      await page.getByLabel('Or use a sample document (test mode only)').selectOption('gate_mismatch');
      await page.getByRole('button', { name: 'Use a sample document' }).click();
      await page.getByText('sample-pay-stub-gate-mismatch.pdf has been uploaded.').waitFor();
      await screenshot(page, `applicant-sample-uploaded-${tag}`);
      await page.getByRole('button', { name: 'Continue' }).click();
      // The applicant is shown what was read from the sample (issue 26's confirm page) and says it is right.
      await page.waitForURL(/\/confirm\//);
      const read = page.getByRole('heading', { name: 'We read these from your pay stub' });
      await expect.poll(async () => {
        if (await read.count()) return true;
        await page.getByRole('button', { name: 'Check again' }).click();
        return (await read.count()) > 0;
      }, { timeout: 60_000, interval: 500 }).toBe(true);
      expect(await page.locator('[data-read-value="employee_name"]').innerText()).toBe('Robert Miller');
      for (const yes of await page.getByRole('radio', { name: 'Yes' }).all()) await yes.check();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Check your answers before submitting' }).waitFor();
      await page.getByRole('button', { name: /^Submit/ }).click();
      await page.waitForURL(/\/status(\?sent=1)?$/);

      await expect.poll(async () => (await readCase(t, ws, s.case_id)).runtime_status, { timeout: 60_000, interval: 250 }).toBe('ready_for_review');
      const record = await readCase(t, ws, s.case_id);
      expect(record.queue_row.why_here_code).toBe('gate_failed');
      const name = (record.workspace.facts as Array<{ fact_id: string; value: string }>).find((f) => f.fact_id === 'employee_name');
      expect(name?.value).toBe('Robert Miller');
      await context.close();
    }, 180_000);
  }
});
