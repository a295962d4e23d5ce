import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../../domain/deps.ts';
import { AppError } from '../../domain/errors.ts';

/** Hashing both sides first gives equal lengths, so the comparison takes the same time whatever was sent. */
function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * GET /metrics: Prometheus text format. Registered only when METRICS_TOKEN is set (otherwise the
 * path is an ordinary 404), and then answered only to `Authorization: Bearer <METRICS_TOKEN>`.
 * It takes no API key, so it declares `auth: 'public'` to the route checks; the token check is its own.
 */
export const metricsRoute: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const token = ctx.config.metricsToken;
  if (!token) return;
  const expected = digest(`Bearer ${token}`);
  app.get('/metrics', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
    const sent = request.headers.authorization;
    if (typeof sent !== 'string' || !timingSafeEqual(digest(sent), expected)) {
      throw new AppError('invalid_api_key', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.', { 'www-authenticate': 'Bearer realm="metrics"' });
    }
    const body = await ctx.metrics.registry.metrics();
    return reply.type(ctx.metrics.registry.contentType).header('cache-control', 'no-store').send(body);
  });
};
