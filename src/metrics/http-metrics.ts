import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.ts';

/**
 * Times every request under its route template (`/api/v1/cases/:case_id`, never the path), so a
 * series exists per route and status class, not per case. Requests no route matched share one
 * label, `unmatched`: a scanner probing random paths cannot create series.
 */
export function registerHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.observeHttpRequest({
      method: request.method,
      route: request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched'),
      statusCode: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
  });
}
