import type { Environment } from '../../config.ts';
import type { Deps } from '../deps.ts';
import { tenantOfRow, type Tenant } from '../../ports/tenant.ts';
import { checkOutboundUrlResolved, systemLookup, type Lookup } from '../../net/address-policy.ts';
import { findOrg } from '../../storage/orgs.ts';
import {
  disableEndpoint,
  enableEndpoint,
  findEndpoint,
  findEndpointUnscoped,
  insertEndpoint,
  listEndpoints,
  listLegacySealedEndpointsUnscoped,
  replaceEndpointSecret,
  swapEndpointSecretBoxesUnscoped,
  type EndpointRow,
} from '../../storage/webhooks/endpoints.ts';
import { open, seal, type BoxLabel } from '../crypto/secret-box.ts';
import { fail, ok, type Result } from '../errors.ts';
import { parseSubscription } from './event-types.ts';
import { generateSigningSecret } from './signature.ts';

export type EndpointDeps = Pick<Deps, 'db' | 'clock' | 'ids' | 'config'> & { secret: string; lookup?: Lookup };

/** Secret-box purpose: a leak of one derived key cannot open another purpose's boxes. */
const SECRET_PURPOSE = 'webhook-signing-secret';

/** Bound to the endpoint: a box copied to another endpoint's row does not open there. */
export function secretLabel(endpointId: string): BoxLabel {
  return { purpose: SECRET_PURPOSE, owner: endpointId };
}

/** Contract §8: during a rotation the old secret signs alongside the new one for 24 hours. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface EndpointView {
  endpoint_id: string;
  org_id: string;
  environment: Environment;
  url: string;
  events: string[];
  enabled: boolean;
  /** Until when deliveries are also signed with the secret before the last rotation; null when they are not. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
  disabled_at: string | null;
}

function toEndpointView(row: EndpointRow, now: Date): EndpointView {
  const overlap = row.previous_secret_expires_at && row.previous_secret_expires_at > now ? row.previous_secret_expires_at : null;
  return {
    endpoint_id: row.endpoint_id,
    org_id: row.org_id,
    environment: row.environment,
    url: row.url,
    events: row.event_types,
    enabled: row.enabled,
    previous_secret_expires_at: overlap?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    disabled_at: row.disabled_at?.toISOString() ?? null,
  };
}

/** Upfront check of a receiver URL (the connection-time check still decides every attempt). */
export async function checkEndpointUrl(deps: Pick<EndpointDeps, 'config' | 'lookup'>, url: string): Promise<Result<string>> {
  const checked = await checkOutboundUrlResolved(url, { allowPrivateNetwork: deps.config.allowPrivateNetwork }, deps.lookup ?? systemLookup);
  if (!checked.ok) {
    // Said where people look: how to receive webhooks on their own machine, or which setting let private addresses in.
    const advice = deps.config.allowPrivateNetwork
      ? 'This deployment allows private addresses (DOSSIER_ALLOW_PRIVATE_NETWORK=true).'
      : 'To receive webhooks on your own machine, run `npm run dossier -- listen --forward-to http://localhost:4567/hook`: it forwards test deliveries to a local URL. (A deployment whose endpoints are on a private network sets DOSSIER_ALLOW_PRIVATE_NETWORK=true.)';
    const rule = deps.config.allowPrivateNetwork ? 'an http(s) URL' : 'a public https URL';
    return fail('invalid_endpoint_url', `endpoint_url must be ${rule}: it ${checked.message}. ${advice}`);
  }
  return ok(checked.url.toString());
}

const endpointNotFound = (endpointId: string) => fail('not_found', `No webhook endpoint ${endpointId}.`);

/**
 * The workspace an endpoint belongs to, for the deployment's operator (the CLI), who names an
 * endpoint by id alone and then acts in its workspace like any other caller.
 */
export async function locateEndpointUnscoped(deps: Pick<EndpointDeps, 'db'>, input: { endpointId: string }): Promise<Result<Tenant>> {
  const row = await findEndpointUnscoped(deps.db, input.endpointId);
  return row ? ok(tenantOfRow(row)) : endpointNotFound(input.endpointId);
}

