import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The workspace's @dossier/client is tested from its source (its `dossier-source` export), not a build.
  resolve: { alias: [{ find: /^@dossier\/client$/, replacement: fileURLToPath(new URL('packages/client/src/index.ts', import.meta.url)) }] },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Two cores: two files at a time keeps PGlite start-up and PostgreSQL from starving each other.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
