import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, screenshot, type TestBrowser, type ViewportName } from '../support/browser.ts';
import { withExampleCaseTypes } from '../support/fixtures.ts';
import { newOperator } from '../support/web.ts';
import { readCase } from '../engine/engine-fixtures.ts';
import { startDocumentServer } from '../documents/document-server.ts';
import { payStubPdf, processedCase } from './console-fixtures.ts';

/**
 * Issue 27 §3 and §4, a morning of cases as an operator works it: find a case by the applicant's
 * name, take it, reject it with a reason confirmed on our page, read the timeline in words, go on
 * to the next case of the tab with `n`, and approve that one without a reason.
 */
describeInBrowser('an operator’s morning in a browser', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let browser: TestBrowser;
  let origin: string;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;
  const cases: string[] = [];

  beforeAll(async () => {
    docs = await startDocumentServer({ '/stub.pdf': { body: await payStubPdf(1), type: 'application/pdf' } });
    t = await createTestApp('embedded', { env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    ws = await t.workspace({ name: 'Acme Lending' });
    await withExampleCaseTypes(t, ws.orgId);
    for (const [i, name] of ['Amara Okafor', 'Luis Garcia'].entries()) cases.push((await processedCase(t, ws, docs.url('/stub.pdf'), `loan-m${i}`, name)).caseId);
    origin = await listen(t);
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await docs?.close();
  });

  async function signIn(page: Page, email: string, password: string) {
    await page.goto(`${origin}/dashboard/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }

  async function check(page: Page, state: string, viewport: ViewportName) {
    await expectAccessible(page, `${state} (${viewport})`);
    await expectNoHorizontalScroll(page, `${state} (${viewport})`);
    await screenshot(page, `console-morning-${state}-${viewport}`);
  }

  it('searches by name, assigns, rejects with a reason, reads the timeline, and moves on with n', async () => {
    const op = await newOperator(t, ws.orgId, 'reviewer');
    const context = await newContext(browser, { viewport: 'desktop' });
    const page = await context.newPage();
    await signIn(page, op.email, op.password);

    // Search by the applicant's name, in another letter case.
    await page.goto(`${origin}/dashboard/cases`);
    await page.getByLabel('Search cases').fill('amara okafor');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('heading', { name: 'Cases matching “amara okafor”' }).waitFor();
    const rows = page.locator('table tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('Amara Okafor');
    expect(await rows.first().textContent()).toContain('Income verification');
    await check(page, 'search', 'desktop');
    await page.getByRole('link', { name: cases[0] }).click();
    await page.getByRole('heading', { name: 'Case loan-m0' }).waitFor();

    // Take it.
    await page.getByRole('button', { name: 'Assign to me' }).click();
    await page.getByText('You have taken this case.').waitFor();
    await page.getByText('Assigned to you').waitFor();

    // Reject: no reason is refused; with one, our own confirmation page, then the case completes.
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    await page.getByLabel(/^Reason \(optional to approve/).fill('The pay stub names someone else');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('heading', { name: 'Reject this case?' }).waitFor();
    await check(page, 'reject-confirm', 'desktop');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByText('Case rejected').waitFor();
    expect(await readCase(t, ws, cases[0]!)).toMatchObject({ runtime_status: 'complete', case_status: 'rejected' });
    await page.getByText('The pay stub names someone else').first().waitFor();

    // The timeline in words, the raw types only in details.
    const timeline = page.locator('ol.timeline');
    const words = (await timeline.innerText()).replace(/\s+/g, ' ');
    expect(words).toContain('Status: Ready for review → Complete');
    expect(words).toContain('Assigned to themselves');
    expect(words).toContain('Rejected by');
    expect(await timeline.locator('details').first().getAttribute('open')).toBeNull();
    await check(page, 'rejected', 'desktop');

    // On to the next case of the tab with the keyboard.
    await page.getByRole('link', { name: /^Next case/ }).waitFor();
    await page.locator('body').press('n');
    await page.getByRole('heading', { name: 'Case loan-m1' }).waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Case approved').waitFor();
    expect(await readCase(t, ws, cases[1]!)).toMatchObject({ runtime_status: 'complete', case_status: 'approved' });
    await context.close();
  }, 150_000);

  it('shows the queue with a search at phone width, accessible', async () => {
    const op = await newOperator(t, ws.orgId, 'reviewer');
    const context = await newContext(browser, { viewport: 'phone' });
    const page = await context.newPage();
    await signIn(page, op.email, op.password);
    await page.goto(`${origin}/dashboard/cases?q=garcia`);
    await page.getByRole('heading', { name: 'Cases matching “garcia”' }).waitFor();
    expect(await page.locator('table tbody tr').count()).toBe(1);
    await check(page, 'search', 'phone');
    await context.close();
  }, 90_000);
});
