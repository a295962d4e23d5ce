import { lockSession, type SessionRow } from '../../storage/cases.ts';
import type { Tx } from '../../storage/schema.ts';
import { fail, ok, type Failure, type Result } from '../errors.ts';
import { sessionTokenMatches } from '../sessions/session-token.ts';

/** What an applicant presents: the session id (public: it is in webhook envelopes) and the link's token (secret). */
export interface ApplicantProof {
  sessionId: string;
  token: string;
}

/** A UUID as the session id is written; anything else cannot name a session and costs no query. */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Every applicant operation starts here: the session must exist and the token must hash to the
 * stored hash, compared in constant time. `session_id` alone proves nothing, since it appears in
 * webhook envelopes and case events. The session row is locked, so two writes of one applicant
 * (a double click) run one after the other. Unknown session and wrong token answer alike, so the
 * answer does not tell which ids exist.
 */
export async function authorizeApplicant(tx: Tx, proof: ApplicantProof): Promise<Result<SessionRow>> {
  if (!wellFormedProof(proof)) return refusedProof();
  const session = await lockSession(tx, proof.sessionId);
  if (!session || !sessionTokenMatches(proof.token, session.token_hash)) return refusedProof();
  return ok(session);
}

/** A proof that could name a session at all; anything else is refused without a query. */
export function wellFormedProof(proof: ApplicantProof): boolean {
  return SESSION_ID.test(proof.sessionId) && proof.token.length > 0 && proof.token.length <= 256;
}

/** The one refusal for an unknown session and a wrong token alike. */
export function refusedProof(): Failure {
  return fail('forbidden', 'This link is not valid for this session: open the link you were sent again.');
}
