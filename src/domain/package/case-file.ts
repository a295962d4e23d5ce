import { listCaseEvents } from '../../storage/case-events.ts';
import { loadCaseStateUnscoped } from '../cases/load-case.ts';
import type { AppContext } from '../deps.ts';
import { fail, ok, type Result } from '../errors.ts';
import { renderCaseFilePdf } from './case-file-pdf.ts';
import { buildCasePackage } from './case-package.ts';
import { verifyCaseFileToken } from './case-file-token.ts';

/**
 * The PDF case file behind the package's signed link. The token is the credential (no API key):
 * a missing, forged, foreign or expired token is `forbidden`.
 */
export async function readCaseFile(
  deps: Pick<AppContext, 'db' | 'clock' | 'secret'>,
  input: { caseId: string; token: string | undefined },
): Promise<Result<Uint8Array>> {
  const { caseId, token } = input;
  if (!token) return fail('forbidden', 'This case file link has no token.');
  const check = verifyCaseFileToken(deps.secret, caseId, token, deps.clock.now());
  if (!check.ok) {
    return fail(
      'forbidden',
      check.reason === 'expired' ? 'This case file link has expired; read the package again for a fresh link.' : 'This case file link is not valid.',
    );
  }
  const state = await loadCaseStateUnscoped(deps, { caseId });
  if (!state) return fail('not_found', `No case ${caseId}.`);
  const { events } = await listCaseEvents(deps.db, { orgId: state.orgId, environment: state.environment }, caseId, 0, 10_000);
  const pdf = await renderCaseFilePdf(
    state,
    buildCasePackage(state, null),
    events.map((e) => ({ cursor: e.cursor, event_type: e.event_type, created_at: e.created_at.toISOString() })),
    deps.clock.now(),
  );
  return ok(pdf);
}
