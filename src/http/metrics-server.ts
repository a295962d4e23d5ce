import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.ts';
import { registerErrorEnvelope } from './plugins/error-envelope.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoute } from './routes/metrics.get.ts';

/**
 * The HTTP face of `dossier worker` when METRICS_TOKEN is set: /metrics (this process's job runs,
 * delivery attempts and extraction timings live only here) and the health probes. No API.
 */
export async function buildMetricsServer(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({ loggerInstance: ctx.logger as FastifyBaseLogger, disableRequestLogging: true, genReqId: () => ctx.ids.next('req') });
  registerErrorEnvelope(app);
  await app.register(healthRoutes, { ctx });
  await app.register(metricsRoute, { ctx });
  return app;
}
