import { sql } from 'kysely';
import { PREPARED } from './database.ts';
import { claimIdempotencyKeyQuery, completeIdempotencyRecordQuery, type IdempotencyRow, type IdempotencyScope } from './idempotency.ts';
import type { CaseEventRow } from './case-events.ts';
import type { CaseRow, SessionRow } from './cases.ts';
import type { Executor, OrgRow, Tx } from './schema.ts';
import type { CaseEventsTable, CasesTable, SessionsTable } from './tables/cases.ts';
import { incrementUsageCounterQuery, type UsagePeriodKey } from './usage-counters.ts';
import type { Tenant } from '../ports/tenant.ts';

/*
 * Session creation in two statements between BEGIN and COMMIT (issue 16; it sent 13 before), both
 * prepared on PostgreSQL (database.ts, PREPARED):
 *
 *   1. claimKeyAndReadSessionGates: the idempotency claim, the workspace, the month's count, the
 *      case type's version, whether the external id is taken, and the usage lock;
 *   2. insertSessionWithCase: the case, its two events, the session, the usage count
 *      and the completed idempotency record.
 *
 * What keeps the guarantees (docs/decisions.md, "Sessions, idempotency and gates"):
 *   - Exactly once: the claim is the same upsert as claimIdempotencyKey. The gate read's other
 *     parts may run on a snapshot taken before the claim waited for a concurrent holder of the
 *     key; nothing exact rests on them (the count is read again under the lock in statement 2,
 *     the external id is decided by its unique index).
 *   - The exact cap: the usage lock is taken in statement 1, after the claim (the CASE reads the
 *     claim first) and only when the key was claimed, so statement 2's snapshot is taken under the
 *     lock, which is what the sharded count needs (src/domain/usage/usage.ts). Shared far from
 *     the cap; exclusive near it, decided on the count the same statement read, so a creator never
 *     upgrades a lock it holds.
 *   - Gapless cursors: the case is new and invisible to others until commit, so its two events
 *     carry cursors 1 and 2 and the row is inserted with last_event_cursor 2.
 *   - Event and outbox atomicity: both statements are in the session's transaction; the two
 *     events of a creation are not webhook events (the domain checks it and enqueues if that
 *     changes).
 *   - cases.revision: the child trigger on sessions skips a case row written by the
 *     same transaction, so the statement leaves revision 1, as inserting the rows one by one did.
 */

export interface SessionGateRead {
  /** False when the key is not this transaction's: a replay, a conflict or a key still in flight. */
  claimed: boolean;
  /** Undefined when the workspace no longer exists. */
  org: OrgRow | undefined;
  /** Sessions committed this period (the sharded counter's sum), as the statement saw it. */
  used: number;
  /** The case type's current workflow version; undefined when the workspace has no such type. */
  caseTypeVersion: string | undefined;
  externalCaseIdTaken: boolean;
  /** The usage lock this transaction now holds; null when it took none (no cap, cap reached, not claimed). */
  usageLock: 'shared' | 'exclusive' | null;
}

export interface SessionGateQuery extends Tenant {
  claim: { scope: IdempotencyScope; fingerprint: string; now: Date; expiresAt: Date };
  period: string;
  caseTypeId: string;
  externalCaseId: string | null;
  usage: {
    /** The cap that applies: the workspace's live cap column, or a fixed number (the test cap). */
    cap: 'org_live_usage_cap' | number;
    /** Below `cap - nearCapMargin` the lock is shared, from there to the cap exclusive. */
    nearCapMargin: number;
    lockKey: string;
  };
}

/**
 * A column list as one piece of text, built once per list: lists of identifiers are what made
 * Kysely's compile of these statements costly. The names are this file's constants, never input.
 */
const columnLists = new Map<string, ReturnType<typeof sql.raw>>();
function columnList(columns: readonly string[], prefix = '') {
  const key = `${prefix}${columns.join(',')}`;
  let list = columnLists.get(key);
  if (!list) {
    for (const c of columns) if (!/^[a-z_]+$/.test(c)) throw new Error(`not a column name: ${c}`);
    list = sql.raw(columns.map((c) => `${prefix}"${c}"`).join(', '));
    columnLists.set(key, list);
  }
  return list;
}

/**
 * The workspace's columns, named: both statements run prepared (database.ts says why `*` is not
 * allowed there). The check below fails to compile when the table gains a column this list lacks.
 */
const ORG_COLUMNS = ['org_id', 'name', 'billing_status', 'legal_terms_version', 'legal_accepted_at', 'legal_accepted_by', 'live_usage_cap', 'created_at', 'updated_at'] as const;
const everyOrgColumn: Exclude<keyof OrgRow, (typeof ORG_COLUMNS)[number]> extends never ? true : never = true;
void everyOrgColumn;

/**
 * Statement 1 of a session creation (see above). The lock subqueries are correlated with the
 * workspace row so that PostgreSQL evaluates them only in the CASE branch that is taken.
 */
