import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createTestApp, until, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { atBothWidths, describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, screenshot, type TestBrowser, type ViewportName } from '../support/browser.ts';
import { withExampleCaseTypes } from '../support/fixtures.ts';
import { newOperator } from '../support/web.ts';
import { readCase } from '../engine/engine-fixtures.ts';
import { startDocumentServer } from '../documents/document-server.ts';
import { addEndpoint, startDeliveries, startReceiver, verifySignatures, type Receiver, type RunningDeliveries } from '../webhooks/fixtures.ts';
import { payStubPdf, processedCase } from './console-fixtures.ts';
import { saveFact } from '../../src/domain/cases/case-facts.ts';
import type { CaseRow } from '../../src/storage/cases.ts';
import { inTransaction } from '../../src/storage/unit-of-work.ts';

describeInBrowser('operator console in a browser', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let browser: TestBrowser;
  let origin: string;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  let receiver: Receiver;
  let deliveries: RunningDeliveries;
  let secret: string;

  beforeAll(async () => {
    docs = await startDocumentServer({ '/stub.pdf': { body: await payStubPdf(2), type: 'application/pdf' } });
    receiver = await startReceiver();
    t = await createTestApp('embedded', { env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    ws = await t.workspace({ name: 'Acme Lending' });
    await withExampleCaseTypes(t, ws.orgId);
    secret = (await addEndpoint(t.ctx, ws.orgId, receiver.url, ['v1.case.completed'])).signing_secret;
    deliveries = startDeliveries(t.ctx, 'embedded');
    origin = await listen(t);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await deliveries?.stop();
    await t?.close();
    await docs?.close();
    await receiver?.close();
  });

  async function signIn(page: Page, email: string, password: string) {
    await page.goto(`${origin}/dashboard/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }

  /** A page state at both widths, whichever the flow walks at. */
  async function check(page: Page, state: string) {
    await atBothWidths(page, async (viewport) => {
      const name = `${state} ${viewport}`;
      await expectAccessible(page, name);
      await expectNoHorizontalScroll(page, name);
      await screenshot(page, name.replace(/[^a-z0-9]+/gi, '-').toLowerCase());
    });
  }

  // Walked once, on a desktop (where the first screen is measured); each state is checked at both widths.
  {
    const viewport: ViewportName = 'desktop';
    it(`finds a case by its external id, checks the blocking fact against the page, corrects a fact and approves (${viewport})`, async () => {
      const external = `loan-${viewport}`;
      const { caseId } = await processedCase(t, ws, docs.url('/stub.pdf'), external);
      const op = await newOperator(t, ws.orgId, 'reviewer');
      const context = await newContext(browser, { viewport });
      const page = await context.newPage();
      await signIn(page, op.email, op.password);
      await check(page, 'console overview');

      await page.getByRole('link', { name: 'Cases', exact: true }).click();
      await page.getByRole('heading', { name: 'Cases', exact: true }).waitFor();
      await check(page, 'console queue');
      await page.getByLabel('Search cases').fill(external);
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByRole('heading', { name: `Cases matching “${external}”` }).waitFor();
      await check(page, 'console search');
      await page.getByRole('link', { name: caseId }).click();
      await page.getByRole('heading', { name: `Case ${external}` }).waitFor();
      if (viewport === 'desktop') {
        // Issue 27 §1: at 1280×800 the first screen holds the status, the facts and the decision.
        await page.setViewportSize({ width: 1280, height: 800 });
        await page.evaluate(() => window.scrollTo(0, 0));
        const approve = (await page.getByRole('button', { name: 'Approve' }).boundingBox())!;
        expect(approve.y + approve.height).toBeLessThanOrEqual(800);
        const firstFact = (await page.locator('.review__facts h3, .review__facts [id^="fact-"]').first().boundingBox())!;
        expect(firstFact.y).toBeLessThan(800);
        expect(await page.locator('details.case-details').getAttribute('open')).toBeNull();
        await screenshot(page, 'console-case-first-screen-1280');
        await page.setViewportSize({ width: 1440, height: 900 });
      }

      // Another fact first, then the blocking one: its page image and its quote appear.
      await page.getByRole('link', { name: 'Show evidence for Gross pay' }).click();
      await page.getByRole('heading', { name: 'Evidence for Gross pay' }).waitFor();
      expect(await page.locator('mark#quote').textContent()).toBe('$2,450.00');
      await page.getByRole('link', { name: 'Show evidence for Employee name' }).click();
      await page.getByRole('heading', { name: 'Evidence for Employee name' }).waitFor();
      expect(await page.locator('mark#quote').textContent()).toBe('Jane Doe');
      expect(await page.locator('mark#quote').isVisible()).toBe(true);
      const image = page.getByRole('img', { name: /Page 1 of pay-stub\.pdf/ });
      await image.waitFor();
      // The browser fetched and decoded the page image: a drawn page has a real size on screen.
      const loaded = await page.evaluate(async () => {
        const href = document.querySelector('svg[data-page-image] image')?.getAttribute('href');
        const res = href ? await fetch(href) : undefined;
        return res ? { status: res.status, type: res.headers.get('content-type') } : undefined;
      });
      expect(loaded).toEqual({ status: 200, type: 'image/jpeg' });
      expect((await image.boundingBox())!.height).toBeGreaterThan(200);
      // Reason codes in words on the first screen; the codes themselves only inside details (issue 27 §1).
      const employee = page.locator('#fact-employee_name');
      expect(await employee.getByText('The value does not match the applicant’s answer.').count()).toBe(1);
      expect(await employee.getByText('input_mismatch', { exact: true }).isVisible()).toBe(false);
      await employee.getByText('Reason codes').click();
      expect(await employee.getByText('input_mismatch', { exact: true }).isVisible()).toBe(true);
      await check(page, 'console case');

      // Correct a fact: a missing reason is refused with the value kept, then it saves.
      await page.getByText('Correct Gross pay').click();
      const grossForm = page.locator('#fact-gross_pay form');
      await grossForm.getByLabel('Correct value').waitFor();
      await grossForm.getByLabel('Correct value').fill('2500.00');
      await grossForm.getByRole('button', { name: 'Save correction' }).click();
      await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
      expect(await page.title()).toMatch(/^Error: /);
      expect(await page.locator('#fact-gross_pay').getByLabel('Correct value').inputValue()).toBe('2500.00');
      await check(page, 'console correction error');
      await page.locator('#fact-gross_pay').getByLabel('Reason for the correction').fill('Checked against the bank statement');
      await page.locator('#fact-gross_pay').getByRole('button', { name: 'Save correction' }).click();
      await page.getByText('Correction saved').waitFor();
      expect(await page.locator('#fact-gross_pay').getByText('Checked against the bank statement').count()).toBe(1);
      await check(page, 'console corrected');

      // Approve with a reason: the API reads the case complete and the receiver has the signed handoff.
      await page.getByLabel(/^Reason \(optional to approve/).fill('Nickname on the stub; employer confirmed by phone');
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByText('Case approved').waitFor();
      await check(page, 'console approved');
      expect(await readCase(t, ws, caseId)).toMatchObject({ runtime_status: 'complete', case_status: 'approved' });
      const delivered = await until(() => receiver.requests.find((r) => JSON.parse(r.rawBody).case_id === caseId));
      verifySignatures(delivered, secret);
      expect(JSON.parse(delivered.rawBody)).toMatchObject({ event_type: 'v1.case.completed', data: { case_status: 'approved' } });
      expect(await page.getByText(op.email).count()).toBeGreaterThan(1);
      await context.close();
    }, 120_000);
  }

  it('shows the erase links on the case page to an admin and none to a reviewer (issue 23 §6)', async () => {
    const { caseId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'loan-roles');
    for (const role of ['reviewer', 'admin'] as const) {
      const op = await newOperator(t, ws.orgId, role);
      const context = await newContext(browser, { viewport: 'desktop' });
      const page = await context.newPage();
      await signIn(page, op.email, op.password);
      await page.goto(`${origin}/dashboard/cases/${caseId}`);
      await page.getByRole('heading', { name: 'Documents' }).waitFor();
      expect(await page.getByRole('link', { name: 'Erase the whole case' }).count(), role).toBe(role === 'admin' ? 1 : 0);
      expect(await page.getByRole('link', { name: /^Erase pay-stub\.pdf$/ }).count(), role).toBe(role === 'admin' ? 1 : 0);
      expect(await page.getByRole('link', { name: 'Download pay-stub.pdf' }).count(), role).toBe(1);
      await check(page, `console case page as ${role}`);
      await context.close();
    }
  }, 120_000);

  it('reviews with the keyboard alone: j and k move between flagged facts, zoom and pages are links', async () => {
    const { caseId, docId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'loan-keys', 'Jane Q Public');
    // An admin: the walk ends at the erasure confirmation, which reviewers may not reach.
    const op = await newOperator(t, ws.orgId, 'admin');
    const context = await newContext(browser, { viewport: 'desktop' });
    const page = await context.newPage();
    await signIn(page, op.email, op.password);
    // Clear a value so the case has a second flagged fact.
    const caseRow = await t.ctx.db.selectFrom('cases').selectAll().where('case_id', '=', caseId).executeTakeFirstOrThrow();
    await inTransaction(t.ctx.db, (tx) => saveFact(tx, caseRow as CaseRow, 'employer_name', { status: 'needs_input', value: null }));
    await page.goto(`${origin}/dashboard/cases/${caseId}`);
    const flagged = await page.locator('li[data-flagged]').evaluateAll((els) => els.map((e) => e.id));
    expect(flagged.length).toBeGreaterThanOrEqual(2);
    await page.keyboard.press('j');
    await expect.poll(() => page.url()).toContain(`fact=${flagged[1]!.replace('fact-', '')}`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(flagged[1]);
    await page.keyboard.press('k');
    await expect.poll(() => page.url()).toContain(`fact=${flagged[0]!.replace('fact-', '')}`);
    // Tab reaches the zoom and page controls, and Enter follows them.
    const zoom = page.getByRole('link', { name: 'Zoom in to 150%' });
    await zoom.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.url()).toContain('zoom=150');
    const [drawn, pane] = await page.evaluate(() => {
      const svg = document.querySelector('svg[data-page-image]')!;
      return [svg.getBoundingClientRect().width, svg.parentElement!.clientWidth];
    });
    expect(drawn / pane).toBeCloseTo(1.5, 1);
    await page.getByRole('link', { name: 'Next page' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText('page 2 of 3').waitFor();
    await check(page, 'console case page 2 zoomed');
    // The erasure confirmation names what goes.
    await page.goto(`${origin}/dashboard/cases/${caseId}/erasure?doc=${docId}`);
    await page.getByRole('heading', { name: 'Erase pay-stub.pdf?' }).waitFor();
    await check(page, 'console erase confirmation');
    await context.close();
  }, 120_000);
});
