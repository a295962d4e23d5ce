import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * Issue 9 §2: stored envelopes written before the key was always a string get `event:<event_id>`,
 * so retries of old deliveries carry it too. The payload is edited as text, not as jsonb, to keep
 * the spec's field order; JSON.stringify wrote no spaces, and the top-level field comes before
 * `data`, so the first match is the envelope's own.
 */
export const envelopeIdempotencyKey: Migration = {
  id: '0010_envelope_idempotency_key',
  async up(trx) {
    await sql`update webhook_deliveries
      set payload = regexp_replace(payload, '"idempotency_key":null', '"idempotency_key":' || to_jsonb('event:' || event_id)::text)
      where strpos(payload, '"idempotency_key":null') > 0`.execute(trx);
  },
};
