import { sql } from 'kysely';
import type { Migration } from './index.ts';

/*
 * Session creation in one round trip (issue 29, part D): `create_session_at_once(p jsonb)`, called
 * as a statement of its own (its own transaction), does what BEGIN, the gate read, the write and
 * COMMIT do on the general path (src/storage/session-creation.ts), for the case that is by far
 * the most common: a new key, a workspace and case type the process has seen, far from any cap.
 *
 * The gate rules stay in the TypeScript domain. The process decides them on the workspace and
 * case type it read last time (src/domain/sessions/gate-memory.ts) and hands the function what it
 * decided on; the function re-reads each of those inputs in the same transaction as the write and
 * writes nothing unless every one still holds. When one moved the caller takes the general path,
 * which reads everything afresh and gives the contract's answer (a refusal, a cap, a conflict):
 *
 * It answers `{"outcome": …}`:
 *
 *   'stale'        the workspace's gate columns or the case type's version are not what the
 *                  process decided on, or the month's count is near the cap;
 *   'recorded'     the idempotency key is not new: its committed record comes with the answer
 *                  (`fingerprint`, `status`, `body`, `expires_at`), for a replay or a conflict;
 *   'created'      everything is written: the key's record with its answer (the claim and the
 *                  answer are one row written once: the answer is known before the call), the
 *                  case, its two events, the session and the count. A new case's facts are all
 *                  pending and have no rows (src/domain/cases/case-facts.ts).
 *
 * After the claim the function declines by raising `DS001`, which rolls the claim back too: when
 * the external id is taken (the general path words the conflict), and when the count crossed the
 * near-cap margin under the shared lock (the general path's restart, which takes it exclusively).
 *
 * The exact cap holds as on the general path: the usage lock is taken after the claim, shared
 * (the function never runs near the cap), and the count is read again by the increment's own
 * statement, which in PL/pgSQL takes a snapshot after the lock.
 *
 * The column lists are this migration's: a later migration that adds a column to one of these
 * tables must replace the function (test/storage/session-creation-function.test.ts fails until
 * it does).
 */
export const createSessionFunction: Migration = {
  id: '0029_create_session_function',
  async up(trx) {
    await sql`
      create function create_session_at_once(p jsonb) returns jsonb language plpgsql as $$
      declare
        g jsonb := p->'gate';
        k jsonb := p->'claim';
        u jsonb := p->'usage';
        cap int := (u->>'cap')::int;
        used int;
      begin
        perform 1 from orgs o
          where o.org_id = g->>'org_id'
            and o.billing_status = g->>'billing_status'
            and o.legal_terms_version is not distinct from g->>'legal_terms_version'
            and o.live_usage_cap is not distinct from (g->>'live_usage_cap')::int;
        if not found then return '{"outcome": "stale"}'; end if;
        perform 1 from case_types ct
          where ct.org_id = g->>'org_id' and ct.environment = g->>'environment'
            and ct.case_type_id = g->>'case_type_id' and ct.workflow_version = g->>'workflow_version';
        if not found then return '{"outcome": "stale"}'; end if;
        if cap is not null then
          select coalesce(sum(sessions_created), 0) into used from usage_counters
            where org_id = g->>'org_id' and environment = g->>'environment' and period = u->>'period';
          if used + (u->>'margin')::int >= cap then return '{"outcome": "stale"}'; end if;
        end if;

        insert into idempotency_records (org_id, environment, operation, idempotency_key, fingerprint, response_status, response_body, created_at, expires_at)
          values (g->>'org_id', g->>'environment', k->>'operation', k->>'key', k->>'fingerprint', (k->>'status')::int, k->'answer',
                  (k->>'now')::timestamptz, (k->>'expires_at')::timestamptz)
          on conflict (org_id, environment, operation, idempotency_key) do update
            set fingerprint = excluded.fingerprint, response_status = excluded.response_status, response_body = excluded.response_body,
                created_at = excluded.created_at, expires_at = excluded.expires_at
            where idempotency_records.expires_at <= (k->>'now')::timestamptz;
        if not found then
          -- The key's record has committed (the upsert waited for any holder of it), and is answered here.
          return (select jsonb_build_object('outcome', 'recorded', 'fingerprint', r.fingerprint, 'status', r.response_status,
                    'body', r.response_body, 'expires_at', r.expires_at)
                  from idempotency_records r
                  where r.org_id = g->>'org_id' and r.environment = g->>'environment' and r.operation = k->>'operation' and r.idempotency_key = k->>'key');
        end if;

        -- After the claim, so that a replay of a request with an external id is answered here.
        if g->>'external_case_id' is not null then
          perform 1 from cases c
            where c.org_id = g->>'org_id' and c.environment = g->>'environment' and c.external_case_id = g->>'external_case_id';
          if found then
            raise exception 'external_case_id is taken' using errcode = 'DS001';
          end if;
        end if;
        if cap is not null then
          perform pg_advisory_xact_lock_shared(hashtext(u->>'lock_key'));
        end if;
        insert into usage_counters (org_id, environment, period, shard, sessions_created)
          select g->>'org_id', g->>'environment', u->>'period', (u->>'shard')::int, 1
          where cap is null
             or (select coalesce(sum(sessions_created), 0) from usage_counters
                 where org_id = g->>'org_id' and environment = g->>'environment' and period = u->>'period') < cap - (u->>'margin')::int
          on conflict (org_id, environment, period, shard) do update set sessions_created = usage_counters.sessions_created + 1;
        if not found then
          raise exception 'the month''s session count crossed the near-cap margin' using errcode = 'DS001';
        end if;

        insert into cases (case_id, org_id, environment, case_type_id, workflow_id, workflow_version, operating_mode, runtime_status,
            origin, external_case_id, external_applicant_id, external_customer_id, metadata, locale, structured_inputs, prefill,
            current_node_id, current_gate_id, gate_results, case_status, decision_reason, completed_at, handoff_state,
            handoff_delivery_id, handoff_acknowledged_at, last_event_cursor, status_changed_at, queue_category, queue_status,
            queue_row, assigned_to, assigned_at, created_at, updated_at)
          select case_id, org_id, environment, case_type_id, workflow_id, workflow_version, operating_mode, runtime_status,
            origin, external_case_id, external_applicant_id, external_customer_id, metadata, locale, structured_inputs, prefill,
            current_node_id, current_gate_id, gate_results, case_status, decision_reason, completed_at, handoff_state,
            handoff_delivery_id, handoff_acknowledged_at, last_event_cursor, status_changed_at, queue_category, queue_status,
            queue_row, assigned_to, assigned_at, created_at, updated_at
          from jsonb_populate_record(null::cases, p->'case');
        insert into case_events (event_id, case_id, org_id, environment, cursor, event_type, data, created_at)
          select event_id, case_id, org_id, environment, cursor, event_type, data, created_at
          from jsonb_populate_recordset(null::case_events, p->'events');
        -- The case is this transaction's: its session need not move its revision (migration 0030).
        perform set_config('dossier.creating_case', 'on', true);
        insert into sessions (session_id, case_id, org_id, environment, status, token_hash, return_url, locale, expires_at,
            submitted_at, created_at)
          select session_id, case_id, org_id, environment, status, token_hash, return_url, locale, expires_at,
            submitted_at, created_at
          from jsonb_populate_record(null::sessions, p->'session');

        perform set_config('dossier.creating_case', 'off', true);
        return '{"outcome": "created"}';
      end $$`.execute(trx);
  },
};
