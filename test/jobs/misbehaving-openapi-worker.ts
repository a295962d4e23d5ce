/**
 * A stand-in OpenAPI reader worker for the reader's tests: the document's `x-do` says what to do.
 * `hang` spins synchronously (no timer can interrupt it), `heap` fills the JavaScript heap, and
 * anything else answers with a digest of no operations titled with the worker's thread id.
 */
import { parentPort, threadId } from 'node:worker_threads';

const held: unknown[] = [];
parentPort!.postMessage({ ready: true });
parentPort!.on('message', ({ id, source }: { id: number; source: { value: { 'x-do'?: string } } }) => {
  const command = source.value['x-do'];
  if (command === 'hang') for (;;);
  if (command === 'heap') for (;;) held.push(Array.from({ length: 10_000 }, (_, i) => ({ i })));
  parentPort!.postMessage({ id, result: { ok: true, value: { servers: [], title: String(threadId), securitySchemes: {}, security: [], operationIds: [], nonJson: [], collisions: [], operations: [] } } });
});
