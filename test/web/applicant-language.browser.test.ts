import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { Worker } from '../../src/jobs/worker.ts';
import { jobTasks } from '../../src/jobs/tasks.ts';
import { parseCaseTypeDefinition } from '../../src/domain/case-types/definition.ts';
import { translatableTexts } from '../../src/domain/case-types/translations.ts';
import { en } from '../../src/web/i18n/en.ts';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { atBothWidths, describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, screenshot, type TestBrowser, type ViewportName } from '../support/browser.ts';
import { incomeVerification, newSession, withExampleCaseTypes } from '../support/fixtures.ts';
import { textPdf } from '../extraction/helpers.ts';

/**
 * Issue 26 §2 in Chromium: the whole income-verification flow in German (chosen with the header's
 * language link, from an English start) and in Spanish (set by the session), on a phone and a
 * desktop, through every page state: the form, its errors, the upload step, its error and a file
 * uploaded, check your answers, processing, a follow-up question and its error, and the finish.
 * On each, no English word of the app's catalogue or of the case type's English texts may be
 * visible (title included), and axe finds nothing.
 */

/** Words of a text, as the checker compares them: letters only, lower case. */
const words = (text: string) => text.toLowerCase().match(/\p{L}+/gu) ?? [];

/** Every word a page could show in English: the English catalogue and the case type's English texts. */
const definition = (() => {
  const parsed = parseCaseTypeDefinition(incomeVerification);
  if (!parsed.ok) throw new Error('income_verification');
  return parsed.value;
})();
const ENGLISH = new Set([...Object.values(en), ...translatableTexts(definition).values()].flatMap((text) => words(text.replace(/\{\w+\}/g, ' '))));

/**
 * Words that are allowed to stay, and why. Proper names and data: the organisation (Acme Lending),
 * the applicant's answers (Jane Doe, jane@example.com), file names (paystub.pdf), file types and
 * units (PDF, PNG, JPG, MB, KB), the languages' own names in the switcher (English), and
 * "JavaScript". Then words spelled the same in the target language.
 */
const PROPER = ['acme', 'lending', 'jane', 'doe', 'example', 'com', 'paystub', 'pdf', 'png', 'jpg', 'jpeg', 'mb', 'kb', 'english', 'javascript', 'utc', 'us', 'usd'];
const SAME_WORD: Record<'de' | 'es', string[]> = {
  // German words spelled as English ones: "Name", "in", "an", "so", "was" ("Nichts, was Sie…"), "Link", "E-Mail", "Problem", "Text", "Minute", "Person", "Scan" ("Ein unlesbarer Scan").
  de: ['name', 'in', 'an', 'so', 'was', 'link', 'e', 'mail', 'problem', 'text', 'minute', 'person', 'scan'],
  // Spanish words spelled as English ones: "no", "a", "real" ("una decisión real"), "legal" ("Nombre legal completo"), "error" ("Error:"), "use" (usted form of usar: "O use un documento de ejemplo")
  es: ['no', 'a', 'e', 'real', 'legal', 'error', 'use'],
};

function englishLeft(locale: 'de' | 'es', visible: string): string[] {
  const allowed = new Set([...PROPER, ...SAME_WORD[locale]]);
  return [...new Set(words(visible).filter((w) => ENGLISH.has(w) && !allowed.has(w)))];
}

