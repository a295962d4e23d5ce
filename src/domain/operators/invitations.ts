import { createHash, randomBytes } from 'node:crypto';
import type { Deps } from '../deps.ts';
import type { Mailer } from '../../ports/mailer.ts';
import type { RateLimitStore } from '../../ports/rate-limit-store.ts';
import { findOperatorByEmail, insertOperator } from '../../storage/operators.ts';
import {
  findInvitationByTokenHash,
  insertInvitation,
  listOpenInvitations,
  markInvitationAccepted,
  withdrawInvitation as withdrawInvitationRow,
  withdrawOpenInvitation,
  type InvitationRow,
} from '../../storage/operator-invitations.ts';
import { inTransaction, inTransactionResult, uniqueViolation } from '../../storage/unit-of-work.ts';
import { fail, ok, type Result } from '../errors.ts';
import { consumeRateLimit } from '../rate-limit/rate-limit.ts';
import { ADD_OPERATOR_ATTEMPTS_PER_MINUTE, EMAIL_NOT_AVAILABLE, operatorEmail, operatorPassword, toOperatorView, type OperatorRole, type OperatorView } from './operators.ts';
import { hashPassword } from './passwords.ts';

/** How long an invitation link works: three days, long enough for a weekend (issue 27 §5). */
export const INVITATION_TTL_MS = 72 * 60 * 60_000;

/** Where an invitation's link leads, under the dashboard. */
export const JOIN_PATH = '/dashboard/join';

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export interface InvitationView {
  invitation_id: string;
  email: string;
  role: OperatorRole;
  created_at: string;
  expires_at: string;
  expired: boolean;
}

function toView(row: InvitationRow, now: Date): InvitationView {
  return {
    invitation_id: row.invitation_id,
    email: row.email,
    role: row.role,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    expired: row.expires_at.getTime() <= now.getTime(),
  };
}

export interface InviteResult {
  invitation: InvitationView;
  /** The one-time link: shown to the admin when it was not mailed, never stored. */
  link: string;
  /** How the link reached the invitee: mailed, not mailed because the deployment has no SMTP_URL, or the mail server refused it. */
  delivery: 'mailed' | 'no_mailer' | 'mail_failed';
}

type InviteDeps = Pick<Deps, 'db' | 'clock' | 'ids' | 'logger' | 'config'> & { rateLimits: RateLimitStore; mailer: Mailer | null };

/**
 * Invites a person to the workspace by email. Counted against the same per-workspace limit as
 * adding an operator (an invitation says as much about which addresses are taken), and refused
 * in the same words whoever holds the address. A new invitation to an address replaces its open
 * one. The link is mailed when the deployment has SMTP_URL; a mail server that refuses it does
 * not undo the invitation: the admin is told and shown the link to pass on.
 */
export async function inviteOperator(deps: InviteDeps, input: { orgId: string; invitedBy: string; email: string; role: OperatorRole; orgName: string }): Promise<Result<InviteResult>> {
  const email = operatorEmail.safeParse(input.email.trim());
  if (!email.success) return fail('invalid_request', email.error.issues[0]!.message);
  const limited = await consumeRateLimit(deps, { subject: `add-operator:${input.orgId}`, limit: ADD_OPERATOR_ATTEMPTS_PER_MINUTE });
  if (!limited.ok) return limited;
  if (await findOperatorByEmail(deps.db, email.data)) return fail('invalid_request', EMAIL_NOT_AVAILABLE);

  const now = deps.clock.now();
  const token = randomBytes(32).toString('base64url');
  const created = await inTransaction(deps.db, async (tx) => {
    await withdrawOpenInvitation(tx, input.orgId, email.data, now);
    return insertInvitation(tx, {
      invitation_id: deps.ids.next('inv'),
      org_id: input.orgId,
      email: email.data,
      role: input.role,
      token_hash: hashToken(token),
      invited_by: input.invitedBy,
      created_at: now,
      expires_at: new Date(now.getTime() + INVITATION_TTL_MS),
      accepted_at: null,
      accepted_operator_id: null,
      withdrawn_at: null,
    });
  });
  const link = `${deps.config.baseUrl}${JOIN_PATH}/${token}`;
  const delivery = await mailInvitation(deps, { to: email.data, link, orgName: input.orgName, role: input.role, expiresAt: created.expires_at });
  return ok({ invitation: toView(created, now), link, delivery });
}

