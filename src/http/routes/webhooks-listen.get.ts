import type { ServerResponse } from 'node:http';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import { unwrap } from '../../domain/errors.ts';
import { connectListener } from '../../domain/webhooks/listeners.ts';
import { ListenerStream } from '../../jobs/listener-stream.ts';
import { authOf } from '../plugins/authenticate.ts';
import { errorResponses } from '../schemas/error.ts';

const listenQuery = z.object({
  forward_to: z.string().trim().min(1).max(2048).meta({ description: 'Where the CLI forwards deliveries. Shown only: the server never connects to it.', example: 'http://localhost:4567/hook' }),
  events: z
    .string()
    .max(2000)
    .optional()
    .meta({ description: 'Comma-separated event types to receive (`v1.case.completed,v1.intake.submitted`). Default: every event.' }),
  name: z
    .string()
    .regex(/^[a-z0-9_-]{1,40}$/, 'must be 1–40 lower-case letters, digits, - or _')
    .optional()
    .meta({ description: 'The listener to connect as; default `cli`. Each name keeps its own signing secret.' }),
});

const streamDescription = z.string().meta({
  description:
    'A `text/event-stream`. First `event: ready` with `{ workspace, environment, endpoint_id, signing_secret, forward_to, events, timeout_ms }`; then one `event: delivery` per delivery with `{ delivery_id, attempt_token, event_type, url, headers, body }`, and comment lines as heartbeats.',
});

/** One SSE event. The data is one JSON line, so it never holds a bare newline. */
function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * GET /api/v1/webhooks/listen: the stream `dossier listen` reads (issue 25). Test keys only.
 * Connecting opens (or reopens) the workspace's listener endpoint; its deliveries are handed out
 * on this stream while it is open and their results come back through
 * POST /api/v1/webhooks/listen/results. Closed streams are ended when the server closes, so a
 * shutdown does not wait for clients that never hang up.
 */
export const listenWebhooksRoute: FastifyPluginAsyncZod<{ ctx: AppContext }> = async (app, { ctx }) => {
  const open = new Map<ServerResponse, ListenerStream>();
  app.addHook('preClose', async () => {
    const streams = [...open];
    for (const [raw] of streams) raw.end();
    await Promise.all(streams.map(([, stream]) => stream.stop(ctx)));
  });

  app.get(
    '/api/v1/webhooks/listen',
    {
      config: { auth: 'webhooks:listen' },
      schema: {
        operationId: 'listenWebhooks',
        summary: 'Receive test deliveries as a stream (dossier listen)',
        description:
          'What `npm run dossier -- listen` reads: the workspace’s test deliveries as server-sent events, for the CLI to POST to a URL on your own machine with the same headers, body and signatures as an endpoint gets. The listener is an endpoint of kind `listener`: deliveries go through the same outbox, are logged with their attempts and retried on the same schedule; while no stream is open they wait and retry like any other. Test keys only (a live key is 403 `forbidden`).',
        tags: ['Webhooks'],
        security: [{ bearerAuth: [] }],
        querystring: listenQuery,
        response: { 200: streamDescription, ...errorResponses(428) },
      },
    },
    async (request, reply) => {
      const key = authOf(request);
      const connection = unwrap(
        await connectListener(ctx, {
          orgId: key.orgId,
          environment: key.environment,
          forwardTo: request.query.forward_to,
          events: (request.query.events ?? '').split(',').map((e) => e.trim()).filter(Boolean),
          ...(request.query.name !== undefined ? { name: request.query.name } : {}),
        }),
      );
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'x-request-id': String(request.id),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-store',
        // Proxies that buffer responses (nginx) would hold deliveries back.
        'x-accel-buffering': 'no',
        // A stream is never followed by another request on its connection: closing it with the
        // stream lets a server shutdown finish at once rather than after the keep-alive timeout.
        connection: 'close',
      });
      raw.write(sseEvent('ready', { ...connection, timeout_ms: ctx.config.webhookTimeoutMs }));
      const stream = new ListenerStream({
        tenant: { orgId: key.orgId, environment: key.environment },
        endpointId: connection.endpoint_id,
        connectionId: String(request.id),
        send: (delivery) => raw.write(sseEvent('delivery', delivery)),
        heartbeat: () => raw.write(': keep-alive\n\n'),
      });
      open.set(raw, stream);
      raw.on('drain', () => stream.drained());
      raw.on('close', () => {
        open.delete(raw);
        void stream.stop(ctx);
      });
      stream.start(ctx);
    },
  );
};
