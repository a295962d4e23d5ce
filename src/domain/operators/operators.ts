import { z } from 'zod';
import type { Deps } from '../deps.ts';
import {
  findOperatorByEmail,
  findOperatorInOrg,
  insertOperator,
  listOperatorsOfOrg,
  revokeSessionsOfOperator,
  setOperatorDisabled,
  setOperatorRole,
  type OperatorRow,
} from '../../storage/operators.ts';
import { findOrg } from '../../storage/orgs.ts';
import type { OperatorRole } from '../../storage/tables/operators.ts';
import { uniqueViolation } from '../../storage/unit-of-work.ts';
import { fail, ok, type Result } from '../errors.ts';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './passwords.ts';

export type { OperatorRole };
export const OPERATOR_ROLES = ['admin', 'reviewer'] as const satisfies readonly OperatorRole[];

/** An operator as screens and the CLI show it: never the password hash. */
export interface OperatorView {
  operator_id: string;
  org_id: string;
  email: string;
  role: OperatorRole;
  disabled: boolean;
  last_sign_in_at: string | null;
  created_at: string;
}

export function toOperatorView(row: OperatorRow): OperatorView {
  return {
    operator_id: row.operator_id,
    org_id: row.org_id,
    email: row.email,
    role: row.role,
    disabled: row.disabled_at !== null,
    last_sign_in_at: row.last_sign_in_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

export const operatorEmail = z.email({ error: 'Enter an email address in the right format, like name@example.com' }).max(254);
export const operatorPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `The password must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `The password must be at most ${MAX_PASSWORD_LENGTH} characters`);

export interface CreateOperatorInput {
  orgId: string;
  email: string;
  password: string;
  role: OperatorRole;
}

/**
 * Adds a person who can sign in to the workspace's dashboard, for the deployment's operator (the
 * CLI, the demo): they see every workspace, so a taken email is named as such. Emails are unique
 * across the deployment because sign-in is by email alone.
 */
export async function createOperator(deps: Pick<Deps, 'db' | 'clock' | 'ids'>, input: CreateOperatorInput): Promise<Result<OperatorView>> {
  const created = await insertNewOperator(deps, input);
  return 'emailTaken' in created ? fail('invalid_request', `An operator with the email ${created.emailTaken} already exists.`) : created;
}

/** Invitations (attempts at adding an operator) one workspace may make per minute (issue 23 §5, issue 27 §5). */
export const ADD_OPERATOR_ATTEMPTS_PER_MINUTE = 5;

/**
 * Said for an email taken in this workspace or in any other: the words tell an admin nothing about
 * other workspaces (issue 23 §5). The outcome itself still says an address is taken somewhere, so
 * attempts are limited per workspace, every one counted.
 */
export const EMAIL_NOT_AVAILABLE = 'This email address cannot be used for a new operator. Check it, or use another address.';

async function insertNewOperator(deps: Pick<Deps, 'db' | 'clock' | 'ids'>, input: CreateOperatorInput): Promise<Result<OperatorView> | { ok: false; emailTaken: string }> {
  const email = operatorEmail.safeParse(input.email.trim());
  if (!email.success) return fail('invalid_request', email.error.issues[0]!.message);
  const password = operatorPassword.safeParse(input.password);
  if (!password.success) return fail('invalid_request', password.error.issues[0]!.message);
  if (!(await findOrg(deps.db, input.orgId))) return fail('not_found', `No workspace ${input.orgId}.`);
  if (await findOperatorByEmail(deps.db, email.data)) return emailTaken(email.data);
  const now = deps.clock.now();
  try {
    const row = await insertOperator(deps.db, {
      operator_id: deps.ids.next('op'),
      org_id: input.orgId,
      email: email.data,
      password_hash: await hashPassword(password.data),
      role: input.role,
      disabled_at: null,
      last_sign_in_at: null,
      created_at: now,
      updated_at: now,
    });
    return ok(toOperatorView(row));
  } catch (err) {
    if (uniqueViolation(err) === 'operators_email') return emailTaken(email.data);
    throw err;
  }
}

function emailTaken(email: string) {
  return { ok: false as const, emailTaken: email };
}

export async function listOperators(deps: Pick<Deps, 'db'>, input: { orgId: string }): Promise<OperatorView[]> {
  return (await listOperatorsOfOrg(deps.db, input.orgId)).map(toOperatorView);
}

/**
 * Changes an operator's role or disables them. An admin cannot demote or disable themselves, so a
 * workspace cannot lose its last way into developer settings by a slip; disabling revokes every
 * session at once.
 */
export async function updateOperatorAccess(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { orgId: string; actorOperatorId: string; operatorId: string; role?: OperatorRole; disabled?: boolean },
): Promise<Result<OperatorView>> {
  const target = await findOperatorInOrg(deps.db, input.orgId, input.operatorId);
  if (!target) return fail('not_found', `No operator ${input.operatorId} in this workspace.`);
  if (target.operator_id === input.actorOperatorId && (input.disabled === true || (input.role !== undefined && input.role !== target.role))) {
    return fail('invalid_request', 'You cannot change your own role or disable yourself: ask another admin.');
  }
  const now = deps.clock.now();
  if (input.role !== undefined) await setOperatorRole(deps.db, target.operator_id, input.role, now);
  if (input.disabled !== undefined) {
    await setOperatorDisabled(deps.db, target.operator_id, input.disabled ? now : null, now);
    if (input.disabled) await revokeSessionsOfOperator(deps.db, target.operator_id, now);
  }
  const updated = await findOperatorInOrg(deps.db, input.orgId, input.operatorId);
  return ok(toOperatorView(updated!));
}

