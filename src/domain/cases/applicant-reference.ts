/**
 * The reference an applicant is given on the finish page (issue 26): the integrator's
 * `external_case_id` when the session was created with one (it is what their own letters and
 * support desk use), else a short form of our case id. `case_` + 24 base62 characters is too long
 * to read out on a phone; its first eight random characters, in two groups of four, are ~47 bits:
 * plenty to tell one workspace's cases apart, and an operator recognises them as the start of the
 * case id. The groups are joined by a hyphen, not a space, so the reference copies as one word.
 */
export function applicantReference(caseRow: { case_id: string; external_case_id: string | null }): string {
  if (caseRow.external_case_id) return caseRow.external_case_id;
  const random = caseRow.case_id.replace(/^case_/, '');
  return `${random.slice(0, 4)}-${random.slice(4, 8)}`;
}
