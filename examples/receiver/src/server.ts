import { Dossier } from '@dossier/client';
import { buildReceiver } from './app.ts';
import { ReceiverStore } from './store.ts';

/**
 * The reference receiver, configured from the environment:
 *   DOSSIER_API_KEY, DOSSIER_BASE_URL        the API (a key with cases:read and webhooks:acknowledge)
 *   DOSSIER_WEBHOOK_SECRET                   the endpoint's secret; during a rotation "new,old"
 *   RECEIVER_DB                              SQLite file (default ./receiver.sqlite)
 *   PORT, HOST                               listen address (default 4000, 127.0.0.1)
 */
function required(name: string): string {
  const value = process.env[name];
  if (!value) {
    process.stderr.write(`${name} is required\n`);
    process.exit(2);
  }
  return value;
}

const app = await buildReceiver({
  dossier: new Dossier({ apiKey: required('DOSSIER_API_KEY'), baseUrl: required('DOSSIER_BASE_URL') }),
  signingSecrets: required('DOSSIER_WEBHOOK_SECRET').split(',').map((s) => s.trim()).filter(Boolean),
  store: new ReceiverStore(process.env.RECEIVER_DB ?? 'receiver.sqlite'),
  pollMs: Number(process.env.RECEIVER_POLL_MS ?? 1_000),
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
await app.listen({ port: Number(process.env.PORT ?? 4000), host: process.env.HOST ?? '127.0.0.1' });
