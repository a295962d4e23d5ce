import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppContext } from '../domain/deps.ts';
import { registerErrorEnvelope } from './plugins/error-envelope.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoute } from './routes/metrics.get.ts';
import { zodValidatorCompiler } from './validation.ts';

/**
 * The HTTP face of `dossier worker` when METRICS_TOKEN is set: /metrics (this process's job runs,
 * delivery attempts and extraction timings live only here) and the health probes. No API.
 */
export async function buildMetricsServer(ctx: AppContext): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    genReqId: () => ctx.ids.next('req'),
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
  });
  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  registerErrorEnvelope(app);
  await app.register(healthRoutes, { ctx });
  await app.register(metricsRoute, { ctx });
  return app;
}
