import { z } from 'zod';
import { CURRENT_LEGAL_TERMS_VERSION } from '../../config.ts';
import type { Deps } from '../deps.ts';
import { findOrg, insertOrg, updateOrgRow } from '../../storage/orgs.ts';
import type { OrgRow, OrgUpdate } from '../../storage/schema.ts';
import { fail, ok, type Result } from '../errors.ts';

export const createOrgInput = z.object({
  name: z.string().trim().min(1).max(200),
  billing: z.enum(['active', 'inactive']).default('inactive'),
  acceptLegal: z.boolean().default(false),
});
export type CreateOrgInput = z.input<typeof createOrgInput>;

export const updateOrgInput = z.object({
  orgId: z.string().min(1),
  billing: z.enum(['active', 'inactive']).optional(),
  acceptLegal: z.boolean().default(false),
  /** The operator accepting the terms in the dashboard (recorded beside the version and the time). */
  acceptedBy: z.string().min(1).optional(),
  /** null removes the cap. */
  liveUsageCap: z.number().int().min(0).nullable().optional(),
});
export type UpdateOrgInput = z.input<typeof updateOrgInput>;

export interface OrgView {
  org_id: string;
  name: string;
  billing_status: 'active' | 'inactive';
  legal_terms_version: string | null;
  legal_accepted_at: string | null;
  /** The operator who accepted them in the dashboard; null when they were accepted through the CLI. */
  legal_accepted_by: string | null;
  /** The terms version this deployment asks for now. */
  current_legal_terms_version: string;
  legal_terms_current: boolean;
  live_usage_cap: number | null;
  created_at: string;
  updated_at: string;
}

export function toOrgView(row: OrgRow): OrgView {
  return {
    org_id: row.org_id,
    name: row.name,
    billing_status: row.billing_status,
    legal_terms_version: row.legal_terms_version,
    legal_accepted_at: row.legal_accepted_at?.toISOString() ?? null,
    legal_accepted_by: row.legal_accepted_by ?? null,
    current_legal_terms_version: CURRENT_LEGAL_TERMS_VERSION,
    legal_terms_current: row.legal_terms_version === CURRENT_LEGAL_TERMS_VERSION,
    live_usage_cap: row.live_usage_cap,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export async function createOrg(deps: Pick<Deps, 'db' | 'clock' | 'ids'>, input: CreateOrgInput): Promise<OrgView> {
  const { name, billing, acceptLegal } = createOrgInput.parse(input);
  const now = deps.clock.now();
  const row = await insertOrg(deps.db, {
    org_id: deps.ids.next('org'),
    name,
    billing_status: billing,
    legal_terms_version: acceptLegal ? CURRENT_LEGAL_TERMS_VERSION : null,
    legal_accepted_at: acceptLegal ? now : null,
    live_usage_cap: null,
    created_at: now,
    updated_at: now,
  });
  return toOrgView(row);
}

export async function updateOrg(deps: Pick<Deps, 'db' | 'clock'>, input: UpdateOrgInput): Promise<Result<OrgView>> {
  const { orgId, billing, acceptLegal, acceptedBy, liveUsageCap } = updateOrgInput.parse(input);
  const now = deps.clock.now();
  const changes: OrgUpdate = { updated_at: now };
  if (billing !== undefined) changes.billing_status = billing;
  if (acceptLegal) {
    changes.legal_terms_version = CURRENT_LEGAL_TERMS_VERSION;
    changes.legal_accepted_at = now;
    changes.legal_accepted_by = acceptedBy ?? null;
  }
  if (liveUsageCap !== undefined) changes.live_usage_cap = liveUsageCap;
  const row = await updateOrgRow(deps.db, orgId, changes);
  return row ? ok(toOrgView(row)) : fail('not_found', `No organization ${orgId}.`);
}

export async function getOrg(deps: Pick<Deps, 'db'>, input: { orgId: string }): Promise<Result<OrgView>> {
  const { orgId } = input;
  const row = await findOrg(deps.db, orgId);
  return row ? ok(toOrgView(row)) : fail('not_found', `No organization ${orgId}.`);
}