export async function claimKeyAndReadSessionGates(tx: Tx, q: SessionGateQuery): Promise<SessionGateRead> {
  const { scope, fingerprint, now, expiresAt } = q.claim;
  const cap = q.usage.cap === 'org_live_usage_cap' ? sql`o.live_usage_cap` : sql`${q.usage.cap}::int`;
  const result = await sql<OrgRow & { x_claimed: boolean; x_used: number | null; x_case_type_version: string | null; x_external_taken: boolean | null; x_usage_lock: 'shared' | 'exclusive' | null }>`
${sql.raw(PREPARED)}with claim as (${claimIdempotencyKeyQuery(scope, fingerprint, now, expiresAt)}),
    gate as (
      select ${columnList(ORG_COLUMNS, 'o.')},
        (select coalesce(sum(u.sessions_created), 0)::int from usage_counters u
          where u.org_id = o.org_id and u.environment = ${q.environment} and u.period = ${q.period}) as x_used,
        (select ct.workflow_version from case_types ct
          where ct.org_id = o.org_id and ct.environment = ${q.environment} and ct.case_type_id = ${q.caseTypeId}) as x_case_type_version,
        exists (select 1 from cases c
          where c.org_id = o.org_id and c.environment = ${q.environment} and c.external_case_id = ${q.externalCaseId}::text) as x_external_taken,
        ${cap} as x_cap
      from orgs o where o.org_id = ${q.orgId}
    )
    select ${columnList(ORG_COLUMNS, 'g.')}, g.x_used, g.x_case_type_version, g.x_external_taken, exists (select 1 from claim) as x_claimed,
      case
        when not exists (select 1 from claim) or g.x_cap is null or g.x_used >= g.x_cap then null
        when g.x_used + ${q.usage.nearCapMargin}::int < g.x_cap
          then (select 'shared' from pg_advisory_xact_lock_shared(hashtext(${q.usage.lockKey})) where g.org_id is not null)
        else (select 'exclusive' from pg_advisory_xact_lock(hashtext(${q.usage.lockKey})) where g.org_id is not null)
      end as x_usage_lock
    from (select 1) as one left join gate g on true`.execute(tx);
  const row = result.rows[0]!;
  const { x_claimed, x_used, x_case_type_version, x_external_taken, x_usage_lock, ...org } = row;
  return {
    claimed: x_claimed,
    // The left join answers a row of nulls when the workspace is gone.
    org: org.org_id === null ? undefined : org,
    used: Number(x_used ?? 0),
    caseTypeVersion: x_case_type_version ?? undefined,
    externalCaseIdTaken: x_external_taken === true,
    usageLock: x_usage_lock,
  };
}

export interface NewSessionWithCase {
  /** Rows as they read back (jsonb columns as values): they travel as JSON, one parameter per table. */
  caseRow: CaseRow;
  events: CaseEventRow[];
  session: SessionRow;
  /** `below`: count only while the month's count is below it (null: always count). */
  usage: { key: UsagePeriodKey; shard: number; below: number | null };
  /** The idempotency record's answer, stored in the same statement. */
  answer: { scope: IdempotencyScope; status: number; body: Record<string, unknown> };
}

/** Every column of a table, checked by the compiler both ways (none missing, none unknown). */
const columnsOf = <T>(columns: Record<keyof T, true>) => Object.keys(columns) as (keyof T & string)[];
const CASE_COLUMNS = columnsOf<CasesTable>({
  case_id: true, org_id: true, environment: true, case_type_id: true, workflow_id: true, workflow_version: true, operating_mode: true,
  runtime_status: true, origin: true, external_case_id: true, external_applicant_id: true, external_customer_id: true, metadata: true,
  locale: true, structured_inputs: true, prefill: true, current_node_id: true, current_gate_id: true, gate_results: true, case_status: true,
  decision_reason: true, completed_at: true, handoff_state: true, handoff_delivery_id: true, handoff_acknowledged_at: true,
  last_event_cursor: true, status_changed_at: true, queue_category: true, queue_status: true, queue_row: true, assigned_to: true, assigned_at: true,
  created_at: true, updated_at: true,
});
const EVENT_COLUMNS = columnsOf<CaseEventsTable>({
  event_id: true, case_id: true, org_id: true, environment: true, cursor: true, event_type: true, data: true, created_at: true,
});
const SESSION_COLUMNS = columnsOf<SessionsTable>({
  session_id: true, case_id: true, org_id: true, environment: true, status: true, token_hash: true, return_url: true, locale: true,
  expires_at: true, submitted_at: true, created_at: true,
});

/** The columns a creation writes, by table: migration 0029's function must name the same. */
export const CREATION_COLUMNS = { cases: CASE_COLUMNS, case_events: EVENT_COLUMNS, sessions: SESSION_COLUMNS } as const;

/**
 * `insert into <table> (<columns>) select <columns> from jsonb_populate_recordset(null::<table>, $n)`:
 * the rows go as one JSON parameter, so the text does not depend on the data (one prepared
 * statement whatever the number of rows) and Kysely does not walk an insert of 60-odd values on
 * every creation (its building and compiling were 8 % of the server's CPU under the creation load).
 * Columns left out of the JSON are null; none is, since every column is listed and every row has it.
 */
