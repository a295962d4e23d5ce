import type { AppContext } from '../deps.ts';
import { listCaseEvents } from '../../storage/case-events.ts';
import { loadCaseState } from '../cases/load-case.ts';
import { caseNotFound } from '../cases/read-case.ts';
import { ok, type Result } from '../errors.ts';
import { buildCasePackage, type CasePackage } from '../package/case-package.ts';
import { renderCaseFilePdf } from '../package/case-file-pdf.ts';
import { caseFileUrl, signCaseFileToken } from '../package/case-file-token.ts';
import type { Tenant } from '../../ports/tenant.ts';

/** The review-ready package, as GET /api/v1/cases/{id}/package answers it (with a fresh case-file link). */
export async function readConsolePackage(
  ctx: Pick<AppContext, 'db' | 'config' | 'secret' | 'clock'>,
  input: { tenant: Tenant; caseId: string },
): Promise<Result<CasePackage>> {
  const { tenant, caseId } = input;
  const state = await loadCaseState(ctx, { tenant, caseId });
  if (!state) return caseNotFound(caseId);
  const appUrl = ctx.config.appUrl;
  const url = appUrl ? caseFileUrl(appUrl, state.caseId, signCaseFileToken(ctx.secret, state.caseId, ctx.clock.now())) : null;
  return ok(buildCasePackage(state, url));
}

/** The sealed case-file PDF, the same document the package's signed link serves. */
export async function renderConsoleCaseFile(ctx: Pick<AppContext, 'db' | 'clock'>, input: { tenant: Tenant; caseId: string }): Promise<Result<Uint8Array>> {
  const { tenant, caseId } = input;
  const state = await loadCaseState(ctx, { tenant, caseId });
  if (!state) return caseNotFound(caseId);
  const { events } = await listCaseEvents(ctx.db, tenant, caseId, 0, 10_000);
  const pdf = await renderCaseFilePdf(
    state,
    buildCasePackage(state, null),
    events.map((e) => ({ cursor: e.cursor, event_type: e.event_type, created_at: e.created_at.toISOString() })),
    ctx.clock.now(),
  );
  return ok(pdf);
}
