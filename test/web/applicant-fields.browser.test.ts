import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { putCaseType } from '../../src/domain/case-types/case-types.ts';
import { Worker } from '../../src/jobs/worker.ts';
import { jobTasks } from '../../src/jobs/tasks.ts';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { atBothWidths, describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, screenshot, type TestBrowser, type ViewportName } from '../support/browser.ts';
import { newSession, tenancyApplication } from '../support/fixtures.ts';
import { expectAccessibleMarkup } from '../support/applicant.ts';
import { textPdf } from '../extraction/helpers.ts';
import { readCase } from '../engine/engine-fixtures.ts';

/**
 * tenancy_application in Chromium at phone and desktop sizes, with and without JavaScript: phone,
 * address, radios, money with a £ prefix and a checkbox; their errors; check your answers; submit;
 * the case completes with the address on it. Every state passes axe and is photographed.
 */
describeInBrowser('applicant app in a browser: address, phone, radios, money and checkbox', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let browser: TestBrowser;
  let origin: string;
  let worker: Worker;
  beforeAll(async () => {
    t = await createTestApp('embedded');
    ws = await t.workspace({ name: 'Acme Homes' });
    const put = await putCaseType(t.ctx, { orgId: ws.orgId, environment: 'test', definition: tenancyApplication });
    if (!put.ok) throw new Error(JSON.stringify(put.problems));
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
  const bill = () => textPdf([
    { text: 'NORTHERN POWER', y: 780 },
    { text: 'Account holder: Jane Doe', y: 740 },
    { text: 'Service address: 12 High Street, Leeds LS1 4AB', y: 720 },
    { text: `Statement date: ${today()}`, y: 700 },
  ]);

  let helper: Page | undefined;
  const noScript = new WeakSet<Page>();
  /** A page state: with JavaScript at both widths (named by the width it is checked at), without it as walked. */
  async function look(page: Page, state: string) {
    if (noScript.has(page)) {
      await expectAccessibleMarkup(page, (helper ??= await (await newContext(browser, { viewport: 'desktop' })).newPage()), origin, state);
      await expectNoHorizontalScroll(page, state);
      await screenshot(page, `applicant-${state}`);
      return;
    }
    await atBothWidths(page, async (viewport) => {
      const name = `${state}-${viewport}`;
      await expectAccessible(page, name);
      await expectNoHorizontalScroll(page, name);
      await screenshot(page, `applicant-${name}`);
    });
  }

  // With JavaScript walked once on a phone, each state checked at both widths; without it on a phone.
  for (const [viewport, js] of [['phone', true], ['phone', false]] as const satisfies readonly (readonly [ViewportName, boolean])[]) {
    const tag = js ? 'js' : 'phone-nojs';

    it(`tenancy application: every field type, its errors, check answers, submit, complete (${tag})`, async () => {
      const s = await newSession(t, ws, 'tenancy_application', { return_url: 'https://acme.example/homes/back' });
      const context = await newContext(browser, { viewport, javaScriptEnabled: js });
      const page = await context.newPage();
      if (!js) noScript.add(page);
      const link = new URL(s.signed_url);
      await page.goto(`${origin}${link.pathname}${link.search}`);
      await page.getByRole('heading', { name: 'About you and your home' }).waitFor();
      await look(page, `tenancy-form-${tag}`);

      // Some answers, then Continue: each problem in the summary, everything typed still there.
      await page.getByLabel('Full legal name').fill('Jane Doe');
      await page.getByLabel('Phone number').fill('call me');
      await page.getByLabel('Address line 1').fill('12 High Street');
      await page.getByLabel('Monthly rent you can pay').fill('lots');
      await page.getByRole('button', { name: 'Continue' }).click();
      const summary = page.getByRole('alert');
      await summary.getByText('There is a problem').waitFor();
      for (const text of ['Enter a phone number, like 01632 960 001 or +44 7700 900 982', 'Enter town or city', 'Select an answer to “Where do you live now?”', 'Monthly rent you can pay must be an amount of money, like 1250 or 1250.50', 'Select the box to confirm: I agree to a credit check']) {
        expect(await summary.getByRole('link', { name: text }).count()).toBe(1);
      }
      expect(await page.getByLabel('Address line 1').inputValue()).toBe('12 High Street');
      await look(page, `tenancy-form-errors-${tag}`);
      // The summary's link lands in the box to fix.
      await summary.getByRole('link', { name: 'Enter town or city' }).click();
      if (js) expect(await page.evaluate(() => document.activeElement?.id)).toBe('current_address-town');

      await page.getByLabel('Phone number').fill('+44 7700 900 982');
      await page.getByLabel('Town or city').fill('Leeds');
      await page.getByLabel('Postcode or ZIP code').fill('LS1 4AB');
      await page.getByRole('radio', { name: 'Renting' }).check();
      await page.getByLabel('Monthly rent you can pay').fill('1,250');
      await page.getByLabel('I agree to a credit check').check();
      await page.getByRole('button', { name: 'Continue' }).click();

      await page.getByRole('heading', { name: 'Proof of your current address' }).waitFor();
      await page.getByLabel('Utility bill: choose a file').setInputFiles({ name: 'bill.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await bill()) });
      // With the script the file is sent as it is picked; without, Continue sends it and goes on.
      if (js) await page.getByText('bill.pdf has been uploaded.').waitFor();
      await page.getByRole('button', { name: 'Continue' }).click();

      await page.getByRole('heading', { name: 'Check your answers before submitting' }).waitFor();
      const address = page.locator('dd').filter({ hasText: '12 High Street' });
      expect((await address.innerText()).split('\n')).toEqual(['12 High Street', 'Leeds', 'LS1 4AB']);
      expect(await page.getByText('£1,250.00').count()).toBe(1);
      expect(await page.getByRole('link', { name: 'Change Current address' }).count()).toBe(1);
      await look(page, `tenancy-check-${tag}`);
      await page.getByRole('button', { name: /^Submit/ }).click();

      const done = page.getByRole('heading', { name: 'Your answers have been sent' });
      if (js) await done.waitFor({ timeout: 60_000 });
      else {
        await expect.poll(async () => {
          if (await done.count()) return true;
          await page.getByRole('button', { name: 'Check again' }).click();
          return (await done.count()) > 0;
        }, { timeout: 60_000, interval: 500 }).toBe(true);
      }
      // If the page watched reading finish, it counts down back to return_url; the applicant stays.
      const stay = page.getByRole('button', { name: 'Stay on this page' });
      if (js && (await stay.isVisible())) await stay.click();
      await look(page, `tenancy-done-${tag}`);
      const record = await readCase(t, ws, s.case_id);
      expect(record.runtime_status).toBe('complete');
      expect(record.workspace.structured_inputs).toMatchObject({ current_address: { line1: '12 High Street', town: 'Leeds', postcode: 'LS1 4AB' }, housing: 'Renting', monthly_rent: '1250.00', credit_check: 'yes', phone: '+44 7700 900 982' });
      await context.close();
    }, 180_000);
  }

  // Walked on a phone; each state checked at both widths.
  {
    const viewport: ViewportName = 'phone';
    it(`a file that could not be read: what to do, and a replacement in its place (${viewport})`, async () => {
      const s = await newSession(t, ws, 'tenancy_application');
      const context = await newContext(browser, { viewport });
      const page = await context.newPage();
      const link = new URL(s.signed_url);
      await page.goto(`${origin}${link.pathname}${link.search}`);
      await page.getByRole('heading', { name: 'About you and your home' }).waitFor();
      await page.goto(`${origin}${link.pathname}/upload/proof`);
      await page.getByLabel('Utility bill: choose a file').setInputFiles({ name: 'scan.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.7\nnot really a pdf\n%%EOF\n') });
      await page.getByText('scan.pdf has been uploaded.').waitFor();
      // Reading happens in the background; the page says so once it is done.
      await expect.poll(async () => {
        await page.reload();
        return page.getByText('Could not be read').count();
      }, { timeout: 60_000, interval: 500 }).toBe(1);
      await page.getByText('This file seems to be damaged').waitFor();
      await look(page, 'tenancy-unreadable');

      await page.getByLabel('Replacement for scan.pdf').setInputFiles({ name: 'bill.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await bill()) });
      await page.getByRole('button', { name: 'Replace scan.pdf' }).click();
      await page.getByText('bill.pdf has been uploaded.').waitFor();
      expect(await page.getByText('scan.pdf').count()).toBe(0);
      expect(await page.getByText('Could not be read').count()).toBe(0);
      await look(page, 'tenancy-replaced');
      await context.close();
    }, 120_000);
  }

  it('the all-types form can be answered with the keyboard alone: radios with arrows, the box with Space', async () => {
    const s = await newSession(t, ws, 'tenancy_application');
    const context = await newContext(browser, { viewport: 'desktop' });
    const page = await context.newPage();
    const link = new URL(s.signed_url);
    await page.goto(`${origin}${link.pathname}${link.search}`);
    await page.getByRole('heading', { name: 'About you and your home' }).waitFor();
    const focusedId = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent?.trim() || '');
    const tabTo = async (target: string) => {
      for (let i = 0; i < 40; i++) {
        await page.keyboard.press('Tab');
        if ((await focusedId()) === target) return;
      }
      throw new Error(`could not reach ${target} with Tab`);
    };
    for (const [id, text] of [['full_name', 'Jane Doe'], ['phone', '+44 7700 900 982'], ['current_address-line1', '12 High Street'], ['current_address-town', 'Leeds'], ['current_address-postcode', 'LS1 4AB']]) {
      await tabTo(id!);
      await page.keyboard.type(text!);
    }
    // Tab enters the radio group on its first option; arrows move the choice.
    await tabTo('housing');
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowDown');
    expect(await page.getByRole('radio', { name: 'Own home' }).isChecked()).toBe(true);
    await tabTo('monthly_rent');
    await page.keyboard.type('1250');
    await tabTo('credit_check');
    await page.keyboard.press('Space');
    await tabTo('Continue');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Proof of your current address' }).waitFor();
    const row = await t.ctx.db.selectFrom('cases').select('structured_inputs').where('case_id', '=', s.case_id).executeTakeFirstOrThrow();
    expect(row.structured_inputs).toMatchObject({ housing: 'Own home', credit_check: 'yes', monthly_rent: '1250.00', current_address: { line1: '12 High Street', town: 'Leeds', postcode: 'LS1 4AB' } });
    await context.close();
  }, 120_000);
});