/** One endpoint of the workspace; another workspace's (or environment's) endpoint is `not_found`. */
export async function getEndpoint(deps: Pick<EndpointDeps, 'db' | 'clock'>, input: { tenant: Tenant; endpointId: string }): Promise<Result<EndpointView>> {
  const row = await findEndpoint(deps.db, input.tenant, input.endpointId);
  return row ? ok(toEndpointView(row, deps.clock.now())) : endpointNotFound(input.endpointId);
}

export async function createEndpoint(
  deps: EndpointDeps,
  input: {
    tenant: Tenant;
    url: string;
    events: readonly string[];
    /**
     * Registered by the workspace itself (the dashboard) rather than by the deployment's operator
     * (the CLI): refused with 428 when the deployment disables self-serve webhooks, as the API is.
     */
    selfServe?: boolean;
  },
): Promise<Result<EndpointView & { signing_secret: string }>> {
  const { tenant } = input;
  if (input.selfServe && !deps.config.selfServeWebhooks) {
    return fail('self_serve_webhooks_disabled', 'Self-serve webhook delivery is disabled on this deployment (SELF_SERVE_WEBHOOKS=false): ask its operator to register the endpoint.');
  }
  if (!(await findOrg(deps.db, tenant.orgId))) return fail('not_found', `No organization ${tenant.orgId}.`);
  const url = await checkEndpointUrl(deps, input.url);
  if (!url.ok) return url;
  const subscription = parseSubscription(input.events);
  if (!subscription.ok) return fail('invalid_request', subscription.message);
  const now = deps.clock.now();
  const signingSecret = generateSigningSecret();
  const endpointId = deps.ids.next('ep');
  const row = await insertEndpoint(deps.db, {
    endpoint_id: endpointId,
    org_id: tenant.orgId,
    environment: tenant.environment,
    url: url.value,
    event_types: subscription.eventTypes,
    enabled: true,
    secret_box: seal(deps.secret, secretLabel(endpointId), signingSecret),
    previous_secret_box: null,
    previous_secret_expires_at: null,
    created_at: now,
    updated_at: now,
    disabled_at: null,
  });
  return ok({ ...toEndpointView(row, now), signing_secret: signingSecret });
}

export async function listEndpointViews(deps: Pick<EndpointDeps, 'db' | 'clock'>, input: { tenant: Tenant }): Promise<EndpointView[]> {
  const now = deps.clock.now();
  return (await listEndpoints(deps.db, input.tenant)).map((row) => toEndpointView(row, now));
}

/** A disabled endpoint gets no new deliveries; those already queued fail their attempts unsent. */
export async function disableEndpointById(deps: Pick<EndpointDeps, 'db' | 'clock'>, input: { tenant: Tenant; endpointId: string }): Promise<Result<EndpointView>> {
  const now = deps.clock.now();
  const row = await disableEndpoint(deps.db, input.tenant, input.endpointId, now);
  return row ? ok(toEndpointView(row, now)) : endpointNotFound(input.endpointId);
}

/** An enabled endpoint receives new deliveries again (those that failed while it was disabled can be retried). */
export async function enableEndpointById(deps: Pick<EndpointDeps, 'db' | 'clock'>, input: { tenant: Tenant; endpointId: string }): Promise<Result<EndpointView>> {
  const now = deps.clock.now();
  const row = await enableEndpoint(deps.db, input.tenant, input.endpointId, now);
  return row ? ok(toEndpointView(row, now)) : endpointNotFound(input.endpointId);
}

/**
 * A new secret, shown once. The old one keeps signing beside it for 24 hours; rotating again
 * within that time drops the oldest (at most two secrets sign).
 */
