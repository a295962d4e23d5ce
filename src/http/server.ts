import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type RouteOptions } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../domain/deps.ts';
import type { Config } from '../config.ts';
import { serializeRequest } from '../logging.ts';
import { registerOpenApi } from './openapi.ts';
import { registerAuthentication } from './plugins/authenticate.ts';
import { registerRouteAuthDeclarations } from './plugins/route-auth.ts';
import { clientError, registerErrorEnvelope, sendError } from './plugins/error-envelope.ts';
import { BODY_LIMIT_BYTES, registerJsonBody } from './plugins/json-body.ts';
import { apiRoutes } from './routes/index.ts';
import { zodValidatorCompiler } from './validation.ts';
import { webFaces } from '../web/index.ts';
import { registerHttpMetrics } from '../metrics/http-metrics.ts';

export interface BuildServerOptions {
  /** Sees every route as it is added (the route-auth test lists them with it). */
  onRoute?: (route: RouteOptions) => void;
}

/** A hop count as proxy-addr takes it (Fastify's types accept the count only as a function). */
function trustedProxies(setting: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}

/** Builds the HTTP face of the service. Listening is the caller's business (tests use inject). */
export async function buildServer(ctx: AppContext, options: BuildServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    genReqId: () => ctx.ids.next('req'),
    // One line per request is written by our onResponse hook, without query strings (they may hold tokens).
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // request.ip, which every per-address limit counts, is the socket's peer unless TRUST_PROXY
    // names the proxies allowed to report the client in X-Forwarded-For (docs/operations.md).
    trustProxy: trustedProxies(ctx.config.trustProxy),
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 500 },
    // The router's own refusals, answered with the catalog envelope instead of Fastify's bodies.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      if (error.code === 'FST_ERR_BAD_URL') return sendError(reply, 'not_found', 'No resource has this address: the path is not valid percent-encoded UTF-8.');
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return sendError(reply, 'not_found', 'No resource has this address: a path id is too long.');
      request.log.error({ err: error }, 'router error');
      return sendError(reply, 'internal_error', 'An unexpected error occurred. Quote the request_id when reporting it.');
    },
    clientErrorHandler: (error, socket) => clientError(error, socket, ctx.ids.next('req')),
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(zodValidatorCompiler);
  // Responses are checked against their schemas where it is cheap to be wrong (tests, development);
  // in production the schema has done its work at build time and JSON.stringify is enough.
  app.setSerializerCompiler(ctx.config.validateResponses ? serializerCompiler : () => (data) => JSON.stringify(data));

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // Graceful shutdown: answers finished while closing say `Connection: close`, so keep-alive
  // clients let go and close() does not wait out the keep-alive timeout.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { http: { ...serializeRequest(request), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 } },
      'request',
    );
  });

  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  registerRouteAuthDeclarations(app);
  registerHttpMetrics(app, ctx.metrics);
  registerErrorEnvelope(app);
  registerJsonBody(app);
  await registerOpenApi(app, ctx.config);
  registerAuthentication(app, ctx);
  await app.register(apiRoutes, { ctx });
  await app.register(webFaces, { ctx });
  return app;
}
