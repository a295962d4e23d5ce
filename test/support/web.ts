import type { LightMyRequestResponse } from 'fastify';
import { createOperator, type OperatorRole } from '../../src/domain/operators/operators.ts';
import type { TestApp } from './harness.ts';

/** The cookies a response sets, as `name=value` pairs for the next request's Cookie header. */
export function cookiesOf(res: LightMyRequestResponse): Record<string, string> {
  const out: Record<string, string> = {};
  for (const c of res.cookies) out[c.name] = c.value;
  return out;
}

export function cookieHeader(cookies: Record<string, string>): string {
  return Object.entries(cookies).map(([k, v]) => `${k}=${v}`).join('; ');
}

/** The `_csrf` hidden field of the first form on a page. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no _csrf field on the page');
  return match[1]!;
}

export function form(fields: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
  return params.toString();
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export async function newOperator(t: TestApp, orgId: string, role: OperatorRole = 'admin', email = `op-${Math.random().toString(36).slice(2)}@example.com`) {
  const password = 'correct horse battery staple';
  const created = await createOperator(t.ctx, { orgId, email, password, role });
  if (!created.ok) throw new Error(created.message);
  return { ...created.value, password };
}

/** Signs in through the form, as a browser would; returns the dashboard session cookie header. */
export async function signInOperator(t: TestApp, email: string, password: string, remoteAddress = '127.0.0.1'): Promise<{ cookie: string; res: LightMyRequestResponse }> {
  const page = await t.app.inject({ method: 'GET', url: '/dashboard/login', remoteAddress });
  const res = await t.app.inject({
    method: 'POST',
    url: '/dashboard/login',
    remoteAddress,
    headers: { ...FORM, cookie: cookieHeader(cookiesOf(page)) },
    payload: form({ _csrf: csrfOf(page.body), email, password }),
  });
  const session = cookiesOf(res).dossier_dash;
  return { cookie: session ? `dossier_dash=${session}` : '', res };
}