export async function rotateEndpointSecret(
  deps: Pick<EndpointDeps, 'db' | 'clock' | 'secret'>,
  input: { tenant: Tenant; endpointId: string },
): Promise<Result<EndpointView & { signing_secret: string }>> {
  const { tenant, endpointId } = input;
  const existing = await findEndpoint(deps.db, tenant, endpointId);
  if (!existing) return endpointNotFound(endpointId);
  const now = deps.clock.now();
  const signingSecret = generateSigningSecret();
  const row = await replaceEndpointSecret(deps.db, tenant, endpointId, {
    secretBox: seal(deps.secret, secretLabel(endpointId), signingSecret),
    previousSecretBox: existing.secret_box,
    previousExpiresAt: new Date(now.getTime() + ROTATION_OVERLAP_MS),
    now,
  });
  if (!row) return endpointNotFound(endpointId);
  return ok({ ...toEndpointView(row, now), signing_secret: signingSecret });
}

/** The secrets that sign an attempt now: the current one, then the previous one while its overlap lasts. */
export function signingSecretsOf(
  secret: string,
  row: Pick<EndpointRow, 'endpoint_id' | 'secret_box' | 'previous_secret_box' | 'previous_secret_expires_at'>,
  now: Date,
): string[] {
  const current = open(secret, secretLabel(row.endpoint_id), row.secret_box);
  if (current === undefined) throw new Error('webhook signing secret cannot be opened: was DOSSIER_SECRET changed?');
  const secrets = [current];
  if (row.previous_secret_box && row.previous_secret_expires_at && row.previous_secret_expires_at > now) {
    const previous = open(secret, secretLabel(row.endpoint_id), row.previous_secret_box);
    if (previous !== undefined) secrets.push(previous);
  }
  return secrets;
}

/**
 * The secrets that signed an attempt made at `at`, when the row still tells: the current secret
 * signed every attempt since the last rotation (with the previous one while its overlap lasted);
 * an attempt from before that rotation was signed by secrets the row no longer fully holds.
 */
export function signingSecretsAt(
  secret: string,
  row: Pick<EndpointRow, 'endpoint_id' | 'secret_box' | 'previous_secret_box' | 'previous_secret_expires_at'>,
  at: Date,
): string[] | undefined {
  const rotatedAt = row.previous_secret_expires_at ? new Date(row.previous_secret_expires_at.getTime() - ROTATION_OVERLAP_MS) : null;
  if (rotatedAt && at < rotatedAt) return undefined;
  return signingSecretsOf(secret, row, at);
}

/** The endpoint's current signing secret, for the dashboard's test event (never shown again). */
export async function currentSigningSecret(
  deps: Pick<EndpointDeps, 'db' | 'secret'>,
  input: { tenant: Tenant; endpointId: string },
): Promise<Result<{ url: string; secret: string }>> {
  const row = await findEndpoint(deps.db, input.tenant, input.endpointId);
  if (!row) return endpointNotFound(input.endpointId);
  const secret = open(deps.secret, secretLabel(row.endpoint_id), row.secret_box);
  if (secret === undefined) throw new Error('webhook signing secret cannot be opened: was DOSSIER_SECRET changed?');
  return ok({ url: row.url, secret });
}

/**
 * Re-seals signing secrets written before owners were bound (`v1` boxes) as `v2`, bound to their
 * endpoint, so an old box can no longer be moved to another endpoint. Runs at start; a box that
 * does not open (another secret) is left alone. Returns how many endpoints were re-sealed.
 */
export async function resealLegacyEndpointSecrets(deps: Pick<EndpointDeps, 'db' | 'secret'>): Promise<number> {
  let count = 0;
  for (const row of await listLegacySealedEndpointsUnscoped(deps.db)) {
    const label = secretLabel(row.endpoint_id);
    const reseal = (box: string | null): string | null | undefined => {
      if (box === null || !box.startsWith('v1.')) return box;
      const plain = open(deps.secret, label, box);
      return plain === undefined ? undefined : seal(deps.secret, label, plain);
    };
    const secretBox = reseal(row.secret_box);
    const previousSecretBox = reseal(row.previous_secret_box);
    if (typeof secretBox !== 'string' || previousSecretBox === undefined) continue;
    await swapEndpointSecretBoxesUnscoped(deps.db, row.endpoint_id, { secretBox: row.secret_box, previousSecretBox: row.previous_secret_box }, { secretBox, previousSecretBox });
    count++;
  }
  return count;
}
