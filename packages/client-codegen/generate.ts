import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED_FILES, renderClientSources, withOpenApiDocument } from './render.ts';

/**
 * `npm run client:generate`: writes @dossier/client's generated sources.
 * `npm run client:generate -- --check`: exits 1, naming the files, when they are stale.
 */
const root = join(import.meta.dirname, '../..');
const check = process.argv.includes('--check');
const sources = await withOpenApiDocument(renderClientSources);
const stale: string[] = [];
for (const [name, file] of Object.entries(GENERATED_FILES) as [keyof typeof GENERATED_FILES, string][]) {
  const path = join(root, file);
  let current: string | null = null;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = null;
  }
  if (current === sources[name]) continue;
  stale.push(file);
  if (!check) writeFileSync(path, sources[name]);
}
if (check && stale.length > 0) {
  process.stderr.write(`stale generated files (run npm run client:generate): ${stale.join(', ')}\n`);
  process.exit(1);
}
process.stdout.write(stale.length === 0 ? 'generated files are up to date\n' : `wrote ${stale.join(', ')}\n`);
