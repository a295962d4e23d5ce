import { verifyWebhook, WebhookSignatureError, type Dossier } from '@dossier/client';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { Inbox } from './inbox.ts';
import type { ReceiverStore } from './store.ts';

export interface ReceiverOptions {
  dossier: Dossier;
  /** The endpoint's signing secrets: the current one, and during a rotation the previous one too. */
  signingSecrets: string[];
  store: ReceiverStore;
  /** How often stored work is looked at besides right after each delivery. Default 1 000 ms. */
  pollMs?: number;
  logger?: FastifyServerOptions['logger'];
}

/**
 * POST /webhooks/dossier: verify, store once, answer 2xx at once; the inbox does the rest. A
 * delivery that fails verification gets 401 and is not stored.
 */
export async function buildReceiver(options: ReceiverOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? true });
  const inbox = new Inbox({ dossier: options.dossier, store: options.store, log: app.log }, options.pollMs ?? 1_000);

  // The signature covers the exact bytes sent: keep the body as text, parse only after verifying.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post('/webhooks/dossier', async (request, reply) => {
    let event;
    try {
      event = await verifyWebhook(String(request.body ?? ''), request.headers, options.signingSecrets);
    } catch (error) {
      if (!(error instanceof WebhookSignatureError)) throw error;
      request.log.warn({ reason: error.reason }, 'webhook refused');
      return reply.code(401).send({ error: error.reason });
    }
    const first = options.store.recordDelivery(event, new Date());
    if (first) inbox.wake();
    request.log.info({ delivery_id: event.delivery_id, event_type: event.event_type, duplicate: !first }, 'webhook received');
    return { received: true, duplicate: !first };
  });

  app.get('/healthz', async () => ({ status: 'ok' }));

  app.addHook('onReady', async () => inbox.start());
  app.addHook('onClose', async () => {
    await inbox.stop();
    options.store.close();
  });
  return app;
}
