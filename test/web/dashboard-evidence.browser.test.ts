import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { createTestApp, type TestApp, type TestWorkspace } from '../support/harness.ts';
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, launchBrowser, listen, newContext, screenshot, type TestBrowser } from '../support/browser.ts';
import { withExampleCaseTypes } from '../support/fixtures.ts';
import { newOperator } from '../support/web.ts';
import { startDocumentServer } from '../documents/document-server.ts';
import { payStubPdf, processedCase } from './console-fixtures.ts';

/**
 * Issue 27 §2, evidence an operator can read: the page drawn at a readable size (≥ 600 px at
 * 1280 × 800, the viewer's whole width on a phone) with a full-size view; the evidence outlined
 * with a translucent fill that never hides the value; zoom that scrolls instead of cropping; and
 * a corrected fact that keeps showing the page and quote its value was first read from.
 */
describeInBrowser('the case page’s evidence viewer', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let browser: TestBrowser;
  let origin: string;
  let docs: Awaited<ReturnType<typeof startDocumentServer>>;

  beforeAll(async () => {
    docs = await startDocumentServer({ '/stub.pdf': { body: await payStubPdf(2), type: 'application/pdf' } });
    t = await createTestApp('embedded', { env: { DOSSIER_ALLOW_PRIVATE_NETWORK: 'true' } });
    ws = await t.workspace({ name: 'Acme Lending' });
    await withExampleCaseTypes(t, ws.orgId);
    origin = await listen(t);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await docs?.close();
  });

  async function signIn(page: Page) {
    const op = await newOperator(t, ws.orgId, 'reviewer');
    await page.goto(`${origin}/dashboard/login`);
    await page.getByLabel('Email').fill(op.email);
    await page.getByLabel('Password').fill(op.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  }

  /** The page image of the viewer, once the browser has drawn it. */
  async function pageImage(page: Page): Promise<Locator> {
    const image = page.getByRole('img', { name: /^Page 1 of pay-stub\.pdf/ });
    await image.waitFor();
    await page.waitForFunction(() => {
      const href = document.querySelector('svg[data-page-image] image')?.getAttribute('href');
      return href ? performance.getEntriesByType('resource').some((e) => e.name.endsWith(href)) : false;
    });
    return image;
  }

  /** What the evidence outline looks like: its fill's opacity (colour alpha × fill-opacity) and its stroke. */
  async function outlineStyle(page: Page) {
    return page.locator('svg[data-page-image] rect[data-evidence-box]').evaluate((rect) => {
      const s = getComputedStyle(rect);
      const alpha = (colour: string) => {
        if (colour === 'none' || colour === 'transparent') return 0;
        const m = /rgba?\(([^)]+)\)/.exec(colour);
        const parts = m ? m[1]!.split(/[\s,/]+/).filter(Boolean) : [];
        return parts.length === 4 ? Number(parts[3]) : 1;
      };
      return {
        fill: alpha(s.fill) * Number(s.fillOpacity) * Number(s.opacity),
        stroke: s.stroke,
        strokeAlpha: alpha(s.stroke) * Number(s.strokeOpacity) * Number(s.opacity),
        strokeWidth: parseFloat(s.strokeWidth),
      };
    });
  }

  /** The image's scroll box and what it holds, in CSS pixels. */
  async function scrollBox(page: Page) {
    return page.locator('svg[data-page-image]').evaluate((svg) => {
      const box = svg.parentElement!;
      const s = svg.getBoundingClientRect();
      const b = box.getBoundingClientRect();
      const rect = svg.querySelector('rect[data-evidence-box]')!.getBoundingClientRect();
      const style = getComputedStyle(box);
      return {
        svgWidth: s.width,
        svgHeight: s.height,
        clientWidth: box.clientWidth,
        scrollWidth: box.scrollWidth,
        scrollHeight: box.scrollHeight,
        overflowX: style.overflowX,
        overflowY: style.overflowY,
        // The evidence outline lies inside the box's visible area.
        outlineInView: rect.left >= b.left - 1 && rect.right <= b.right + 1 && rect.top >= b.top - 1 && rect.bottom <= b.bottom + 1,
      };
    });
  }

  /** The documentation's pictures (docs/images/), refreshed when DOCS_IMAGES=1. */
  const DOC_IMAGES = new Set(['console-evidence-1280', 'console-evidence-phone']);

  /** The first screen with the viewer at its top, saved with the other screenshots (and into docs/images/, see above). */
  async function saveDocImage(page: Page, name: string) {
    await page.locator('#evidence').evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await screenshot(page, name, { firstScreen: true });
    if (process.env.DOCS_IMAGES === '1' && DOC_IMAGES.has(name)) {
      const dir = new URL('../../docs/images/', import.meta.url).pathname;
      mkdirSync(dir, { recursive: true });
      await page.screenshot({ path: `${dir}${name}.png` });
    }
  }

  it('draws the page at least 600 px wide at 1280 × 800, outlines the evidence without hiding it, and zooms by scrolling', async () => {
    const { caseId, docId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'evidence-desktop');
    const context = await browser.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`${origin}/dashboard/cases/${caseId}?fact=gross_pay`);
    await page.getByRole('heading', { name: 'Evidence for Gross pay' }).waitFor();
    const image = await pageImage(page);

    // The decision and the first fact stay on the first screen.
    await page.evaluate(() => window.scrollTo(0, 0));
    const approve = (await page.getByRole('button', { name: 'Approve' }).boundingBox())!;
    expect(approve.y + approve.height).toBeLessThanOrEqual(800);
    expect((await page.getByRole('heading', { name: 'Employee name', level: 3 }).boundingBox())!.y).toBeLessThan(800);

    // Readable: at least 600 px wide, and a view at the image's own pixel size.
    const at100 = (await image.boundingBox())!;
    expect(at100.width).toBeGreaterThanOrEqual(600);
    const fullSize = page.getByRole('link', { name: /^Open full size/ });
    expect(await fullSize.getAttribute('href')).toBe(`/dashboard/cases/${caseId}/documents/${docId}/pages/1`);
    const served = await page.evaluate(async (href) => {
      const res = await fetch(href);
      return { status: res.status, type: res.headers.get('content-type') };
    }, (await fullSize.getAttribute('href'))!);
    expect(served).toEqual({ status: 200, type: 'image/jpeg' });

    // Outlined, not covered: a translucent fill at most, and a strong stroke.
    const outline = await outlineStyle(page);
    expect(outline.fill).toBeLessThan(0.5);
    expect(outline.stroke).not.toBe('none');
    expect(outline.strokeAlpha).toBeGreaterThan(0.9);
    expect(outline.strokeWidth).toBeGreaterThanOrEqual(2);
    expect(await page.locator('mark#quote').textContent()).toBe('$2,450.00');
    await expectAccessible(page, 'evidence 1280');
    await expectNoHorizontalScroll(page, 'evidence 1280');
    await screenshot(page, 'console-evidence-page-1280');
    await saveDocImage(page, 'console-evidence-1280');

    // Zoom scrolls both ways instead of cropping: the whole page is in the scroll box.
    const before = await scrollBox(page);
    expect(before.overflowX).toBe('auto');
    expect(before.overflowY).toBe('auto');
    for (const zoom of [150, 200] as const) {
      await page.getByRole('link', { name: `Zoom in to ${zoom}%` }).click();
      await expect.poll(() => page.url()).toContain(`zoom=${zoom}`);
      await pageImage(page);
      const box = await scrollBox(page);
      expect(box.scrollWidth, `zoom ${zoom}`).toBeGreaterThan(box.clientWidth);
      expect(box.svgWidth / before.svgWidth, `zoom ${zoom}`).toBeCloseTo(zoom / 100, 1);
      expect(box.scrollWidth, `zoom ${zoom}: the right edge is reachable`).toBeGreaterThanOrEqual(Math.floor(box.svgWidth));
      expect(box.scrollHeight, `zoom ${zoom}: the bottom edge is reachable`).toBeGreaterThanOrEqual(Math.floor(box.svgHeight));
      await expect.poll(async () => (await scrollBox(page)).outlineInView, { message: `zoom ${zoom}: the outline is scrolled into view` }).toBe(true);
      // The box, its scroll bars included, fits the window, and scrolling the window brings its
      // bottom (and the horizontal scroll bar) onto the screen.
      const onScreen = await page.locator('svg[data-page-image]').evaluate(async (svg) => {
        const box = svg.parentElement!;
        box.scrollIntoView({ block: 'start' });
        window.scrollBy(0, box.getBoundingClientRect().bottom - window.innerHeight + 8);
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const r = box.getBoundingClientRect();
        return { height: r.height, bottom: r.bottom, window: window.innerHeight };
      });
      expect(onScreen.height, `zoom ${zoom}`).toBeLessThanOrEqual(onScreen.window);
      expect(onScreen.bottom, `zoom ${zoom}`).toBeLessThanOrEqual(onScreen.window);
      await expectNoHorizontalScroll(page, `evidence zoom ${zoom}`);
    }
    await saveDocImage(page, 'console-evidence-zoom-200');
    await context.close();
  }, 120_000);

  it('fills the viewer’s width on a phone (390 px)', async () => {
    const { caseId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'evidence-phone');
    const context = await newContext(browser, { viewport: 'phone' });
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`${origin}/dashboard/cases/${caseId}`);
    await page.getByRole('heading', { name: 'Evidence for Employee name' }).waitFor();
    const image = await pageImage(page);
    const drawn = (await image.boundingBox())!.width;
    const viewerWidth = await page.locator('#evidence').evaluate((el) => {
      const s = getComputedStyle(el);
      return el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
    });
    expect(Math.abs(drawn - viewerWidth)).toBeLessThanOrEqual(4);
    expect(drawn).toBeGreaterThan(300);
    expect((await outlineStyle(page)).fill).toBeLessThan(0.5);
    await expectAccessible(page, 'evidence phone');
    await expectNoHorizontalScroll(page, 'evidence phone');
    await saveDocImage(page, 'console-evidence-phone');
    await context.close();

    // Without JavaScript the zoom links work the same: the zoomed page scrolls in its box.
    const noScript = await newContext(browser, { viewport: 'phone', javaScriptEnabled: false });
    const plain = await noScript.newPage();
    await signIn(plain);
    await plain.goto(`${origin}/dashboard/cases/${caseId}`);
    await plain.getByRole('link', { name: 'Zoom in to 150%' }).click();
    await expect.poll(() => plain.url()).toContain('zoom=150');
    const zoomed = await scrollBox(plain);
    expect(zoomed.scrollWidth).toBeGreaterThan(zoomed.clientWidth);
    expect(zoomed.svgWidth / drawn).toBeCloseTo(1.5, 1);
    await expectNoHorizontalScroll(plain, 'evidence phone zoomed without script');
    await noScript.close();
  }, 120_000);

  it('keeps showing the original page and quote of a corrected fact beside its corrected value', async () => {
    const { caseId } = await processedCase(t, ws, docs.url('/stub.pdf'), 'evidence-corrected');
    const context = await browser.browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
    const page = await context.newPage();
    await signIn(page);
    await page.goto(`${origin}/dashboard/cases/${caseId}`);
    await page.getByText('Correct Gross pay').click();
    const form = page.locator('#fact-gross_pay form');
    await form.getByLabel('Correct value').fill('2500.00');
    await form.getByLabel('Reason for the correction').fill('Checked against the bank statement');
    await form.getByRole('button', { name: 'Save correction' }).click();
    await page.getByText('Correction saved').waitFor();

    const viewer = page.locator('#evidence');
    await page.getByRole('heading', { name: 'Evidence for Gross pay' }).waitFor();
    expect(await viewer.textContent()).not.toContain('is not available');
    await viewer.getByText('Original evidence (before the correction)').waitFor();
    expect(await viewer.getByText('2500.00').count()).toBeGreaterThan(0);
    const image = await pageImage(page);
    expect((await image.boundingBox())!.width).toBeGreaterThanOrEqual(600);
    expect(await page.locator('mark#quote').textContent()).toBe('$2,450.00');
    expect(await viewer.locator('q').first().textContent()).toBe('$2,450.00');
    expect(await page.locator('svg[data-page-image] rect[data-evidence-box]').count()).toBe(1);
    // The fact itself still links to it.
    expect(await page.getByRole('link', { name: /evidence for Gross pay$/i }).count()).toBe(1);
    await expectAccessible(page, 'evidence corrected 1280');
    await saveDocImage(page, 'console-evidence-corrected-1280');

    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(page, 'evidence corrected phone');
    await expectNoHorizontalScroll(page, 'evidence corrected phone');
    await context.close();
  }, 120_000);
});
