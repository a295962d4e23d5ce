import type { LightMyRequestResponse } from 'fastify';
import type { Page } from 'playwright-core';
import { expectAccessible } from './browser.ts';
import type { TestApp } from './harness.ts';
import { cookieHeader, cookiesOf, csrfOf, form, FORM } from './web.ts';

/** The path and query of a signed_url, as the test app serves it (APP_URL's host is not ours in inject). */
export function linkPath(signedUrl: string): string {
  const url = new URL(signedUrl);
  return `${url.pathname}${url.search}`;
}

/** An applicant's browser in inject terms: the cookie jar of one session, and a GET/POST that keep it. */
export class ApplicantAgent {
  cookies: Record<string, string> = {};
  readonly t: TestApp;
  constructor(t: TestApp) {
    this.t = t;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const res = await this.t.app.inject({ method: 'GET', url, headers: { ...headers, cookie: cookieHeader(this.cookies) } });
    Object.assign(this.cookies, cookiesOf(res));
    return res;
  }

  /** Posts a form as the page at `pageUrl` would: its CSRF token comes from that page. */
  async post(url: string, fields: Record<string, string | string[]>, csrfFrom?: string): Promise<LightMyRequestResponse> {
    const csrf = csrfFrom ?? csrfOf((await this.get(url)).body);
    const res = await this.t.app.inject({ method: 'POST', url, headers: { ...FORM, cookie: cookieHeader(this.cookies) }, payload: form({ _csrf: csrf, ...fields }) });
    Object.assign(this.cookies, cookiesOf(res));
    return res;
  }

  /** Opens the signed link and follows the first redirect; returns where it landed. */
  async open(signedUrl: string): Promise<{ first: LightMyRequestResponse; landing: string }> {
    const first = await this.get(linkPath(signedUrl));
    if (first.statusCode !== 303) return { first, landing: '' };
    const second = await this.get(first.headers.location as string);
    return { first, landing: String(second.headers.location ?? '') };
  }
}

/** A multipart body with the CSRF field first and one file, as the upload form sends it. */
export function multipartBody(fields: Record<string, string>, file?: { name: string; filename: string; type: string; bytes: Uint8Array }) {
  const boundary = `----dossier${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file) {
    parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\ncontent-type: ${file.type}\r\n\r\n`));
    parts.push(Buffer.from(file.bytes));
    parts.push(Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** A photo of a document: black text on white, as a phone camera would send it (PNG). */
export async function documentPhoto(lines: readonly string[]): Promise<Buffer> {
  const { createCanvas } = await import('@napi-rs/canvas');
  const canvas = createCanvas(1000, 140 + lines.length * 60);
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.fillStyle = '#111111';
  g.font = '36px sans-serif';
  lines.forEach((line, i) => g.fillText(line, 60, 100 + i * 60));
  return canvas.encode('png');
}

/**
 * axe runs as a script, so it cannot run in a page with JavaScript disabled (it waits forever). The
 * server-rendered markup of such a page is checked instead in a JavaScript-enabled page of the
 * same origin, with the same stylesheet, so contrast and structure are judged on what was shown.
 */
export async function expectAccessibleMarkup(shown: Page, helper: Page, origin: string, state: string): Promise<void> {
  const markup = await shown.content();
  if (!helper.url().startsWith(origin)) await helper.goto(`${origin}/app/assets/app.css`);
  await helper.setViewportSize(shown.viewportSize() ?? { width: 390, height: 844 });
  await helper.setContent(markup, { waitUntil: 'load' });
  await expectAccessible(helper, state);
}

/**
 * Gets past the confirm page of a step with `confirm_extracted` (issue 26) as an applicant who
 * agrees with everything: "Yes" to each value, or "Continue without waiting" while reading.
 * Does nothing on any other page.
 */
export async function acceptWhatWasRead(page: Page): Promise<void> {
  await page.waitForLoadState();
  if (!/\/confirm\//.test(page.url())) return;
  const carryOn = page.getByRole('button', { name: 'Continue without waiting' });
  if (await carryOn.count()) return carryOn.click();
  for (const yes of await page.getByRole('radio', { name: 'Yes' }).all()) await yes.check();
  await page.getByRole('button', { name: 'Continue' }).click();
}
