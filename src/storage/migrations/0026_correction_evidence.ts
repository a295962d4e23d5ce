import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * Issue 27 §2. An operator's correction clears the fact's evidence (the typed value was not read
 * from a document), so the evidence the replaced value was read from is kept with the correction:
 * the console shows it beside the corrected value. Erasure empties it with the previous value.
 */
export const correctionEvidence: Migration = {
  id: '0026_correction_evidence',
  async up(trx) {
    await sql`alter table fact_corrections add column previous_evidence jsonb not null default '[]'`.execute(trx);
  },
};
