import type { AdminCommand } from './command.ts';

export const MIGRATE_COMMANDS: readonly AdminCommand[] = [
  {
    path: ['migrate'],
    usage: 'dossier migrate',
    options: {},
    // The runtime migrates as it opens; running again reports every step as already applied.
    run: async (_ctx, _values, _positionals, runtime) => runtime.migrations,
  },
];
