import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

/**
 * The lead's shared folder (the binding spec) is not part of the repo: CI checks the repo out with
 * `shared/` beside it (`../shared`), while a git worktree such as /work/wt/<branch> sits one level
 * deeper. So the nearest ancestor holding `shared/spec/api-spec.md` wins; DOSSIER_SHARED_DIR
 * overrides. Missing, it fails loudly: a spec test that cannot read the spec must not pass.
 */
export function sharedFile(...parts: string[]): string {
  const override = process.env.DOSSIER_SHARED_DIR;
  if (override) return join(override, ...parts);
  for (let dir = dirname(ROOT); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'shared/spec/api-spec.md'))) return join(dir, 'shared', ...parts);
    if (dirname(dir) === dir) break;
  }
  throw new Error(`no shared/spec/api-spec.md beside ${ROOT} or in any folder above it; set DOSSIER_SHARED_DIR to the shared folder`);
}
