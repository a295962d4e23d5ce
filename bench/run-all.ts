/** `npm run bench`: every benchmark in turn, each printing its figures and ratios. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const benches = ['api.ts', 'webhooks-fanout.ts', 'extraction.ts', 'console.ts', 'applicant.ts', 'document-store.ts'];
let failed = 0;
for (const file of benches) {
  const path = fileURLToPath(new URL(`./${file}`, import.meta.url));
  if (!existsSync(path)) continue;
  console.log(`\n== ${file} ==`);
  const run = spawnSync(process.execPath, [path], { stdio: 'inherit' });
  if (run.status !== 0) failed++;
}
process.exitCode = failed > 0 ? 1 : 0;