function insertFromJson(table: 'cases' | 'case_events' | 'sessions', columns: readonly string[], rows: object[]) {
  const list = columnList(columns);
  return sql`insert into ${sql.raw(table)} (${list}) select ${list} from jsonb_populate_recordset(null::${sql.raw(table)}, ${JSON.stringify(rows)}::jsonb)`;
}

/**
 * Statement 2 of a session creation (see above): everything it writes, in one round trip. Returns
 * whether the session was counted; when it was not, the caller must roll back (the rows are
 * written regardless, since data-modifying CTEs always run).
 */
export async function insertSessionWithCase(tx: Tx, input: NewSessionWithCase): Promise<{ counted: boolean }> {
  const result = await sql<{ counted: boolean }>`${sql.raw(PREPARED)}with new_case as (${insertFromJson('cases', CASE_COLUMNS, [input.caseRow])}),
    new_events as (${insertFromJson('case_events', EVENT_COLUMNS, input.events)}),
    new_session as (${insertFromJson('sessions', SESSION_COLUMNS, [input.session])}),
    answered as (${completeIdempotencyRecordQuery(input.answer.scope, input.answer.status, input.answer.body)}),
    counted as (${incrementUsageCounterQuery(input.usage.key, input.usage.shard, input.usage.below)})
    select exists (select 1 from counted) as counted`.execute(tx);
  return { counted: result.rows[0]!.counted };
}

/** What a one-call creation decided on, re-read by the function in the same transaction as its write. */
export interface SessionDecisionInputs extends Tenant {
  /** The workspace's gate columns as the domain read them. */
  org: Pick<OrgRow, 'billing_status' | 'legal_terms_version' | 'live_usage_cap'>;
  caseTypeId: string;
  workflowVersion: string;
  externalCaseId: string | null;
}

export interface SessionAtOnce {
  decidedOn: SessionDecisionInputs;
  claim: { scope: IdempotencyScope; fingerprint: string; now: Date; expiresAt: Date };
  /** The cap that applies (null: none); the function refuses from `cap - nearCapMargin` on. */
  usage: { key: UsagePeriodKey; shard: number; cap: number | null; nearCapMargin: number; lockKey: string };
  rows: Pick<NewSessionWithCase, 'caseRow' | 'events' | 'session'>;
  answer: NewSessionWithCase['answer'];
}

/**
 * `created`: committed. `recorded`: the key's committed record (a replay or a conflict). `stale`
 * and `declined`: nothing was written, and the caller takes the general path (migration 0029).
 */
export type SessionAtOnceOutcome =
  | { outcome: 'created' | 'stale' | 'declined' }
  | { outcome: 'recorded'; record: Pick<IdempotencyRow, 'fingerprint' | 'response_status' | 'response_body' | 'expires_at'> };

/**
 * A whole session creation as one statement outside any transaction (migration 0029,
 * `create_session_at_once`): one round trip where the general path makes four.
 */
export async function createSessionAtOnce(db: Executor, input: SessionAtOnce): Promise<SessionAtOnceOutcome> {
  const { decidedOn: d, claim, usage, rows, answer } = input;
  const p = {
    gate: {
      org_id: d.orgId,
      environment: d.environment,
      billing_status: d.org.billing_status,
      legal_terms_version: d.org.legal_terms_version,
      live_usage_cap: d.org.live_usage_cap,
      case_type_id: d.caseTypeId,
      workflow_version: d.workflowVersion,
      external_case_id: d.externalCaseId,
    },
    claim: {
      operation: claim.scope.operation,
      key: claim.scope.key,
      fingerprint: claim.fingerprint,
      now: claim.now.toISOString(),
      expires_at: claim.expiresAt.toISOString(),
      status: answer.status,
      answer: answer.body,
    },
    usage: { period: usage.key.period, shard: usage.shard, cap: usage.cap, margin: usage.nearCapMargin, lock_key: usage.lockKey },
    case: rows.caseRow,
    events: rows.events,
    session: rows.session,
  };
  try {
    const result = await sql<{ answer: { outcome: 'created' | 'stale' } | { outcome: 'recorded'; fingerprint: string; status: number; body: Record<string, unknown>; expires_at: string } }>`${sql.raw(PREPARED)}select create_session_at_once(${JSON.stringify(p)}::jsonb) as answer`.execute(db);
    const answer = result.rows[0]!.answer;
    if (answer.outcome !== 'recorded') return { outcome: answer.outcome };
    return {
      outcome: 'recorded',
      record: { fingerprint: answer.fingerprint, response_status: answer.status, response_body: answer.body, expires_at: new Date(answer.expires_at) },
    };
  } catch (err) {
    if ((err as { code?: unknown }).code === 'DS001') return { outcome: 'declined' };
    throw err;
  }
}
