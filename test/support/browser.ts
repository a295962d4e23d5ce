import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type FileChooser, type Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import type { TestApp } from './harness.ts';

/**
 * Browser tests drive Debian's Chromium through playwright-core (never a downloaded build). Under
 * CI=true they are required: a missing browser fails the run instead of skipping it.
 */
export const CHROMIUM = '/usr/bin/chromium';
const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable && process.env.CI === 'true') throw new Error(`${CHROMIUM} is required under CI=true (apt-get install chromium)`);

/** `describe` for a browser test file: runs wherever Chromium is installed, which CI guarantees. */
export function describeInBrowser(title: string, body: () => void): void {
  describe.runIf(browserAvailable)(title, body);
}

export const VIEWPORTS = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1440, height: 900 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

export interface TestBrowser {
  browser: Browser;
  close(): Promise<void>;
}

let shared: Promise<Browser> | undefined;

/**
 * One Chromium per test worker, shared by the browser test files it runs one after another
 * (vitest runs files with isolate: false): a launch and a close cost 0.6–1.3 s a file. Each file
 * still gets a clean browser: its contexts (cookies, storage) are its own and `close()` closes
 * them. Playwright gives the launch a fresh, temporary profile (it refuses a --user-data-dir
 * flag) and ends the browser with the worker.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  let browser = await (shared ??= launchChromium());
  if (!browser.isConnected()) browser = await (shared = launchChromium());
  return {
    browser,
    close: async () => {
      await Promise.all(browser.contexts().map((c) => c.close()));
    },
  };
}

function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

export async function newContext(b: TestBrowser, options: { viewport: ViewportName; javaScriptEnabled?: boolean; locale?: string }): Promise<BrowserContext> {
  return b.browser.newContext({
    viewport: VIEWPORTS[options.viewport],
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    locale: options.locale ?? 'en-GB',
    ...(options.viewport === 'phone' ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
  });
}

const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
let axeSource: string | undefined;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * WCAG 2.2 AA, as the UI guide asks: every page state must have zero axe violations.
 *
 * axe-core runs in the page directly, put there once per document. @axe-core/playwright's
 * AxeBuilder does the same checks but opens a second page for every analysis to merge frames'
 * results, which took 1.2–1.6 s a check against 0.3–0.45 s here; our pages have no frames
 * (a check refuses to pass on a page that has one, rather than skip it).
 */
export async function expectAccessible(page: Page, state: string): Promise<void> {
  expect(await accessibilityProblems(page), `axe violations on "${state}"`).toEqual([]);
}

/** Each axe violation on the page as one line: rule id, impact, help, and up to five elements. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  if (page.frames().length !== 1) throw new Error('the page has a frame that this check does not reach into');
  if (!(await page.evaluate(() => 'axe' in window))) {
    axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    await page.evaluate(axeSource);
  }
  const violations = await page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  }, AXE_TAGS);
  return violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join('\n    ')}`);
}

/**
 * Runs `check` at the page's own width and then at the other one, and puts the page back. A flow
 * walked once (on a phone, or on a desktop) has each of its states checked at both widths: walking
 * the whole flow again at the other width costs a browser test twice its time and finds nothing a
 * resize does not, where the flow itself is the same at both (issue 24 §7).
 */
export async function atBothWidths(page: Page, check: (viewport: ViewportName) => Promise<void>): Promise<void> {
  const size = page.viewportSize();
  const own: ViewportName = size !== null && size.width <= VIEWPORTS.phone.width ? 'phone' : 'desktop';
  const other: ViewportName = own === 'phone' ? 'desktop' : 'phone';
  await check(own);
  await page.setViewportSize(VIEWPORTS[other]);
  try {
    await check(other);
  } finally {
    await page.setViewportSize(VIEWPORTS[own]);
  }
}

/** No horizontal scrolling at the current width (WCAG reflow at 320 px is checked by callers that resize). */
export async function expectNoHorizontalScroll(page: Page, state: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `horizontal scroll on "${state}"`).toBeLessThanOrEqual(0);
}

const SCREENSHOT_DIR = new URL('../../screenshots/', import.meta.url).pathname;

/**
 * Saves a screenshot to the gitignored screenshots/ folder (not under CI, see below), to be looked at: the full page, or
 * the first screen only (`firstScreen`) for pages many screens long, whose full capture can
 * take longer than a test's budget on a loaded machine (the API reference on a phone).
 */
export async function screenshot(page: Page, name: string, options: { firstScreen?: boolean } = {}): Promise<void> {
  // Screenshots are for people to look at; CI keeps none, so it skips the capture (a full-page PNG
  // costs 0.3–3 s) unless SCREENSHOTS=1 asks for them. Nothing is asserted on them either way.
  if (process.env.CI === 'true' && process.env.SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: options.firstScreen !== true });
}

/** Puts a test app on a real loopback port for the browser; returns its origin. */
export async function listen(t: TestApp): Promise<string> {
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
  return address.replace('[::1]', '127.0.0.1');
}

/**
 * Opens the file chooser as a keyboard user does, Space on the focused file input, and picks
 * `files`. Playwright turns file-chooser interception on without waiting for Chromium to confirm
 * it, so a key pressed straight after `waitForEvent('filechooser')` can open a chooser nobody
 * intercepts (seen 1 run in 6 on a loaded machine, in two different tests). The listener is
 * registered first and a round trip to the page made; if no chooser comes, the focus is checked
 * and the key pressed again, still from the keyboard alone.
 */
export async function pickFilesWithKeyboard(page: Page, focused: () => Promise<void>, files: Parameters<FileChooser['setFiles']>[0]): Promise<void> {
  const choosers: FileChooser[] = [];
  const onChooser = (c: FileChooser) => choosers.push(c);
  page.on('filechooser', onChooser);
  try {
    await page.evaluate(() => 0);
    for (let attempt = 0; attempt < 3 && choosers.length === 0; attempt++) {
      await focused();
      await page.keyboard.press('Space');
      const deadline = Date.now() + 15_000;
      while (choosers.length === 0 && Date.now() < deadline) await page.waitForTimeout(50);
    }
    expect(choosers.length, 'Space on the focused file input opens the file chooser').toBeGreaterThan(0);
    await choosers[0]!.setFiles(files);
  } finally {
    page.off('filechooser', onChooser);
  }
}
