import type { FastifyInstance } from 'fastify';
import { authOf } from '../../src/http/plugins/authenticate.ts';

/**
 * Routes that exist only in tests, to exercise cross-cutting behaviour (authentication, scopes,
 * rate limits, body parsing, the 500 envelope) apart from any one operation.
 */
export function probeRoutes(app: FastifyInstance): void {
  app.get('/api/v1/_probe/read', { config: { auth: 'cases:read' } }, async (request) => {
    const key = authOf(request);
    return { org_id: key.orgId, environment: key.environment, key_id: key.keyId };
  });
  app.post('/api/v1/_probe/echo', { config: { auth: 'cases:write' } }, async (request) => ({ body: request.body }));
  app.get('/api/v1/_probe/boom', { config: { auth: 'public' } }, async () => {
    throw new Error('secret internal detail at /srv/app.ts:12');
  });
}
