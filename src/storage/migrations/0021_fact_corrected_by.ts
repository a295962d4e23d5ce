import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * Who last changed a fact's value by hand (issue 26): `applicant` when the applicant corrected
 * what was read from their document (the evidence stays, it shows what was read), `operator`
 * for an operator's correction, null for a value as read or answered. The previous value is
 * in fact_corrections either way.
 */
export const factCorrectedBy: Migration = {
  id: '0021_fact_corrected_by',
  async up(trx) {
    await sql`alter table facts add column corrected_by text check (corrected_by in ('applicant', 'operator'))`.execute(trx);
  },
};