describeInBrowser('applicant app in a browser: German and Spanish from start to finish', () => {
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
  // No gross pay on the stub: the case comes back with a follow-up question.
  const payStub = async () => Buffer.from(await textPdf([
    { text: 'ACME MANUFACTURING LTD', y: 780 },
    { text: 'Employee name: Jane Doe', y: 740 },
    { text: `Pay date: ${today()}`, y: 720 },
  ]));

  /** Each language's words for the controls the test drives. */
  const WORDS = {
    de: {
      heading: 'Angaben zu Ihrer Person', continue: 'Weiter', email: 'E-Mail-Adresse', day: 'Tag', month: 'Monat', year: 'Jahr', income: 'Monatliches Einkommen',
      upload: 'Ihre letzte Gehaltsabrechnung', choose: 'Gehaltsabrechnung: Datei auswählen', uploaded: 'paystub.pdf wurde hochgeladen.',
      confirm: 'Das haben wir aus Ihrem Dokument „Gehaltsabrechnung“ gelesen', checkAgain: 'Erneut prüfen', yes: 'Ja',
      check: 'Prüfen Sie Ihre Antworten vor dem Absenden', submit: 'Antworten absenden', followUp: 'Wir brauchen noch ein paar Angaben', gross: 'Bruttolohn', send: 'Antworten senden',
      done: 'Ihre Antworten wurden gesendet', money: '4.200,00\u00a0$', date: '27. Dezember 1990', grossError: 'Füllen Sie das Feld „Bruttolohn“ aus',
    },
    es: {
      heading: 'Sus datos', continue: 'Continuar', email: 'Correo electrónico', day: 'Día', month: 'Mes', year: 'Año', income: 'Ingresos mensuales',
      upload: 'Su última nómina', choose: 'Nómina: elegir un archivo', uploaded: 'paystub.pdf se ha subido.',
      confirm: 'Esto es lo que leímos en su nómina', checkAgain: 'Comprobar de nuevo', yes: 'Sí',
      check: 'Revise sus respuestas antes de enviarlas', submit: 'Enviar sus respuestas', followUp: 'Necesitamos un poco más de información', gross: 'Salario bruto', send: 'Enviar sus respuestas',
      done: 'Sus respuestas se han enviado', money: '4200,00\u00a0US$', date: '27 de diciembre de 1990', grossError: 'Introduzca su salario bruto',
    },
  } as const;

  /** A page state at both widths (what shows differs: a phone hides the drag-and-drop words). */
  async function look(page: Page, locale: 'de' | 'es', state: string) {
    await page.waitForLoadState('load');
    await atBothWidths(page, async (viewport) => {
      const name = `${state}-${viewport}`;
      // The applicant's reference is random letters and digits ("y7or-CvDK"), no word of any language.
      const references = await page.locator('.mono').allInnerTexts();
      const visible = references.reduce((text, ref) => text.replaceAll(ref, ' '), `${await page.title()}\n${await page.evaluate(() => document.body.innerText)}`);
      expect(englishLeft(locale, visible), `English words on "${name}":\n${visible}`).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(locale);
      await expectAccessible(page, name);
      await expectNoHorizontalScroll(page, name);
      await screenshot(page, `applicant-${name}`);
    });
  }

  // Each language walked once, German on a phone and Spanish on a desktop; each state is checked at both widths.
  for (const [locale, viewport] of [['de', 'phone'], ['es', 'desktop']] as const satisfies readonly (readonly ['de' | 'es', ViewportName])[]) {
    const tag = locale;
    it(`completes the flow in ${locale === 'de' ? 'German' : 'Spanish'} with no English word left (${viewport})`, async () => {
      const w = WORDS[locale];
      // German is chosen by the applicant with the header's link; Spanish comes with the session.
      const s = await newSession(t, ws, 'income_verification', { prefill: { full_name: 'Jane Doe' }, return_url: 'https://acme.example/back', ...(locale === 'es' ? { locale: 'es' } : {}) });
      const context = await newContext(browser, { viewport, locale: 'en-GB' });
      const page = await context.newPage();
      const link = new URL(s.signed_url);
      await page.goto(`${origin}${link.pathname}${link.search}`);
      if (locale === 'de') {
        await page.getByRole('heading', { name: 'About you' }).waitFor();
        await page.getByRole('link', { name: 'Deutsch' }).click();
      }
      await page.getByRole('heading', { name: w.heading }).waitFor();
      expect(page.url()).not.toContain('lang=');
      await look(page, locale, `lang-form-${tag}`);

      await page.getByRole('button', { name: w.continue, exact: true }).click();
      await page.locator('.error-summary').waitFor();
      expect(await page.title()).toMatch(locale === 'de' ? /^Fehler: / : /^Error: /);
      await look(page, locale, `lang-form-errors-${tag}`);

      await page.getByLabel(w.email).fill('jane@example.com');
      await page.getByLabel(w.day, { exact: true }).fill('27');
      await page.getByLabel(w.month, { exact: true }).fill('12');
      await page.getByLabel(w.year, { exact: true }).fill('1990');
      await page.getByLabel(w.income).fill(locale === 'de' ? '4.200,00' : '4200');
      await page.getByRole('button', { name: w.continue, exact: true }).click();

      await page.getByRole('heading', { name: w.upload }).waitFor();
      await look(page, locale, `lang-upload-${tag}`);
      await page.getByRole('button', { name: w.continue, exact: true }).click();
      await page.locator('.error-summary').waitFor();
      await look(page, locale, `lang-upload-error-${tag}`);
      // A chosen file uploads at once.
      await page.getByLabel(w.choose).setInputFiles({ name: 'paystub.pdf', mimeType: 'application/pdf', buffer: await payStub() });
      await page.getByText(w.uploaded).waitFor();
      await look(page, locale, `lang-uploaded-${tag}`);
      await page.getByRole('button', { name: w.continue, exact: true }).click();

      // The applicant confirms what was read (issue 26 §3), once reading is done.
      await page.waitForURL(/\/confirm\//);
      const confirm = page.getByRole('heading', { name: w.confirm });
      let readingSeen = false;
      await expect.poll(async () => {
        if (await confirm.count()) return true;
        if (!readingSeen) await look(page, locale, `lang-confirm-reading-${tag}`);
        readingSeen = true;
        await page.getByRole('button', { name: w.checkAgain }).click();
        return (await confirm.count()) > 0;
      }, { timeout: 60_000, interval: 500 }).toBe(true);
      await look(page, locale, `lang-confirm-${tag}`);
      for (const yes of await page.getByRole('radio', { name: w.yes, exact: true }).all()) await yes.check();
      await page.getByRole('button', { name: w.continue, exact: true }).click();

      await page.getByRole('heading', { name: w.check }).waitFor();
      expect(await page.getByText(w.date).count()).toBe(1);
      expect(await page.getByText(w.money).count()).toBe(1);
      await look(page, locale, `lang-check-${tag}`);
      await page.getByRole('button', { name: w.submit }).click();

      await page.waitForURL(/\/(status(\?sent=1)?|follow-ups)$/);
      if (await page.locator('[data-stage="processing"]').count()) {
        // The status page moves on by itself once reading is done: a check cut short by that move is no failure.
        const at = page.url();
        await look(page, locale, `lang-processing-${tag}`).catch((e: Error) => {
          if (page.url() === at && !/context was destroyed|navigat/i.test(e.message)) throw e;
        });
      }
      await page.getByRole('heading', { name: w.followUp }).waitFor({ timeout: 60_000 });
      await look(page, locale, `lang-follow-up-${tag}`);
      await page.getByRole('button', { name: w.send }).click();
      await page.getByRole('link', { name: w.grossError }).waitFor();
      await look(page, locale, `lang-follow-up-error-${tag}`);
      await page.getByLabel(w.gross).fill('2150,00');
      await page.getByRole('button', { name: w.send }).click();

      await page.getByRole('heading', { name: w.done }).waitFor({ timeout: 60_000 });
      await look(page, locale, `lang-done-${tag}`);
      await context.close();
    }, 240_000);
  }
});