async function mailInvitation(deps: InviteDeps, m: { to: string; link: string; orgName: string; role: OperatorRole; expiresAt: Date }): Promise<InviteResult['delivery']> {
  if (!deps.mailer) return 'no_mailer';
  const as = m.role === 'admin' ? 'an admin' : 'a reviewer';
  const until = m.expiresAt.toLocaleString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });
  try {
    await deps.mailer.send({
      to: m.to,
      subject: `You are invited to ${m.orgName} on Dossier`,
      text: [
        `You have been invited to join ${m.orgName} on Dossier as ${as}.`,
        '',
        'To accept, open this link and choose your password:',
        m.link,
        '',
        `The link works once, until ${until} UTC. If you did not expect this invitation, you can ignore this email.`,
      ].join('\n'),
    });
    return 'mailed';
  } catch (err) {
    deps.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'the invitation could not be mailed');
    return 'mail_failed';
  }
}

export async function listInvitations(deps: Pick<Deps, 'db' | 'clock'>, input: { orgId: string }): Promise<InvitationView[]> {
  const now = deps.clock.now();
  return (await listOpenInvitations(deps.db, input.orgId)).map((row) => toView(row, now));
}

export async function withdrawInvitation(deps: Pick<Deps, 'db' | 'clock'>, input: { orgId: string; invitationId: string }): Promise<Result<{ withdrawn: true }>> {
  const withdrawn = await withdrawInvitationRow(deps.db, input.orgId, input.invitationId, deps.clock.now());
  return withdrawn ? ok({ withdrawn: true }) : fail('not_found', 'This invitation was already accepted or withdrawn.');
}

/** What a link leads to: an open invitation, or why it no longer works. */
export type InvitationLookup =
  | { kind: 'open'; email: string; role: OperatorRole; orgName: string; expiresAt: string }
  | { kind: 'expired' | 'accepted' | 'withdrawn' | 'unknown' };

export async function findInvitation(deps: Pick<Deps, 'db' | 'clock'>, input: { token: string }): Promise<InvitationLookup> {
  if (input.token.length === 0 || input.token.length > 128) return { kind: 'unknown' };
  const row = await findInvitationByTokenHash(deps.db, hashToken(input.token));
  return lookupOf(row, deps.clock.now());
}

function lookupOf(row: (InvitationRow & { org_name: string }) | undefined, now: Date): InvitationLookup {
  if (!row) return { kind: 'unknown' };
  if (row.accepted_at) return { kind: 'accepted' };
  if (row.withdrawn_at) return { kind: 'withdrawn' };
  if (row.expires_at.getTime() <= now.getTime()) return { kind: 'expired' };
  return { kind: 'open', email: row.email, role: row.role, orgName: row.org_name, expiresAt: row.expires_at.toISOString() };
}

export type AcceptOutcome = { kind: 'accepted'; operator: OperatorView } | { kind: 'no_longer_open'; why: Exclude<InvitationLookup['kind'], 'open'> } | { kind: 'invalid_password'; message: string } | { kind: 'email_taken' };

/**
 * Creates the invitee's operator with the password they chose, once: the invitation is locked
 * and marked accepted in the same transaction, so two submissions of one link make one operator.
 */
export async function acceptInvitation(deps: Pick<Deps, 'db' | 'clock' | 'ids'>, input: { token: string; password: string }): Promise<AcceptOutcome> {
  const password = operatorPassword.safeParse(input.password);
  if (!password.success) return { kind: 'invalid_password', message: password.error.issues[0]!.message };
  if (input.token.length === 0 || input.token.length > 128) return { kind: 'no_longer_open', why: 'unknown' };
  // Hashed before the transaction: argon2 takes a while and must not hold the row's lock.
  const passwordHash = await hashPassword(password.data);
  const now = deps.clock.now();
  type Refusal = { ok: false; outcome: AcceptOutcome };
  const accepted = await inTransactionResult<OperatorView, Refusal>(deps.db, async (tx) => {
    const row = await findInvitationByTokenHash(tx, hashToken(input.token), true);
    const lookup = lookupOf(row, now);
    if (lookup.kind !== 'open' || !row) return { ok: false, outcome: { kind: 'no_longer_open', why: lookup.kind === 'open' ? 'unknown' : lookup.kind } };
    if (await findOperatorByEmail(tx, row.email)) return { ok: false, outcome: { kind: 'email_taken' } };
    const operatorId = deps.ids.next('op');
    try {
      const operator = await insertOperator(tx, {
        operator_id: operatorId,
        org_id: row.org_id,
        email: row.email,
        password_hash: passwordHash,
        role: row.role,
        disabled_at: null,
        last_sign_in_at: null,
        created_at: now,
        updated_at: now,
      });
      await markInvitationAccepted(tx, row.invitation_id, operatorId, now);
      return ok(toOperatorView(operator));
    } catch (err) {
      if (uniqueViolation(err) === 'operators_email') return { ok: false, outcome: { kind: 'email_taken' } };
      throw err;
    }
  });
  return accepted.ok ? { kind: 'accepted', operator: accepted.value } : accepted.outcome;
}
