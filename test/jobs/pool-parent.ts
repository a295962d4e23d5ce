/**
 * A process that owns an extraction pool whose child hangs: it prints the child's pid and waits
 * to be killed. The pool test kills it with SIGKILL and checks the child does not outlive it.
 */
import { readFileSync } from 'node:fs';
import { createExtractionPool } from '../../src/jobs/extraction-pool.ts';

const pool = createExtractionPool({ size: 1, childModule: new URL('./misbehaving-child.ts', import.meta.url), limits: { timeoutMs: 600_000 } });
void pool.extractPages({ bytes: new TextEncoder().encode('hang') }).catch(() => {});
// Announced once the child has spent a second of CPU: past its start-up, spinning on 'hang'.
const announce = setInterval(() => {
  const pid = pool.pids[0];
  if (pid === undefined) return;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  if (Number(fields[11]) + Number(fields[12]) < 100) return;
  clearInterval(announce);
  process.stdout.write(`${pid}\n`);
}, 50);
setInterval(() => {}, 60_000);
