import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server.ts';
import { isRouteAuth, isScopeAuth, WEB_AUTH_KINDS } from '../../src/http/plugins/route-auth.ts';
import { createTestApp, type TestApp } from '../support/harness.ts';

/** Issue 9 §7: no route is public by default; every one says who may reach it. */
describe('every route declares config.auth', () => {
  let t: TestApp;
  const routes: RouteOptions[] = [];

  beforeAll(async () => {
    // METRICS_TOKEN and APP_URL switch on the optional routes, so they are listed too.
    t = await createTestApp('embedded', {
      env: { METRICS_TOKEN: 'metrics-token-0123456789', APP_URL: 'http://127.0.0.1:3000/app' },
      onRoute: (route) => routes.push(route),
    });
  });
  afterAll(() => t.close());

  const label = (r: RouteOptions) => `${String(r.method)} ${r.url}`;

  it('lists the whole service: API, health, metrics, openapi, case files, dashboard pages and assets', () => {
    const urls = new Set(routes.map((r) => r.url));
    for (const url of ['/healthz', '/readyz', '/metrics', '/api/v1/openapi.json', '/api/v1/sessions', '/api/v1/cases/:case_id', '/app/case-files/:case_id', '/dashboard/login', '/dashboard/', '/dashboard/assets/*']) {
      expect(urls, url).toContain(url);
    }
    expect(routes.length).toBeGreaterThan(30);
  });

  it('gives each route a declaration', () => {
    const undeclared = routes.filter((r) => !isRouteAuth(r.config?.auth)).map(label);
    expect(undeclared).toEqual([]);
  });

  it('puts an API scope on every /api/v1 operation except the public API description', () => {
    const api = routes.filter((r) => r.url.startsWith('/api/v1/') && r.url !== '/api/v1/openapi.json');
    expect(api.filter((r) => !isScopeAuth(r.config?.auth)).map(label)).toEqual([]);
    expect(routes.find((r) => r.url === '/api/v1/openapi.json')?.config?.auth).toBe('public');
  });

  it('gives web pages a web kind, never an API scope', () => {
    const pages = routes.filter((r) => r.url.startsWith('/dashboard') || r.url.startsWith('/app/'));
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.filter((r) => !(WEB_AUTH_KINDS as readonly unknown[]).includes(r.config?.auth)).map(label)).toEqual([]);
  });

  it('refuses, at registration, a route that declares nothing or something unknown', async () => {
    const app = await buildServer(t.ctx);
    try {
      expect(() => app.get('/undeclared', async () => 'open')).toThrow(/must declare config\.auth/);
      // @ts-expect-error `auth` is required inside config: forgetting it is a type error.
      expect(() => app.get('/empty-config', { config: {} }, async () => 'open')).toThrow(/must declare config\.auth/);
      // @ts-expect-error only the known kinds and scopes are accepted.
      expect(() => app.get('/typo', { config: { auth: 'pubic' } }, async () => 'open')).toThrow(/must declare config\.auth/);
    } finally {
      await app.close();
    }
  });

  it('an operator page without a session is sent to sign-in, an API route without a key is 401', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/dashboard/' });
    expect(page.statusCode).toBe(303);
    const api = await t.app.inject({ method: 'GET', url: '/api/v1/cases' });
    expect(api.statusCode).toBe(401);
  });
});
