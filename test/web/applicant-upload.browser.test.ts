import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { applicantBrowserRig } from '../support/applicant-browser-rig.ts';
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, newContext, screenshot, type ViewportName } from '../support/browser.ts';
import { newSession } from '../support/fixtures.ts';
import { textPdf } from '../extraction/helpers.ts';
import { expectAccessibleMarkup } from '../support/applicant.ts';

/**
 * Issue 26, item 1: a chosen file is never lost. The applicant picks a file and presses the
 * primary "Continue" at once, with and without JavaScript, on a phone and a desktop; the file must
 * be on the check-answers page. One file control; the camera control and the drag-and-drop text
 * only where they mean something.
 */
describeInBrowser('applicant app in a browser: a chosen file is never lost', () => {
  const contexts: BrowserContext[] = [];
  const rig = applicantBrowserRig(async () => {
    for (const c of contexts) await c.close().catch(() => {});
  });

  const bill = () => textPdf([
    { text: 'NORTHERN POWER', y: 780 },
    { text: 'Account holder: Jane Doe', y: 740 },
    { text: 'Service address: 12 High Street, Leeds LS1 4AB', y: 720 },
    { text: `Statement date: ${rig.t.clock.now().toISOString().slice(0, 10)}`, y: 700 },
  ]);
  let helper: Page | undefined;
  async function look(p: Page, js: boolean, name: string) {
    if (!js) await expectAccessibleMarkup(p, (helper ??= await (await newContext(rig.browser, { viewport: 'desktop' })).newPage()), rig.origin, name);
    else await expectAccessible(p, name);
    await expectNoHorizontalScroll(p, name);
    await screenshot(p, `applicant-${name}`);
  }

  for (const [viewport, js] of [['phone', true], ['desktop', true], ['phone', false], ['desktop', false]] as const satisfies readonly (readonly [ViewportName, boolean])[]) {
    const tag = `${viewport}${js ? '' : '-nojs'}`;
    it(`picks a file and presses Continue at once: the file is on the check page (${tag})`, async () => {
      const s = await newSession(rig.t, rig.ws, 'address_proof');
      const context = await newContext(rig.browser, { viewport, javaScriptEnabled: js });
      contexts.push(context);
      const page = await context.newPage();
      const link = new URL(s.signed_url);
      await page.goto(`${rig.origin}${link.pathname}${link.search}`);
      await page.getByRole('heading', { name: 'A recent utility bill' }).waitFor();

      // One file control; the camera only on a touch screen with the script; dragging only with a mouse.
      const visibleFileInputs = await page.locator('input[type=file]').evaluateAll((inputs) => inputs.filter((i) => (i as HTMLElement).offsetParent !== null).length);
      expect(visibleFileInputs).toBe(viewport === 'phone' && js ? 2 : 1);
      expect(await page.getByLabel('Utility bill: take a photo').isVisible().catch(() => false)).toBe(viewport === 'phone' && js);
      expect(await page.getByText('or drag and drop a file here').isVisible()).toBe(viewport === 'desktop' && js);
      // A utility bill is one file: no "add another" button (the pay stub's two files have one, without script).
      expect(await page.getByRole('button', { name: 'Upload and add another file' }).count()).toBe(0);
      await look(page, js, `upload-empty-${tag}`);

      await page.getByLabel('Utility bill: choose a file').setInputFiles({ name: 'bill.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await bill()) });
      // At once: no waiting for the upload the script has just started.
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Check your answers before submitting' }).waitFor();
      expect(await page.getByText('bill.pdf').count()).toBe(1);
      const stored = await rig.t.ctx.db.selectFrom('documents').select('filename').where('case_id', '=', s.case_id).execute();
      expect(stored.map((d) => d.filename)).toEqual(['bill.pdf']);
    }, 120_000);
  }

  for (const viewport of ['phone', 'desktop'] as const) {
    it(`with the script, a picked file uploads at once with a Remove button, and a refusal leaves no stale status (${viewport})`, async () => {
      const s = await newSession(rig.t, rig.ws, 'address_proof');
      const context = await newContext(rig.browser, { viewport });
      contexts.push(context);
      const page = await context.newPage();
      const link = new URL(s.signed_url);
      await page.goto(`${rig.origin}${link.pathname}${link.search}`);
      const choose = page.getByLabel('Utility bill: choose a file');
      await choose.setInputFiles({ name: 'notes.zip', mimeType: 'application/zip', buffer: Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]) });
      await page.getByRole('link', { name: 'The selected file must be a PDF, PNG, JPG or TXT' }).waitFor();
      expect(await page.getByText(/Uploading notes\.zip/).count()).toBe(0);
      await look(page, true, `upload-refused-${viewport}`);

      await choose.setInputFiles({ name: 'bill.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await bill()) });
      await page.getByText('bill.pdf has been uploaded.').waitFor();
      // The refusal went with the new attempt.
      expect(await page.locator('.error-summary').count()).toBe(0);
      await page.getByRole('button', { name: 'Remove bill.pdf' }).waitFor();
      await look(page, true, `upload-done-${viewport}`);
      await page.getByRole('button', { name: 'Remove bill.pdf' }).click();
      await page.getByText('The file has been removed.').waitFor();
      const stored = await rig.t.ctx.db.selectFrom('documents').select(['filename', 'erased_at']).where('case_id', '=', s.case_id).execute();
      expect(stored.every((d) => d.erased_at !== null)).toBe(true);
    }, 120_000);
  }
});
