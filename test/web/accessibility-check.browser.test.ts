import { afterAll, beforeAll, expect, it } from 'vitest';
import { accessibilityProblems, describeInBrowser, expectAccessible, launchBrowser, newContext, type TestBrowser } from '../support/browser.ts';

/** The check every browser test leans on must itself fail where it should (test/support/browser.ts). */
describeInBrowser('the accessibility check', () => {
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it('passes a clean page and names each WCAG violation of a faulty one, also after the page changes', async () => {
    const context = await newContext(browser, { viewport: 'desktop' });
    const page = await context.newPage();
    await page.setContent('<!doctype html><html lang="en"><head><title>Clean</title></head><body><main><h1>Clean</h1><label for="n">Name</label><input id="n"></main></body></html>');
    await expectAccessible(page, 'clean');
    // The same document, changed by script after axe was put in it: checked again, not from a cache.
    await page.evaluate(() => document.querySelector('main')!.insertAdjacentHTML('beforeend', '<img src="data:,"><input>'));
    const problems = await accessibilityProblems(page);
    expect(problems.map((p) => p.split(' ')[0])).toEqual(expect.arrayContaining(['image-alt', 'label']));
    await expect(expectAccessible(page, 'changed')).rejects.toThrow(/axe violations on "changed"/);
    // A new document without a language.
    await page.setContent('<!doctype html><html><head><title>x</title></head><body><main><p>Hi</p></main></body></html>');
    expect((await accessibilityProblems(page)).map((p) => p.split(' ')[0])).toEqual(['html-has-lang']);
    await context.close();
  });
});
