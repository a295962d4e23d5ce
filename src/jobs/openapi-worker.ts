import { parentPort } from 'node:worker_threads';
import { digestOpenApiDocument, type OpenApiSource } from '../domain/connectors/openapi-digest.ts';
import { fail } from '../domain/errors.ts';

/** Reads OpenAPI documents one at a time for openapi-reader.ts, in a worker thread. */
// Loaded before the first document, so the reader's deadline measures the document's work alone.
await import('@readme/openapi-parser');
parentPort!.postMessage({ ready: true });
parentPort!.on('message', async ({ id, source }: { id: number; source: OpenApiSource }) => {
  try {
    parentPort!.postMessage({ id, result: await digestOpenApiDocument(source) });
  } catch (err) {
    // A bug or an exhausted stack in a library is this document's failure, not the server's.
    const message = String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 300);
    parentPort!.postMessage({ id, result: fail('invalid_openapi_spec', `The OpenAPI document could not be read: ${message}.`) });
  }
});
