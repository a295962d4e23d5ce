import { sql } from 'kysely';
import type { Migration } from './index.ts';

/**
 * Operators join by invitation (issue 27 §5): an admin names an email and a role, the invitee sets
 * their own password through a one-time link. Only the link token's SHA-256 is stored. An
 * invitation is open until it is accepted, withdrawn or past `expires_at`; one open invitation per
 * email in a workspace (a second invite replaces the first, so only the newest link works).
 */
export const operatorInvitations: Migration = {
  id: '0024_operator_invitations',
  async up(trx) {
    await sql`
      create table operator_invitations (
        invitation_id text primary key,
        org_id text not null references orgs (org_id),
        email text not null,
        role text not null check (role in ('admin', 'reviewer')),
        token_hash text not null unique,
        invited_by text not null references operators (operator_id),
        created_at timestamptz not null,
        expires_at timestamptz not null,
        accepted_at timestamptz,
        accepted_operator_id text references operators (operator_id),
        withdrawn_at timestamptz,
        check ((accepted_at is null) = (accepted_operator_id is null))
      )`.execute(trx);
    await sql`create unique index operator_invitations_open on operator_invitations (org_id, lower(email)) where accepted_at is null and withdrawn_at is null`.execute(trx);
  },
};
