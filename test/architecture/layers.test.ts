import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layer rules of docs/decisions.md ("Structure: where a query lives"), checked on the import
 * graph and on the source text, so a shortcut fails here instead of in a reader's head:
 *
 * - Kysely queries are built only in src/storage. Every other folder calls storage operations by
 *   name (`lockCase`, `selectCaseFacts`) and never imports kysely or builds SQL.
 * - src/domain never imports the composition root (app-context, runtime) nor the layers that call
 *   it (http, web, jobs, cli): its dependencies arrive through `deps` (src/domain/deps.ts).
 * - src/storage and src/ports import nothing from the layers above them.
 * - src/http and src/web (the request faces) call the domain; they never import a storage module
 *   for its code (types of rows are fine).
 */

const root = resolve(import.meta.dirname, '../..');
const src = join(root, 'src');

interface Import {
  /** Path relative to src/, e.g. `storage/cases.ts`, or the bare package name. */
  target: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

// TypeScript 7 has no JavaScript API, so imports are read with patterns; the codebase's imports
// are all static `import … from '…'` / `export … from '…'` statements or `import('…')` calls.
const STATIC_IMPORT = /^\s*(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s*'([^']+)'/gm;
const BARE_IMPORT = /^\s*import\s+'([^']+)'/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*'([^']+)'\s*\)/g;

function importsOf(file: string, text: string): Import[] {
  const target = (name: string) => (name.startsWith('.') ? relative(src, resolve(dirname(file), name)) : name);
  const found: Import[] = [];
  for (const m of text.matchAll(STATIC_IMPORT)) {
    const named = /^\{([^}]*)\}$/.exec(m[2]!.trim());
    const bindings = named ? named[1]!.split(',').map((b) => b.trim()).filter(Boolean) : [];
    const typeOnly = m[1] !== undefined || (bindings.length > 0 && bindings.every((b) => b.startsWith('type ')));
    found.push({ target: target(m[3]!), typeOnly });
  }
  for (const m of text.matchAll(BARE_IMPORT)) found.push({ target: target(m[1]!), typeOnly: false });
  for (const m of text.matchAll(DYNAMIC_IMPORT)) found.push({ target: target(m[1]!), typeOnly: false });
  return found;
}

const files = sourceFiles(src).map((path) => {
  const text = readFileSync(path, 'utf8');
  return { path: relative(src, path), text, imports: importsOf(path, text) };
});

const layerOf = (path: string) => path.split('/')[0]!;
const inLayer = (...layers: string[]) => files.filter((f) => layers.includes(layerOf(f.path)));
const QUERY_BUILDING = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql`|\bsql<[^>]*>`/;

function violations(selected: typeof files, forbidden: (imp: Import) => boolean): string[] {
  return selected.flatMap((f) => f.imports.filter(forbidden).map((imp) => `${f.path} → ${imp.target}${imp.typeOnly ? ' (type)' : ''}`));
}

describe('layers', () => {
  it('sees the source tree (a test that parsed nothing would pass anything)', () => {
    expect(inLayer('domain').length).toBeGreaterThan(50);
    expect(inLayer('storage').length).toBeGreaterThan(20);
    expect(inLayer('http').length).toBeGreaterThan(10);
    expect(files.some((f) => f.imports.some((i) => i.target === 'kysely'))).toBe(true);
  });

  it('builds queries only in src/storage', () => {
    const outside = files.filter((f) => layerOf(f.path) !== 'storage');
    expect(violations(outside, (imp) => imp.target === 'kysely' || imp.target.startsWith('kysely/'))).toEqual([]);
    expect(outside.filter((f) => QUERY_BUILDING.test(f.text)).map((f) => f.path)).toEqual([]);
  });

  it('keeps the domain free of the composition root and of the layers above it', () => {
    const above = ['app-context.ts', 'runtime.ts', 'http', 'web', 'jobs', 'cli'];
    expect(violations(inLayer('domain'), (imp) => above.includes(layerOf(imp.target)))).toEqual([]);
  });

  it('lets storage and ports import nothing from above them', () => {
    const above = ['domain', 'app-context.ts', 'runtime.ts', 'http', 'web', 'jobs', 'cli', 'metrics'];
    expect(violations(inLayer('storage', 'ports'), (imp) => above.includes(layerOf(imp.target)))).toEqual([]);
  });

  it('sends the request faces (http, web) through the domain, never straight to storage code', () => {
    expect(violations(inLayer('http', 'web'), (imp) => layerOf(imp.target) === 'storage' && !imp.typeOnly)).toEqual([]);
  });
});
