import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * `npm run build -w @dossier/client [-- <outDir>]`: ESM and .d.ts from src/ into dist/ (or outDir),
 * with the repository's TypeScript. The output imports nothing but itself.
 */
const packageDir = join(import.meta.dirname, '..');
const outDir = process.argv[2] ?? join(packageDir, 'dist');
const tsc = join(dirname(createRequire(join(packageDir, 'package.json')).resolve('typescript/package.json')), 'bin/tsc');
rmSync(outDir, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', join(packageDir, 'tsconfig.json'), '--outDir', outDir], { stdio: 'inherit' });

// rewriteRelativeImportExtensions rewrites the JavaScript but leaves `./x.ts` in declarations,
// which a consumer without allowImportingTsExtensions refuses.
for (const entry of readdirSync(outDir, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
  const file = join(entry.parentPath, entry.name);
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace(/((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]+)\.ts(['"])/g, '$1$2.js$3'));
}
