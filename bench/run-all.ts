/** `npm run bench`: every benchmark in turn, each printing its figures and ratios. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const benches = ['api.ts', 'webhooks-fanout.ts', 'extraction.ts', 'console.ts', 'applicant.ts', 'document-store.ts'];
// Each bench pins its own processes (support.ts, cpuPinning); this one stays unpinned, or every
// bench it starts would inherit its core.
const taskset = spawnSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' }).status === 0;
console.log(
  `${availableParallelism()} cores, taskset ${taskset ? 'available' : 'missing'}${process.env.BENCH_PIN === '0' ? ', BENCH_PIN=0' : ''}: ` +
    (taskset && availableParallelism() >= 2 && process.env.BENCH_PIN !== '0' ? 'api.ts and profile.ts pin the load generator to core 0 and the server to core 1' : 'nothing is pinned'),
);
let failed = 0;
for (const file of benches) {
  const path = fileURLToPath(new URL(`./${file}`, import.meta.url));
  if (!existsSync(path)) continue;
  console.log(`\n== ${file} ==`);
  const run = spawnSync(process.execPath, [path], { stdio: 'inherit' });
  if (run.status !== 0) failed++;
}
process.exitCode = failed > 0 ? 1 : 0;
