import type { FastifyInstance, RouteOptions } from 'fastify';
import { SCOPES, type Scope } from '../../domain/keys/scopes.ts';

/**
 * Who may reach a route that takes no API key: anyone (`public`), the applicant holding the
 * session's signed link (`applicant`), a signed-in operator (`operator`), or an admin operator (`admin`).
 */
export const WEB_AUTH_KINDS = ['public', 'applicant', 'operator', 'admin'] as const;
export type WebAuth = (typeof WEB_AUTH_KINDS)[number];

/** A route's declared access: one of the web kinds, or the API scope its key must hold. */
export type RouteAuth = WebAuth | Scope;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Required on every route: there is no default, so a forgotten declaration cannot make a
     * route public. `config: {}` is a type error; a route with no `config` at all is refused when
     * it is registered (see {@link registerRouteAuthDeclarations}).
     */
    auth: RouteAuth;
  }
}

export function isScopeAuth(auth: unknown): auth is Scope {
  return typeof auth === 'string' && (SCOPES as readonly string[]).includes(auth);
}

export function isRouteAuth(auth: unknown): auth is RouteAuth {
  return isScopeAuth(auth) || (typeof auth === 'string' && (WEB_AUTH_KINDS as readonly string[]).includes(auth));
}

/**
 * Start-up fails on a route that does not declare `config.auth`: the type makes the declaration
 * required inside `config`, and this catches the route that has no `config` at all.
 */
export function registerRouteAuthDeclarations(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const auth: unknown = route.config?.auth;
    if (!isRouteAuth(auth)) {
      throw new Error(
        `route ${String(route.method)} ${route.url} must declare config.auth: 'public', 'applicant', 'operator', 'admin' or an API scope (got ${JSON.stringify(auth)})`,
      );
    }
  });
}
