import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');
const SPEC = 'spec/api-spec.md';

/**
 * The lead's shared folder (the binding spec) is not part of the repo: CI checks the repo out with
 * `shared/` beside it (`../shared`), while a git worktree such as /work/wt/<branch> sits one level
 * deeper. So the nearest ancestor holding `shared/spec/api-spec.md` wins; DOSSIER_SHARED_DIR
 * overrides. Missing, the answer says why.
 */
export function findSharedFolder(): { ok: true; dir: string } | { ok: false; reason: string } {
  const override = process.env.DOSSIER_SHARED_DIR;
  if (override) {
    return existsSync(join(override, SPEC)) ? { ok: true, dir: override } : { ok: false, reason: `DOSSIER_SHARED_DIR=${override} holds no ${SPEC}` };
  }
  for (let dir = dirname(ROOT); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'shared', SPEC))) return { ok: true, dir: join(dir, 'shared') };
    if (dirname(dir) === dir) break;
  }
  return { ok: false, reason: `no shared/${SPEC} beside ${ROOT} or in any folder above it; set DOSSIER_SHARED_DIR to the shared folder` };
}
