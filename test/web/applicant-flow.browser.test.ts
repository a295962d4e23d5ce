import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { Worker } from '../../src/jobs/worker.ts';
import { jobTasks } from '../../src/jobs/tasks.ts';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, pickFilesWithKeyboard, screenshot, type TestBrowser, type ViewportName } from '../support/browser.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { acceptWhatWasRead, documentPhoto, expectAccessibleMarkup } from '../support/applicant.ts';
import { textPdf } from '../extraction/helpers.ts';
import { readCase } from '../engine/engine-fixtures.ts';

/**
 * The whole applicant flow in Chromium, for both example case types, at phone and desktop sizes,
 * with and without JavaScript, and with the keyboard alone: open the link, answer, upload a PDF
 * and a photo, check, submit, and watch processing finish. Every page state passes axe.
 */
describeInBrowser('applicant app in a browser: the complete flow', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let browser: TestBrowser;
  let origin: string;
  let worker: Worker;
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

  const today = () => t.clock.now().toISOString().slice(0, 10);
  const usDate = () => { const [y, m, d] = today().split('-'); return `${m}/${d}/${y}`; };
  const payStub = () => textPdf([
    { text: 'ACME MANUFACTURING LTD', y: 780 },
    { text: 'Employee name: Jane Doe', y: 740 },
    { text: `Pay date: ${today()}`, y: 720 },
    { text: 'Gross pay: $2,150.00', y: 700 },
  ]);
  const utilityBill = () => textPdf([
    { text: 'NORTHERN POWER', y: 780 },
    { text: 'Account holder: Jane Doe', y: 740 },
    { text: 'Service address: 12 High Street, Leeds LS1 4AB', y: 720 },
    { text: `Statement date: ${today()}`, y: 700 },
  ]);
  const photo = () => documentPhoto(['Employee name: Jane Doe', `Pay date: ${usDate()}`, 'Gross pay: $2,150.00']);

  let helper: Page | undefined;
  const helperPage = async () => (helper ??= await (await newContext(browser, { viewport: 'desktop' })).newPage());
  const noScript = new WeakSet<Page>();
  const jsDisabled = async (page: Page) => noScript.has(page);

  async function open(page: Page, signedUrl: string) {
    const url = new URL(signedUrl);
    await page.goto(`${origin}${url.pathname}${url.search}`);
    expect(page.url()).not.toContain('token=');
  }

  async function look(page: Page, name: string) {
    if (await jsDisabled(page)) await expectAccessibleMarkup(page, await helperPage(), origin, name);
    else await expectAccessible(page, name);
    await expectNoHorizontalScroll(page, name);
    await screenshot(page, `applicant-${name}`);
  }

  async function waitForDone(page: Page, js: boolean) {
    const done = page.getByRole('heading', { name: 'Your answers have been sent' });
    if (js) return done.waitFor({ timeout: 60_000 });
    // Without JavaScript the person reloads with "Check again" until the documents are read.
    await expect.poll(async () => {
      if (await done.count()) return true;
      await page.getByRole('button', { name: 'Check again' }).click();
      return (await done.count()) > 0;
    }, { timeout: 60_000, interval: 500 }).toBe(true);
  }

  /**
   * Picks a file. With the script it is sent at once. Without, "Upload and add another file" sends
   * it while the kind has room for more; a one-file kind has no such button, so Continue sends it
   * and the check page's Change link comes back to the step.
   */
  async function upload(page: Page, label: string, file: { name: string; mimeType: string; buffer: Buffer }, kindLabel: string, js: boolean) {
    await page.getByLabel(label).setInputFiles(file);
    if (js && file.mimeType.startsWith('image/')) await page.getByRole('img', { name: `Preview of ${file.name}` }).or(page.getByText(`${file.name} has been uploaded.`)).first().waitFor();
    if (!js) {
      const another = page.getByRole('button', { name: 'Upload and add another file' });
      if (!(await another.count())) {
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.getByRole('heading', { name: 'Check your answers before submitting' }).waitFor();
        await page.getByRole('link', { name: `Change ${kindLabel}` }).click();
        await page.locator('.file-list__name', { hasText: file.name }).waitFor();
        return;
      }
      await another.click();
    }
    await page.getByText(`${file.name} has been uploaded.`).waitFor();
  }

  for (const [viewport, js] of [['phone', true], ['desktop', true], ['phone', false]] as const satisfies readonly (readonly [ViewportName, boolean])[]) {
    const tag = `${viewport}${js ? '' : '-nojs'}`;

    it(`income verification: answers, a PDF and a photo, check, submit, processed (${tag})`, async () => {
      const s = await newSession(t, ws, 'income_verification', { prefill: { full_name: 'Jane Doe' }, return_url: 'https://acme.example/loans/back' });
      const context = await newContext(browser, { viewport, javaScriptEnabled: js });
      const page = await context.newPage();
      if (!js) noScript.add(page);
      await open(page, s.signed_url);
      await page.getByRole('heading', { name: 'About you' }).waitFor();
      expect(await page.getByLabel('Full legal name').inputValue()).toBe('Jane Doe');
      await look(page, `income-form-${tag}`);

      await page.getByLabel('Email address').fill('jane@example.com');
      await page.getByLabel('Day', { exact: true }).fill('7');
      await page.getByLabel('Month', { exact: true }).fill('3');
      await page.getByLabel('Year', { exact: true }).fill('1990');
      await page.getByLabel('Monthly income').fill('2150');
      await page.getByRole('button', { name: 'Continue' }).click();

      await page.getByRole('heading', { name: 'Your most recent pay stub' }).waitFor();
      await look(page, `income-upload-${tag}`);
      await upload(page, 'Pay stub: choose a file', { name: 'paystub.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await payStub()) }, 'Pay stub', js);
      await upload(page, viewport === 'phone' && js ? 'Pay stub: take a photo' : 'Pay stub: choose a file', { name: 'payslip-photo.png', mimeType: 'image/png', buffer: await photo() }, 'Pay stub', js);
      await look(page, `income-uploaded-${tag}`);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(/\/(confirm|check)/);
      await acceptWhatWasRead(page);

      await page.getByRole('heading', { name: 'Check your answers before submitting' }).waitFor();
      expect(await page.getByText('7 March 1990').count()).toBe(1);
      expect(await page.getByText('paystub.pdf').count()).toBe(1);
      await look(page, `income-check-${tag}`);
      await page.getByRole('button', { name: /^Submit/ }).click();

      await page.waitForURL(/\/status(\?sent=1)?$/);
      await look(page, `income-status-${tag}`);
      // Issue 26 §4: having watched reading finish, the page returns to return_url by itself, as
      // Stripe Checkout does, after a countdown "Stay on this page" stops (WCAG 2.2.1).
      if (js) await page.route('https://acme.example/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Acme Lending</title><p>Back at Acme</p>' }));
      await waitForDone(page, js);
      const countdown = page.locator('[data-auto-return]');
      if (viewport === 'phone' && js) {
        expect(await countdown.isVisible()).toBe(true);
        await page.getByRole('button', { name: 'Stay on this page' }).click();
        expect(await countdown.isHidden()).toBe(true);
      }
      if (!js) expect(await countdown.isHidden()).toBe(true);
      const back = new URL((await page.getByRole('button', { name: 'Return to Acme Lending' }).getAttribute('href'))!);
      expect(Object.fromEntries(back.searchParams)).toEqual({ session_id: s.session_id, case_id: s.case_id, status: 'ready_for_review' });
      if (viewport === 'desktop') {
        expect(await countdown.locator('.visually-hidden').textContent()).toBe('Taking you back to Acme Lending in 20 seconds.');
        await page.waitForURL((u) => u.hostname === 'acme.example', { timeout: 45_000 });
        expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual(Object.fromEntries(back.searchParams));
        await page.goBack();
        await page.getByRole('heading', { name: 'Your answers have been sent' }).waitFor();
      }
      await look(page, `income-done-${tag}`);

      const record = await readCase(t, ws, s.case_id);
      const facts = Object.fromEntries((record.workspace.facts as Array<{ fact_id: string; value: string; evidence: unknown[] }>).map((f) => [f.fact_id, f]));
      expect(facts.gross_pay).toMatchObject({ value: '2150.00' });
      expect(facts.employee_name?.evidence.length).toBeGreaterThan(0);
      expect((record.workspace.documents as Array<{ status: string }>).map((d) => d.status)).toEqual(['processed', 'processed']);
      await context.close();
    }, 180_000);
  }

  for (const [viewport, js] of [['phone', true], ['desktop', true], ['desktop', false]] as const satisfies readonly (readonly [ViewportName, boolean])[]) {
    const tag = `${viewport}${js ? '' : '-nojs'}`;

    it(`proof of address: a photo removed, a PDF kept, submitted and processed (${tag})`, async () => {
      const s = await newSession(t, ws, 'address_proof');
      const context = await newContext(browser, { viewport, javaScriptEnabled: js });
      const page = await context.newPage();
      if (!js) noScript.add(page);
      await open(page, s.signed_url);
      await page.getByRole('heading', { name: 'A recent utility bill' }).waitFor();
      await look(page, `address-upload-${tag}`);
      await upload(page, viewport === 'phone' && js ? 'Utility bill: take a photo' : 'Utility bill: choose a file', { name: 'bill-photo.png', mimeType: 'image/png', buffer: await documentPhoto(['Account holder: Jane Doe']) }, 'Utility bill', js);
      await page.getByRole('button', { name: 'Remove bill-photo.png' }).click();
      await page.getByText('The file has been removed.').waitFor();
      await upload(page, 'Utility bill: choose a file', { name: 'bill.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await utilityBill()) }, 'Utility bill', js);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Check your answers before submitting' }).waitFor();
      await look(page, `address-check-${tag}`);
      await page.getByRole('button', { name: /^Submit/ }).click();
      await waitForDone(page, js);
      await look(page, `address-done-${tag}`);
      const record = await readCase(t, ws, s.case_id);
      const facts = Object.fromEntries((record.workspace.facts as Array<{ fact_id: string; value: string }>).map((f) => [f.fact_id, f.value]));
      expect(facts).toMatchObject({ holder_name: 'Jane Doe', statement_date: today() });
      await context.close();
    }, 180_000);
  }

  it('can be completed with the keyboard alone', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const context = await newContext(browser, { viewport: 'desktop' });
    const page = await context.newPage();
    await open(page, s.signed_url);
    const focusedId = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim() || '');
    /** Tabs forward until the control is focused: proves it is reachable, in order, by Tab. */
    const tabTo = async (target: string) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        if ((await focusedId()) === target) return;
      }
      throw new Error(`could not reach ${target} with Tab`);
    };
    await tabTo('full_name');
    await page.keyboard.type('Jane Doe');
    await tabTo('email');
    await page.keyboard.type('jane@example.com');
    await tabTo('date_of_birth-day');
    await page.keyboard.type('7');
    await page.keyboard.press('Tab');
    await page.keyboard.type('3');
    await page.keyboard.press('Tab');
    await page.keyboard.type('1990');
    await tabTo('Continue');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your most recent pay stub' }).waitFor();

    // The upload script takes the "Upload" buttons out of the tab order once it runs: tab only
    // after it has, or a loaded machine lets the focus land before the page changes under it.
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLElement>('[data-upload-button]')].every((b) => b.hidden));
    await tabTo('file-pay_stub');
    await pickFilesWithKeyboard(page, async () => expect(await focusedId()).toBe('file-pay_stub'), { name: 'paystub.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await payStub()) });
    // Picked means sent: no second button to find.
    await page.getByText('paystub.pdf has been uploaded.').waitFor();
    await tabTo('Continue');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/(confirm|check)/);
    await acceptWhatWasRead(page);
    await page.getByRole('heading', { name: 'Check your answers before submitting' }).waitFor();
    await tabTo('Submit your answers');
    // Focus is visible on the control the keyboard is on.
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).backgroundColor);
    expect(outline).toBe('rgb(255, 210, 31)');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your answers have been sent' }).waitFor({ timeout: 60_000 });
    await context.close();
  }, 180_000);
});
