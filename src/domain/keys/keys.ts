import { z } from 'zod';
import { ENVIRONMENTS } from '../../config.ts';
import type { Deps } from '../deps.ts';
import { findApiKeyUnscoped, insertApiKey, listApiKeysOfOrg, markApiKeyRevoked, touchApiKeyLastUsed } from '../../storage/api-keys.ts';
import type { Environment } from '../../config.ts';
import { findOrg } from '../../storage/orgs.ts';
import type { ApiKeyRow } from '../../storage/schema.ts';
import { fail, ok, type Result } from '../errors.ts';
import { generateApiKey } from './api-key-token.ts';
import { isGrantedScope } from './scopes.ts';

export const createApiKeyInput = z.object({
  orgId: z.string().min(1),
  environment: z.enum(ENVIRONMENTS),
  scopes: z
    .array(z.string())
    .min(1, 'at least one scope')
    .refine((scopes) => scopes.every(isGrantedScope), { message: 'unknown scope' }),
  name: z.string().trim().min(1).max(200).optional(),
  /** Lifetime in seconds from now. */
  expiresInSeconds: z.number().int().positive().optional(),
  rateLimitPerMinute: z.number().int().positive().optional(),
});
export type CreateApiKeyInput = z.input<typeof createApiKeyInput>;

export interface ApiKeyView {
  key_id: string;
  org_id: string;
  environment: 'test' | 'live';
  name: string | null;
  scopes: string[];
  key_hint: string;
  rate_limit_per_minute: number | null;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

export function toApiKeyView(row: ApiKeyRow): ApiKeyView {
  return {
    key_id: row.key_id,
    org_id: row.org_id,
    environment: row.environment,
    name: row.name,
    scopes: row.scopes,
    key_hint: row.key_hint,
    rate_limit_per_minute: row.rate_limit_per_minute,
    expires_at: row.expires_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

/** Creates a key; the returned `key` is the only time the secret exists outside the caller. */
export async function createApiKey(
  deps: Pick<Deps, 'db' | 'clock' | 'ids'>,
  input: CreateApiKeyInput,
): Promise<Result<ApiKeyView & { key: string }>> {
  const parsed = createApiKeyInput.parse(input);
  if (!(await findOrg(deps.db, parsed.orgId))) return fail('not_found', `No organization ${parsed.orgId}.`);
  const now = deps.clock.now();
  const generated = generateApiKey(parsed.environment);
  const scopes = parsed.scopes.includes('*') ? ['*'] : [...new Set(parsed.scopes)].sort();
  const row = await insertApiKey(deps.db, {
    key_id: deps.ids.next('key'),
    org_id: parsed.orgId,
    environment: parsed.environment,
    name: parsed.name ?? null,
    key_hash: generated.hash,
    key_hint: generated.hint,
    scopes,
    rate_limit_per_minute: parsed.rateLimitPerMinute ?? null,
    expires_at: parsed.expiresInSeconds ? new Date(now.getTime() + parsed.expiresInSeconds * 1000) : null,
    revoked_at: null,
    last_used_at: null,
    created_at: now,
  });
  return ok({ ...toApiKeyView(row), key: generated.key });
}

/**
 * Revokes a key of the organisation (keys are managed per organisation: the dashboard's keys page
 * spans both environments). Another organisation's key is `not_found`, as the API reports other
 * workspaces' resources.
 */
export async function revokeApiKey(deps: Pick<Deps, 'db' | 'clock'>, input: { orgId: string; keyId: string }): Promise<Result<ApiKeyView>> {
  const { orgId, keyId } = input;
  const row = await markApiKeyRevoked(deps.db, orgId, keyId, deps.clock.now());
  return row ? ok(toApiKeyView(row)) : fail('not_found', `No API key ${keyId}.`);
}

/** The organisation a key belongs to, for the deployment's operator (the CLI), who names a key by id alone. */
export async function locateApiKeyUnscoped(deps: Pick<Deps, 'db'>, input: { keyId: string }): Promise<Result<{ orgId: string }>> {
  const row = await findApiKeyUnscoped(deps.db, input.keyId);
  return row ? ok({ orgId: row.org_id }) : fail('not_found', `No API key ${input.keyId}.`);
}

/** Records when a key was last used (shown to its owner); callers throttle how often. */
export async function recordApiKeyUse(deps: Pick<Deps, 'db'>, input: { orgId: string; keyId: string; at: Date }): Promise<void> {
  await touchApiKeyLastUsed(deps.db, input.orgId, input.keyId, input.at);
}

/** The workspace's keys, newest first; one environment's when given. */
export async function listApiKeys(deps: Pick<Deps, 'db'>, input: { orgId: string; environment?: Environment }): Promise<ApiKeyView[]> {
  return (await listApiKeysOfOrg(deps.db, input.orgId, input.environment)).map(toApiKeyView);
}
