import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './harness.ts';
import { csrfOf, form, FORM, signInOperator } from './web.ts';

/**
 * A signed-in dashboard visitor over Fastify's inject that keeps its cookies between requests (the
 * session, and the one-time flash cookie that carries a new secret across post/redirect/get).
 */
export interface DashboardAgent {
  get(url: string): Promise<LightMyRequestResponse>;
  /** Posts a form with the CSRF token of `from` (a page body), or of a fresh GET of `url`. */
  post(url: string, fields: Record<string, string | string[]>, from?: string): Promise<LightMyRequestResponse>;
  /** Follows a 303 from a post to the page it leads to. */
  follow(res: LightMyRequestResponse): Promise<LightMyRequestResponse>;
}

export async function dashboardAgent(t: TestApp, email: string, password: string): Promise<DashboardAgent> {
  const { cookie } = await signInOperator(t, email, password);
  const jar = new Map<string, string>([[cookie.split('=')[0]!, cookie.slice(cookie.indexOf('=') + 1)]]);
  const keep = (res: LightMyRequestResponse) => {
    for (const c of res.cookies) {
      if (c.value === '' || (c.maxAge !== undefined && c.maxAge <= 0)) jar.delete(c.name);
      else jar.set(c.name, c.value);
    }
    return res;
  };
  const header = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const agent: DashboardAgent = {
    get: async (url) => keep(await t.app.inject({ method: 'GET', url, headers: { cookie: header() } })),
    async post(url, fields, from) {
      const body = from ?? (await agent.get(url)).body;
      return keep(await t.app.inject({ method: 'POST', url, headers: { ...FORM, cookie: header() }, payload: form({ _csrf: csrfOf(body), ...fields }) }));
    },
    async follow(res) {
      if (res.statusCode !== 303) throw new Error(`expected a 303, got ${res.statusCode}: ${res.body.slice(0, 300)}`);
      return agent.get(String(res.headers.location));
    },
  };
  return agent;
}
