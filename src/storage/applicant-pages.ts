import { sql } from 'kysely';
import type { Executor } from './schema.ts';
import type { Environment } from '../config.ts';
import type { RuntimeStatus, SessionStatus } from './tables/cases.ts';

/** One uploaded file as the applicant's pages list it. */
export interface ApplicantDocumentRow {
  doc_id: string;
  document_kind: string | null;
  filename: string | null;
  status: string;
  failure_reason: string | null;
  byte_size: number | null;
}

/** Everything one applicant page reads, keyed by the session: the session, its case, the org's name, files, open questions. */
export interface ApplicantPageRow {
  session_id: string;
  case_id: string;
  external_case_id: string | null;
  token_hash: string;
  status: SessionStatus;
  expires_at: Date;
  return_url: string | null;
  locale: string | null;
  org_id: string;
  environment: Environment;
  case_type_id: string;
  workflow_version: string;
  runtime_status: RuntimeStatus;
  prefill: Record<string, unknown>;
  structured_inputs: Record<string, unknown>;
  org_name: string;
  documents: ApplicantDocumentRow[];
  /** Fact ids with an open follow-up question, oldest first. */
  open_follow_ups: string[];
}

/**
 * The applicant page read in one round trip. It was five sequential queries (session, case, org,
 * documents, follow-ups); on PGlite each costs a trip through the single WASM connection, and on a
 * loaded machine the queue in front of it, so one statement is what keeps a page under its p95.
 */
export async function findApplicantPage(db: Executor, sessionId: string): Promise<ApplicantPageRow | undefined> {
  const result = await sql<Omit<ApplicantPageRow, 'expires_at' | 'documents' | 'open_follow_ups'> & { expires_at: Date | string; documents: ApplicantDocumentRow[]; open_follow_ups: string[] }>`
    select s.session_id, s.case_id, s.token_hash, s.status, s.expires_at, s.return_url, s.locale,
      c.external_case_id, c.org_id, c.environment, c.case_type_id, c.workflow_version, c.runtime_status, c.prefill, c.structured_inputs,
      coalesce(o.name, '') as org_name,
      coalesce((select json_agg(json_build_object('doc_id', d.doc_id, 'document_kind', d.document_kind, 'filename', d.filename,
          'status', d.status, 'failure_reason', d.failure_reason, 'byte_size', d.byte_size) order by d.created_at, d.doc_id)
        from documents d where d.case_id = s.case_id and d.status <> 'erased' and d.source = 'upload'), '[]'::json) as documents,
      coalesce((select json_agg(q.fact_id order by q.created_at) from follow_up_questions q where q.case_id = s.case_id and q.status = 'open'), '[]'::json) as open_follow_ups
    from sessions s
    join cases c on c.case_id = s.case_id
    left join orgs o on o.org_id = c.org_id
    where s.session_id = ${sessionId}`.execute(db);
  const row = result.rows[0];
  if (!row) return undefined;
  return { ...row, expires_at: new Date(row.expires_at) };
}
