import type { Config } from '../config.ts';
import { createSafeHttpClient, type OutboundHttp } from './safe-fetch.ts';

/**
 * The SSRF-safe clients of a process, one per kind of outbound traffic, built once in the app
 * context and passed to whatever sends: their own pools, so a fan-out of webhook attempts never
 * queues a document fetch, and each with its kind's deadline as the default.
 */
export interface OutboundClients {
  /** Document fetching (document_url). */
  documents: OutboundHttp;
  /** Webhook deliveries and test sends (WEBHOOK_TIMEOUT_MS). */
  webhooks: OutboundHttp;
  /** Connector calls, operation tests and OpenAPI fetching (CONNECTOR_TIMEOUT_MS). */
  connectors: OutboundHttp;
}

/** The default for document fetches (the document job also sets it on each request). */
const DOCUMENT_TIMEOUT_MS = 30_000;

export function createOutboundClients(config: Pick<Config, 'allowPrivateNetwork' | 'webhookTimeoutMs' | 'connectorTimeoutMs'>): OutboundClients {
  const policy = { allowPrivateNetwork: config.allowPrivateNetwork };
  return {
    documents: createSafeHttpClient({ policy, timeoutMs: DOCUMENT_TIMEOUT_MS }),
    webhooks: createSafeHttpClient({ policy, timeoutMs: config.webhookTimeoutMs }),
    connectors: createSafeHttpClient({ policy, timeoutMs: config.connectorTimeoutMs }),
  };
}

/** Waits for the requests in flight, then closes every pooled connection. */
export async function closeOutboundClients(clients: OutboundClients): Promise<void> {
  await Promise.all([clients.documents.close(), clients.webhooks.close(), clients.connectors.close()]);
}
