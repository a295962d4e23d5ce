import { listCaseEvents } from '../../storage/case-events.ts';
import { findStoredCaseRecord, storeCaseRecord } from '../../storage/case-records.ts';
import { findCase, findCaseSnapshot } from '../../storage/cases.ts';
import type { Executor } from '../../storage/schema.ts';
import { fail, ok, type Result } from '../errors.ts';
import { renderCaseRecord, type CaseRecord } from './case-record.ts';
import { loadCaseState, stateOfSnapshot } from './load-case.ts';
import type { Tenant } from '../../ports/tenant.ts';
import type { CaseRevisions } from '../../ports/case-revisions.ts';
import type { HeldCaseRecords } from './held-case-records.ts';

export function caseNotFound(caseId: string) {
  return fail('not_found', `No case ${caseId} in this workspace.`);
}

/** GET /api/v1/cases/{case_id}: the canonical current state. */
export async function readCaseRecord(deps: { db: Executor }, input: { tenant: Tenant; caseId: string }): Promise<Result<CaseRecord>> {
  const { db } = deps;
  const { tenant, caseId } = input;
  const state = await loadCaseState({ db }, { tenant, caseId });
  return state ? ok(renderCaseRecord(state)) : caseNotFound(caseId);
}

/** A case record as the JSON text to send, and the revision it renders (the ETag's source). */
export interface CaseRecordText {
  json: string;
  revision: number;
}

/**
 * GET /api/v1/cases/{case_id} on the hot path: one primary-key read returning stored text while
 * the case has not changed since it was rendered (migration 0015 explains why the revision cannot
 * miss a change), otherwise a render from one snapshot, stored for the next reader.
 *
 * With `held` (issue 29), text this process served before is sent again with no database read
 * while the revision mirror shows exactly the revision it renders: the writing process mirrors a
 * revision before its COMMIT (src/storage/database.ts), so a read after a committed change sees a
 * higher one and goes to the database. An unknown or expired mirror entry, or an unreachable
 * mirror, also goes to the database, whose answer then raises the mirror for the next reader.
 *
 * `verify` (VALIDATE_RESPONSES, on in every test) renders afresh on every read and fails loudly
 * when the stored text differs, so the whole suite checks that no change escapes the revision;
 * text served from `held` is checked against the database's revision the same way.
 */
export async function readCaseRecordText(
  deps: { db: Executor; format: string; verify: boolean; held?: { records: HeldCaseRecords; revisions: CaseRevisions } },
  input: { tenant: Tenant; caseId: string; /** The mirror's answer for this case, asked for earlier in this request. */ mirrored?: Promise<number | undefined> },
): Promise<Result<CaseRecordText>> {
  const { held } = deps;
  let mirrored: number | undefined;
  let trusted: { revision: number; json: string } | undefined;
  if (held) {
    const record = held.records.get(input.caseId);
    if (record && record.orgId === input.tenant.orgId && record.environment === input.tenant.environment) {
      mirrored = await (input.mirrored ?? held.revisions.current(input.caseId));
      if (mirrored === record.revision) {
        if (!deps.verify) return ok({ json: record.json, revision: record.revision });
        trusted = record;
      }
    }
  }
  const read = await readCaseRecordTextFromDatabase(deps, input);
  if (!read.ok || !held) return read;
  const { revision, json } = read.value;
  if (trusted && (trusted.revision !== revision || trusted.json !== json)) await expectMirrorToCatchUp(held.revisions, input.caseId, trusted, revision);
  held.records.hold(input.caseId, { orgId: input.tenant.orgId, environment: input.tenant.environment, revision, json });
  if (mirrored === undefined || mirrored < revision) await held.revisions.learned(input.caseId, revision);
  return read;
}

/**
 * Under `verify`, held text the mirror called current was not what the database holds. A write
 * that committed between the two reads is no fault: its mirror is already raised (a transaction
 * mirrors before COMMIT) or about to be (a single statement, as soon as it completes). A write
 * whose revision never reaches the mirror is the fault this check exists for.
 */
async function expectMirrorToCatchUp(revisions: CaseRevisions, caseId: string, trusted: { revision: number }, revision: number): Promise<void> {
  for (let waited = 0; waited <= 2_000; waited += 20) {
    const now = await revisions.current(caseId);
    if (now === undefined || now >= revision) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`held case record of ${caseId} at revision ${trusted.revision} was current by the revision mirror, but the database is at ${revision}: a change was not mirrored`);
}

async function readCaseRecordTextFromDatabase(deps: { db: Executor; format: string; verify: boolean }, input: { tenant: Tenant; caseId: string }): Promise<Result<CaseRecordText>> {
  const scope = { orgId: input.tenant.orgId, environment: input.tenant.environment, caseId: input.caseId };
  const current = await findStoredCaseRecord(deps.db, scope);
  if (!current) return caseNotFound(input.caseId);
  const { stored } = current;
  if (stored && stored.revision === current.revision && stored.format === deps.format && !deps.verify) {
    return ok({ json: stored.body, revision: stored.revision });
  }
  const snapshot = await findCaseSnapshot(deps.db, input.tenant, input.caseId);
  if (!snapshot) return caseNotFound(input.caseId);
  const json = JSON.stringify(renderCaseRecord(await stateOfSnapshot(deps.db, snapshot)));
  if (deps.verify && stored && stored.revision === snapshot.revision && stored.format === deps.format && stored.body !== json) {
    throw new Error(`stored case record of ${input.caseId} at revision ${stored.revision} differs from a fresh render: a change did not move cases.revision`);
  }
  await storeCaseRecord(deps.db, { caseId: input.caseId, revision: snapshot.revision, format: deps.format, body: json });
  return ok({ json, revision: snapshot.revision });
}

export interface CaseEventPage {
  case_id: string;
  events: { event_id: string; event_type: string; cursor: number; created_at: string; data: Record<string, unknown> }[];
  next_cursor: number;
  has_more: boolean;
}

/**
 * GET /api/v1/cases/{case_id}/events (spec §4.2). `next_cursor` is the last cursor returned, or
 * `after_cursor` when the page is empty, so a poller can always send it back unchanged.
 */
export async function readCaseEvents(
  deps: { db: Executor },
  input: { tenant: Tenant; caseId: string; afterCursor: number; limit: number },
): Promise<Result<CaseEventPage>> {
  const { db } = deps;
  const { tenant } = input;
  const found = await findCase(db, tenant, input.caseId);
  if (!found) return caseNotFound(input.caseId);
  const { events, hasMore } = await listCaseEvents(db, tenant, input.caseId, input.afterCursor, input.limit);
  return ok({
    case_id: input.caseId,
    events: events.map((e) => ({
      event_id: e.event_id,
      event_type: e.event_type,
      cursor: e.cursor,
      created_at: e.created_at.toISOString(),
      data: e.data,
    })),
    next_cursor: events.at(-1)?.cursor ?? input.afterCursor,
    has_more: hasMore,
  });
}
