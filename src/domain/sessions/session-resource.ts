import type { CaseRow, SessionRow } from '../../storage/cases.ts';

/** The Session resource of the API (spec §2.8, §4.4); a type, not an interface, so it is a JSON record for the idempotency store. */
export type SessionResource = {
  session_id: string;
  case_id: string;
  /** The applicant's link; null once it no longer opens anything (only its hash is stored, so it is shown once, at creation). */
  signed_url: string | null;
  expires_at: string;
  status: SessionRow['status'];
  case_type_id: string;
  workflow_version: string;
  external_case_id: string | null;
  external_applicant_id: string | null;
  external_customer_id: string | null;
  created_at: string;
};

type CaseFields = Pick<CaseRow, 'case_type_id' | 'workflow_version' | 'external_case_id' | 'external_applicant_id' | 'external_customer_id'>;

export function renderSession(input: { session: SessionRow; caseRow: CaseFields; signedUrl: string | null }): SessionResource {
  const { session, caseRow, signedUrl } = input;
  return {
    session_id: session.session_id,
    case_id: session.case_id,
    signed_url: signedUrl,
    expires_at: session.expires_at.toISOString(),
    status: session.status,
    case_type_id: caseRow.case_type_id,
    workflow_version: caseRow.workflow_version,
    external_case_id: caseRow.external_case_id,
    external_applicant_id: caseRow.external_applicant_id,
    external_customer_id: caseRow.external_customer_id,
    created_at: session.created_at.toISOString(),
  };
}
