import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { Worker } from '../../src/jobs/worker.ts';
import { ManualClock } from '../../src/ports/clock.ts';
import { jobTasks } from '../../src/jobs/tasks.ts';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, screenshot, type TestBrowser } from '../support/browser.ts';
import { newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { textPdf } from '../extraction/helpers.ts';
import { acceptWhatWasRead, expectAccessibleMarkup } from '../support/applicant.ts';
import { eventTypes, readCase } from '../engine/engine-fixtures.ts';

/**
 * The applicant app's other states in Chromium: errors on every field type and every upload
 * problem, resuming in a fresh browser, bad links, a double submit, follow-up questions, and
 * French. Every state passes axe and is photographed.
 */
describeInBrowser('applicant app in a browser: errors, links, resume, double submit, follow-ups', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let browser: TestBrowser;
  let origin: string;
  let worker: Worker;
  const contexts: BrowserContext[] = [];
  const clock = new ManualClock(new Date());
  beforeAll(async () => {
    t = await createTestApp('embedded', { clock });
    ws = await t.workspace({ name: 'Acme Lending' });
    await withExampleCaseTypes(t, ws.orgId);
    origin = await listen(t);
    browser = await launchBrowser();
    worker = new Worker(t.ctx, jobTasks());
    worker.start();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await worker?.stop();
    await browser?.close();
    await t?.close();
  });

  const today = () => t.clock.now().toISOString().slice(0, 10);
  const payStub = (gross?: string) => textPdf([
    { text: 'Employee name: Jane Doe', y: 740 },
    { text: `Pay date: ${today()}`, y: 720 },
    ...(gross ? [{ text: `Gross pay: $${gross}`, y: 700 }] : []),
  ]);

  const noScript = new WeakSet<Page>();
  let helper: Page | undefined;
  async function page(options: Parameters<typeof newContext>[1]): Promise<Page> {
    const context = await newContext(browser, options);
    contexts.push(context);
    const p = await context.newPage();
    if (options.javaScriptEnabled === false) noScript.add(p);
    return p;
  }
  const linkOf = (signedUrl: string) => { const u = new URL(signedUrl); return `${origin}${u.pathname}${u.search}`; };
  async function look(p: Page, name: string) {
    if (noScript.has(p)) await expectAccessibleMarkup(p, (helper ??= await page({ viewport: 'desktop' })), origin, name);
    else await expectAccessible(p, name);
    await expectNoHorizontalScroll(p, name);
    await screenshot(p, `applicant-${name}`);
  }
  async function aboutYou(p: Page) {
    await p.getByLabel('Full legal name').fill('Jane Doe');
    await p.getByLabel('Email address').fill('jane@example.com');
    await p.getByLabel('Day', { exact: true }).fill('7');
    await p.getByLabel('Month', { exact: true }).fill('3');
    await p.getByLabel('Year', { exact: true }).fill('1990');
    await p.getByRole('button', { name: 'Continue' }).click();
    await p.getByRole('heading', { name: 'Your most recent pay stub' }).waitFor();
  }
  const pdfFile = async (name: string, gross?: string) => ({ name, mimeType: 'application/pdf', buffer: Buffer.from(await payStub(gross)) });

  it('shows an error on every field type, focuses the summary, and keeps what was typed', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const p = await page({ viewport: 'phone' });
    await p.goto(linkOf(s.signed_url));
    await p.getByRole('button', { name: 'Continue' }).click();
    await expect.poll(() => p.title()).toBe('Error: About you – Secure document intake');
    await expect.poll(() => p.evaluate(() => document.activeElement?.className)).toBe('error-summary');
    for (const message of ['Enter your full legal name', 'Enter your email address', 'Enter your date of birth']) {
      expect(await p.getByRole('link', { name: message }).count(), message).toBe(1);
    }
    await look(p, 'form-errors-empty-phone');

    await p.getByLabel('Full legal name').fill('Jane Doe');
    await p.getByLabel('Email address').fill('jane@');
    await p.getByLabel('Day', { exact: true }).fill('31');
    await p.getByLabel('Month', { exact: true }).fill('2');
    await p.getByLabel('Year', { exact: true }).fill('1990');
    await p.getByLabel('Monthly income').fill('lots');
    await p.getByRole('button', { name: 'Continue' }).click();
    await p.getByRole('link', { name: 'Enter an email address in the correct format, like name@example.com' }).waitFor();
    expect(await p.getByRole('link', { name: 'Date of birth must be a real date' }).count()).toBe(1);
    expect(await p.getByRole('link', { name: 'Monthly income must be an amount of money, like 1250 or 1250.50' }).count()).toBe(1);
    expect(await p.getByLabel('Email address').inputValue()).toBe('jane@');
    expect(await p.getByLabel('Monthly income').inputValue()).toBe('lots');
    // An error-summary link takes the person to the field.
    await p.getByRole('link', { name: 'Date of birth must be a real date' }).click();
    await expect.poll(() => p.evaluate(() => document.activeElement?.id)).toBe('date_of_birth-day');
    await look(p, 'form-errors-invalid-phone');
  }, 120_000);

  it('gives each upload problem its own message, with and without JavaScript', async () => {
    for (const js of [false, true]) {
      const s = await newSession(t, ws, 'income_verification');
      const p = await page({ viewport: js ? 'desktop' : 'phone', javaScriptEnabled: js });
      const tag = js ? 'desktop' : 'phone-nojs';
      await p.goto(linkOf(s.signed_url));
      await aboutYou(p);
      const choose = p.getByLabel('Pay stub: choose a file');
      // With the script a picked file is sent at once; without, "Upload and add another file" sends
      // it while there is room for another, and Continue sends it otherwise.
      const send = async () => {
        if (js) return;
        const another = p.getByRole('button', { name: 'Upload and add another file' });
        await ((await another.count()) ? another : p.getByRole('button', { name: 'Continue' })).click();
      };
      const expectError = async (message: string, state: string) => {
        await p.getByText(message).first().waitFor();
        // No stale "Uploading …" beside a refusal.
        expect(await p.getByText(/^Uploading /).count()).toBe(0);
        await look(p, `upload-error-${state}-${tag}`);
      };

      if (js) {
        await p.getByRole('button', { name: 'Continue' }).click();
        await expectError('Upload your pay stub', 'none');
      } else {
        await p.getByRole('button', { name: 'Upload and add another file' }).click();
        await expectError('Select a file for pay stub', 'none');
      }
      await choose.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Employee name: Jane Doe') });
      await send();
      await expectError('The selected file must be a PDF, PNG or JPG', 'type');
      await choose.setInputFiles({ name: 'empty.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(0) });
      await send();
      await expectError('The selected file is empty', 'empty');
      await choose.setInputFiles({ name: 'huge.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(20 * 1024 * 1024 + 1, 0x25) });
      await send();
      await expectError('The selected file must be smaller than 20 MB', 'size');
      for (const name of ['one.pdf', 'two.pdf']) {
        await choose.setInputFiles(await pdfFile(name, '100.00'));
        await send();
        await p.getByText(`${name} has been uploaded.`).waitFor();
      }
      await choose.setInputFiles(await pdfFile('three.pdf', '100.00'));
      await send();
      await expectError('You can upload up to 2 files for pay stub – remove one before adding another', 'count');
      if (!js) {
        // Without script the summary links to the file input.
        expect(await p.getByRole('link', { name: /You can upload up to 2 files/ }).count()).toBe(1);
      }
      const stored = await t.ctx.db.selectFrom('documents').select('filename').where('case_id', '=', s.case_id).orderBy('filename').execute();
      expect(stored.map((d) => d.filename)).toEqual(['one.pdf', 'two.pdf']);
    }
  }, 240_000);

  it('resumes in a fresh browser through the link, with answers and files still there', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const first = await page({ viewport: 'desktop' });
    await first.goto(linkOf(s.signed_url));
    await aboutYou(first);
    await first.getByLabel('Pay stub: choose a file').setInputFiles(await pdfFile('march.pdf', '2,150.00'));
    await first.getByText('march.pdf has been uploaded.').waitFor();

    const second = await page({ viewport: 'phone' });
    await second.goto(linkOf(s.signed_url));
    // Everything is done, so the link resumes at the check page, with the answers and the file.
    await second.getByRole('heading', { name: 'Check your answers before submitting' }).waitFor();
    expect(await second.getByText('Jane Doe').count()).toBe(1);
    expect(await second.getByText('march.pdf').count()).toBe(1);
    await second.getByRole('link', { name: 'Change Full legal name' }).click();
    expect(await second.getByLabel('Full legal name').inputValue()).toBe('Jane Doe');
    await look(second, 'resumed-phone');
  }, 120_000);

  it('shows clear pages for a wrong token, a removed token and an expired link', async () => {
    const s = await newSession(t, ws, 'income_verification', { return_url: 'https://acme.example/apply', expires_in_seconds: 1800 });
    const url = new URL(s.signed_url);
    const wrong = await page({ viewport: 'phone' });
    const res = await wrong.goto(`${origin}${url.pathname}?token=${'x'.repeat(43)}`);
    expect(res?.status()).toBe(403);
    await wrong.getByRole('heading', { name: 'This link does not work' }).waitFor();
    await look(wrong, 'link-forbidden-phone');
    const removed = await page({ viewport: 'desktop' });
    expect((await removed.goto(`${origin}${url.pathname}`))?.status()).toBe(403);

    const opened = await page({ viewport: 'desktop' });
    await opened.goto(linkOf(s.signed_url));
    await opened.getByRole('heading', { name: 'About you' }).waitFor();
    clock.advance(1_801_000);
    try {
      expect((await opened.reload())?.status()).toBe(410);
      await opened.getByRole('heading', { name: 'This link has expired' }).waitFor();
      expect(await opened.getByRole('button', { name: 'Go back to Acme Lending' }).getAttribute('href')).toBe('https://acme.example/apply');
      await look(opened, 'link-expired-desktop');
    } finally {
      // Other tests share the clock: keep their sessions' lifetimes untouched by moving back.
      clock.advance(-1_801_000);
    }
  }, 120_000);

  it('submits once when the button is pressed twice, and once when the back button resubmits', async () => {
    for (const js of [true, false]) {
      const s = await newSession(t, ws, 'income_verification');
      const p = await page({ viewport: 'desktop', javaScriptEnabled: js });
      await p.goto(linkOf(s.signed_url));
      await aboutYou(p);
      await p.getByLabel('Pay stub: choose a file').setInputFiles(await pdfFile('stub.pdf', '2,150.00'));
      if (js) await p.getByText('stub.pdf has been uploaded.').waitFor();
      await p.getByRole('button', { name: 'Continue' }).click();
      await p.waitForURL(/\/(confirm|check)/);
      await acceptWhatWasRead(p);
      const submit = p.getByRole('button', { name: /^Submit/ });
      await submit.dblclick();
      await p.waitForURL(/\/status/);
      await p.goBack();
      if (await p.getByRole('button', { name: /^Submit/ }).count()) {
        await p.getByRole('button', { name: /^Submit/ }).click();
        await p.getByText('You have already submitted your answers.').waitFor();
      }
      expect((await eventTypes(t, s.case_id)).filter((e) => e === 'intake.submitted')).toHaveLength(1);
    }
  }, 180_000);

  it('asks a follow-up question on the link when a document lacks a required fact, and the answer moves the case on', async () => {
    const s = await newSession(t, ws, 'income_verification');
    const p = await page({ viewport: 'phone' });
    await p.goto(linkOf(s.signed_url));
    await aboutYou(p);
    await p.getByLabel('Pay stub: choose a file').setInputFiles(await pdfFile('payslip.pdf'));
    await p.getByText('payslip.pdf has been uploaded.').waitFor();
    await p.getByRole('button', { name: 'Continue' }).click();
    await p.waitForURL(/\/(confirm|check)/);
    await acceptWhatWasRead(p);
    await p.getByRole('button', { name: /^Submit/ }).click();
    // The status page follows processing live and brings the question up by itself.
    await p.getByRole('heading', { name: 'We need a little more information' }).waitFor({ timeout: 60_000 });
    await p.getByText('We could not read the gross pay on payslip.pdf.').waitFor();
    await look(p, 'follow-up-phone');
    await p.getByRole('button', { name: 'Send your answers' }).click();
    await p.getByRole('link', { name: 'Enter your gross pay' }).waitFor();
    await look(p, 'follow-up-error-phone');

    // Coming back later through the link shows the same question.
    const later = await page({ viewport: 'desktop' });
    await later.goto(linkOf(s.signed_url));
    await later.getByLabel('Gross pay').fill('2,150.00');
    await later.getByRole('button', { name: 'Send your answers' }).click();
    await later.getByRole('heading', { name: 'Your answers have been sent' }).waitFor({ timeout: 60_000 });
    const record = await readCase(t, ws, s.case_id);
    expect(record.runtime_status).toBe('ready_for_review');
    const gross = (record.workspace.facts as Array<{ fact_id: string; value: string; source: string }>).find((f) => f.fact_id === 'gross_pay');
    expect(gross).toMatchObject({ value: '2150.00', source: 'applicant_follow_up' });
  }, 180_000);

  it('speaks French when the session says so', async () => {
    const s = await newSession(t, ws, 'income_verification', { locale: 'fr' });
    const p = await page({ viewport: 'phone' });
    await p.goto(linkOf(s.signed_url));
    await p.getByRole('button', { name: 'Continuer' }).click();
    await p.getByRole('heading', { name: 'Il y a un problème' }).waitFor();
    expect(await p.evaluate(() => document.documentElement.lang)).toBe('fr');
    await look(p, 'form-errors-fr-phone');
  }, 120_000);
});
