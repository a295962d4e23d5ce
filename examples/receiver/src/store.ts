import { DatabaseSync } from 'node:sqlite';
import type { WebhookAcknowledgement, CasePackage, CaseRecord, WebhookEvent } from '@dossier/client';

/**
 * What the receiver saw, in SQLite (node:sqlite, built into Node 22.13+ and 24), so a restart
 * loses nothing: every verified delivery once (the primary key deduplicates by delivery_id), and
 * for each completed case the record, the package and the acknowledgement. To use PostgreSQL
 * instead, keep these method names and swap the statements.
 */

export type DeliveryStatus = 'pending' | 'handled';

export interface StoredDelivery {
  delivery_id: string;
  event_type: string;
  case_id: string | null;
  status: DeliveryStatus;
  attempts: number;
  last_error: string | null;
  envelope: WebhookEvent;
}

export interface StoredHandoff {
  case_id: string;
  delivery_id: string;
  case_status: string | null;
  runtime_status: string;
  handoff_state: string;
  acknowledged_at: string;
  case_record: CaseRecord;
  package: CasePackage;
}

const SCHEMA = `
create table if not exists deliveries (
  delivery_id text primary key,
  event_id text not null,
  event_type text not null,
  case_id text,
  envelope text not null,
  status text not null,
  attempts integer not null default 0,
  next_attempt_at integer not null,
  last_error text,
  received_at text not null,
  handled_at text
);
create index if not exists deliveries_due on deliveries (status, next_attempt_at);
create table if not exists handoffs (
  case_id text primary key,
  delivery_id text not null,
  case_status text,
  runtime_status text not null,
  handoff_state text not null,
  acknowledged_at text not null,
  case_record text not null,
  package text not null
);`;

export class ReceiverStore {
  readonly #db: DatabaseSync;

  constructor(path: string) {
    this.#db = new DatabaseSync(path);
    this.#db.exec('pragma journal_mode = wal; pragma busy_timeout = 5000;');
    this.#db.exec(SCHEMA);
  }

  /**
   * Records a verified delivery; false when this delivery_id was recorded before (delivery is at
   * least once). Only a completed case needs work; the other events are kept as seen.
   */
  recordDelivery(event: WebhookEvent, now: Date): boolean {
    const status: DeliveryStatus = event.event_type === 'v1.case.completed' ? 'pending' : 'handled';
    const result = this.#db
      .prepare(
        `insert into deliveries (delivery_id, event_id, event_type, case_id, envelope, status, next_attempt_at, received_at, handled_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (delivery_id) do nothing`,
      )
      .run(event.delivery_id, event.event_id, event.event_type, event.case_id, JSON.stringify(event), status, now.getTime(), now.toISOString(), status === 'handled' ? now.toISOString() : null);
    return result.changes === 1;
  }

  /** Deliveries whose work is due, oldest first. */
  dueDeliveries(now: Date, limit: number): StoredDelivery[] {
    const rows = this.#db
      .prepare(`select * from deliveries where status = 'pending' and next_attempt_at <= ? order by next_attempt_at limit ?`)
      .all(now.getTime(), limit) as unknown as (Omit<StoredDelivery, 'envelope'> & { envelope: string })[];
    return rows.map((row) => ({ ...row, envelope: JSON.parse(row.envelope) as WebhookEvent }));
  }

  delivery(deliveryId: string): StoredDelivery | undefined {
    const row = this.#db.prepare('select * from deliveries where delivery_id = ?').get(deliveryId) as (Omit<StoredDelivery, 'envelope'> & { envelope: string }) | undefined;
    return row && { ...row, envelope: JSON.parse(row.envelope) as WebhookEvent };
  }

  deliveries(): StoredDelivery[] {
    const rows = this.#db.prepare('select * from deliveries order by received_at, delivery_id').all() as unknown as (Omit<StoredDelivery, 'envelope'> & { envelope: string })[];
    return rows.map((row) => ({ ...row, envelope: JSON.parse(row.envelope) as WebhookEvent }));
  }

  scheduleRetry(deliveryId: string, at: Date, error: string): void {
    this.#db.prepare('update deliveries set attempts = attempts + 1, next_attempt_at = ?, last_error = ? where delivery_id = ?').run(at.getTime(), error, deliveryId);
  }

  /** The handoff and its delivery's completion, in one transaction. */
  saveHandoff(input: { deliveryId: string; caseRecord: CaseRecord; pkg: CasePackage; acknowledgement: WebhookAcknowledgement; now: Date }): void {
    const { deliveryId, caseRecord, pkg, acknowledgement, now } = input;
    this.#db.exec('begin');
    try {
      this.#db
        .prepare(
          `insert into handoffs (case_id, delivery_id, case_status, runtime_status, handoff_state, acknowledged_at, case_record, package)
           values (?, ?, ?, ?, ?, ?, ?, ?)
           on conflict (case_id) do update set delivery_id = excluded.delivery_id, case_status = excluded.case_status,
             runtime_status = excluded.runtime_status, handoff_state = excluded.handoff_state, acknowledged_at = excluded.acknowledged_at,
             case_record = excluded.case_record, package = excluded.package`,
        )
        .run(caseRecord.case_id, deliveryId, pkg.case_status ?? null, caseRecord.runtime_status, acknowledgement.handoff_state, now.toISOString(), JSON.stringify(caseRecord), JSON.stringify(pkg));
      this.#db.prepare(`update deliveries set status = 'handled', attempts = attempts + 1, last_error = null, handled_at = ? where delivery_id = ?`).run(now.toISOString(), deliveryId);
      this.#db.exec('commit');
    } catch (error) {
      this.#db.exec('rollback');
      throw error;
    }
  }

  handoff(caseId: string): StoredHandoff | undefined {
    const row = this.#db.prepare('select * from handoffs where case_id = ?').get(caseId) as (Omit<StoredHandoff, 'case_record' | 'package'> & { case_record: string; package: string }) | undefined;
    return row && { ...row, case_record: JSON.parse(row.case_record) as CaseRecord, package: JSON.parse(row.package) as CasePackage };
  }

  close(): void {
    this.#db.close();
  }
}
