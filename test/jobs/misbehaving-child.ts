/**
 * A stand-in extraction child for the pool's tests: the document's text says what to do.
 * `hang` spins synchronously (no timer can interrupt it), `memory` allocates native memory until
 * killed, `crash` exits, `pid` answers with its own process id as the page text.
 */
import { dieWithParent } from '../../src/jobs/orphan-watch.ts';

dieWithParent(100);
const held: Buffer[] = [];

process.on('message', (message: { id: number; bytes: Uint8Array }) => {
  const command = Buffer.from(message.bytes).toString('utf8');
  if (command === 'hang') for (;;);
  if (command === 'crash') process.exit(7);
  if (command === 'memory') {
    setInterval(() => held.push(Buffer.alloc(64 * 1024 * 1024, 1)), 20);
    return;
  }
  process.send?.({ id: message.id, result: { ok: true, value: { mime_type: 'text/plain', pages: [{ page_index: 0, text: String(process.pid), method: 'plain' }] } } });
});
process.on('disconnect', () => process.exit(0));
