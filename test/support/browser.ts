import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
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

/** Playwright gives every launch a fresh, temporary profile (it refuses a --user-data-dir flag). */
export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({
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
  return {
    browser,
    close: () => browser.close(),
  };
}

export async function newContext(b: TestBrowser, options: { viewport: ViewportName; javaScriptEnabled?: boolean; locale?: string }): Promise<BrowserContext> {
  return b.browser.newContext({
    viewport: VIEWPORTS[options.viewport],
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    locale: options.locale ?? 'en-GB',
    ...(options.viewport === 'phone' ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
  });
}

/** WCAG 2.2 AA, as the UI guide asks: every page state must have zero axe violations. */
export async function expectAccessible(page: Page, state: string): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
  const problems = result.violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => n.target.join(' ')).slice(0, 5).join('\n    ')}`);
  expect(problems, `axe violations on "${state}"`).toEqual([]);
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
