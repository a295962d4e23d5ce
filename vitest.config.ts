import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// Every process the tests start (test workers, `dossier` CLIs and servers, extraction children)
// compiles the same node_modules: Node's on-disk compile cache lets all but the first skip it.
process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'dossier-node-compile-cache');

/**
 * Files that must run in a fresh process of their own. Everything else shares its worker with the
 * files run before it (`isolate: false`): the app's modules, PGlite's compiled WebAssembly and the
 * parsers are loaded once per worker instead of once per file.
 */
const ISOLATED: string[] = [];

const INCLUDE = ['test/**/*.test.ts', 'src/**/*.test.ts'];

export default defineConfig({
  // The workspace's @dossier/client is tested from its source (its `dossier-source` export), not a build.
  resolve: { alias: [{ find: /^@dossier\/client$/, replacement: fileURLToPath(new URL('packages/client/src/index.ts', import.meta.url)) }] },
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Two cores: two files at a time keeps PGlite start-up and PostgreSQL from starving each other.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      { extends: true, test: { name: 'shared', include: INCLUDE, exclude: [...configDefaults.exclude, ...ISOLATED], isolate: false } },
      ...(ISOLATED.length > 0 ? [{ extends: true, test: { name: 'isolated', include: ISOLATED, isolate: true } }] : []),
    ],
  },
});
