import type { Environment } from '../../config.ts';
import type { Tenant } from '../../ports/tenant.ts';
import type { Deps } from '../deps.ts';
import { bringRetriesForward, findLeasedDelivery } from '../../storage/webhooks/deliveries.ts';
import { findOrg, listOrgsUnscoped } from '../../storage/orgs.ts';
import { createApiKey } from '../keys/keys.ts';
import { listEndpoints, markListenerConnected, upsertListenerEndpoint } from '../../storage/webhooks/endpoints.ts';
import { seal } from '../crypto/secret-box.ts';
import { fail, failOn, ok, type Result } from '../errors.ts';
import { outcomeOfAttempt, recordAttemptOutcome, type AttemptDecision } from './attempt-outcome.ts';
import { secretLabel, signingSecretsOf, type EndpointDeps } from './endpoints.ts';
import { parseSubscription } from './event-types.ts';
import { generateSigningSecret } from './signature.ts';

/**
 * `dossier listen` (issue 25): deliveries of the workspace's test environment handed to a CLI on
 * the developer's machine, which makes the signed POST to a local URL. The server never connects
 * to that URL, so the SSRF policy is unchanged: a listener is an endpoint of kind `listener`
 * whose `url` is only shown. Everything else is an endpoint's: the same outbox, the same claim
 * and lease, attempts recorded by the same code, the §6.2 schedule and the handoff.
 */

/** How long a stream counts as connected after its last refresh; it refreshes every LISTENER_REFRESH_MS. */
export const LISTENER_CONNECTED_MS = 30_000;
export const LISTENER_REFRESH_MS = 10_000;
export const DEFAULT_LISTENER_NAME = 'cli';
export const TEST_KEYS_ONLY = '`dossier listen` works with test keys only: use an sk_test_ key.';

export interface ListenerConnection {
  /** The workspace's name, for the CLI's "Ready" line. */
  workspace: string;
  environment: Environment;
  endpoint_id: string;
  /** Verifies every delivery the CLI forwards; the same on every run (the listener is reused). */
  signing_secret: string;
  forward_to: string;
  events: string[];
}

export interface ConnectListenerInput {
  orgId: string;
  environment: Environment;
  forwardTo: string;
  /** Catalog names, or `*`. */
  events: readonly string[];
  name?: string;
}

/** Shown, never connected to by the server: any http(s) URL, localhost included. */
function checkForwardTo(forwardTo: string): Result<string> {
  let url: URL;
  try {
    url = new URL(forwardTo);
  } catch {
    return failOn('forward_to', 'invalid_request', `forward_to must be an http or https URL, like http://localhost:4567/hook (got "${forwardTo}").`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return failOn('forward_to', 'invalid_request', `forward_to must be an http or https URL, like http://localhost:4567/hook (got ${url.protocol} URL).`);
  }
  return ok(url.toString());
}

/**
 * Opens (or reopens) the workspace's listener: made on first use and reused after, so its signing
 * secret is the same across restarts; enabled, with this run's subscription and address; marked
 * connected; and what waited for a retry while no stream was open is due now ("resumes where it
 * left off"). Live keys are refused: a listener is for developing against test data.
 */
export async function connectListener(deps: EndpointDeps, input: ConnectListenerInput): Promise<Result<ListenerConnection>> {
  if (input.environment !== 'test') return fail('forbidden', TEST_KEYS_ONLY);
  if (!deps.config.selfServeWebhooks) {
    return fail('self_serve_webhooks_disabled', 'Self-serve webhook delivery is disabled on this deployment (SELF_SERVE_WEBHOOKS=false), so `dossier listen` is too.');
  }
  const forwardTo = checkForwardTo(input.forwardTo);
  if (!forwardTo.ok) return forwardTo;
  const subscription = parseSubscription(input.events.length > 0 ? input.events : ['*']);
  if (!subscription.ok) return failOn('events', 'invalid_request', subscription.message);
  const org = await findOrg(deps.db, input.orgId);
  if (!org) return fail('not_found', `No organization ${input.orgId}.`);
  const now = deps.clock.now();
  const newId = deps.ids.next('ep');
  const tenant = { orgId: input.orgId, environment: input.environment };
  const row = await upsertListenerEndpoint(deps.db, tenant, {
    endpointId: newId,
    name: input.name ?? DEFAULT_LISTENER_NAME,
    url: forwardTo.value,
    eventTypes: subscription.eventTypes,
    secretBox: seal(deps.secret, secretLabel(newId), generateSigningSecret()),
    now,
  });
  await markListenerConnected(deps.db, tenant, row.endpoint_id, new Date(now.getTime() + LISTENER_CONNECTED_MS));
  await bringRetriesForward(deps.db, tenant, row.endpoint_id, now);
  const [signingSecret] = signingSecretsOf(deps.secret, row, now);
  return ok({ workspace: org.name, environment: row.environment, endpoint_id: row.endpoint_id, signing_secret: signingSecret!, forward_to: row.url, events: row.event_types });
}

/** The open stream's heartbeat: connected for another LISTENER_CONNECTED_MS. */
export async function refreshListener(deps: Pick<Deps, 'db' | 'clock'>, input: { tenant: Tenant; endpointId: string }): Promise<void> {
  await markListenerConnected(deps.db, input.tenant, input.endpointId, new Date(deps.clock.now().getTime() + LISTENER_CONNECTED_MS));
}

/**
 * The stream closed: the delivery worker takes the listener's deliveries again (and fails their
 * attempts, "no `dossier listen` connected", until a stream reopens). A second stream of the same
 * listener still open marks it connected again at its next refresh.
 */
export async function disconnectListener(deps: Pick<Deps, 'db'>, input: { tenant: Tenant; endpointId: string }): Promise<void> {
  await markListenerConnected(deps.db, input.tenant, input.endpointId, null);
}

export interface ListenerState {
  name: string;
  connected: boolean;
}

/** The workspace's listeners by endpoint id, for the pages and commands that list endpoints. */
export async function listenerStates(deps: Pick<Deps, 'db' | 'clock'>, tenant: Tenant): Promise<Map<string, ListenerState>> {
  const now = deps.clock.now();
  const states = new Map<string, ListenerState>();
  for (const row of await listEndpoints(deps.db, tenant)) {
    if (row.kind !== 'listener') continue;
    states.set(row.endpoint_id, { name: row.listener_name ?? DEFAULT_LISTENER_NAME, connected: row.listener_connected_until !== null && row.listener_connected_until > now });
  }
  return states;
}

export interface ListenerResultInput {
  orgId: string;
  environment: Environment;
  deliveryId: string;
  /** The lease the stream handed the delivery out under. */
  attemptToken: string;
  /** The local receiver's status; null when there was no HTTP answer. */
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

export interface ListenerResultView {
  delivery_id: string;
  recorded: true;
  status: AttemptDecision['status'];
  attempt_number: number;
  next_attempt_at: string | null;
}

const EXCERPT_CHARS = 4096;

/**
 * Records what the local receiver answered as the delivery's attempt, through the same path as the
 * delivery worker's (attempt row, §6.2 schedule, `delivered`, the handoff), guarded by the lease
 * the stream handed it out under. A result that comes after the lease ran out is refused: the
 * delivery is being (or was) sent again, and that attempt counts.
 */
export async function recordListenerResult(
  deps: Pick<Deps, 'db' | 'clock' | 'ids' | 'config'>,
  input: ListenerResultInput,
): Promise<Result<{ view: ListenerResultView; outcome: 'delivered' | 'http_status' | 'connection_failed'; final: boolean }>> {
  if (input.environment !== 'test') return fail('forbidden', TEST_KEYS_ONLY);
  const delivery = await findLeasedDelivery(deps.db, { orgId: input.orgId, environment: input.environment }, { deliveryId: input.deliveryId, lockedBy: input.attemptToken });
  if (!delivery || delivery.kind !== 'listener') {
    return failOn('attempt_token', 'invalid_request', `Delivery ${input.deliveryId} is not leased to this attempt (its lease ran out, or it was already recorded): it is sent again, and that attempt counts.`);
  }
  const succeeded = input.statusCode !== null && input.statusCode >= 200 && input.statusCode < 300;
  const attemptedAt = new Date(Math.max(0, deps.clock.now().getTime() - input.durationMs));
  const error = succeeded ? null : (input.error ?? (input.statusCode !== null ? `the local receiver answered ${input.statusCode}` : 'no answer from the local receiver'));
  const { decision, record } = outcomeOfAttempt(deps, {
    delivery,
    attemptedAt,
    result: { ok: succeeded, statusCode: input.statusCode, durationMs: input.durationMs, error, responseExcerpt: input.responseExcerpt?.slice(0, EXCERPT_CHARS) ?? null },
  });
  const recorded = await recordAttemptOutcome(deps, { holder: input.attemptToken, delivery, decision, record });
  if (!recorded) return failOn('attempt_token', 'invalid_request', `Delivery ${input.deliveryId} is no longer leased to this attempt.`);
  return ok({
    view: { delivery_id: delivery.delivery_id, recorded: true, status: decision.status, attempt_number: record.attempt_number, next_attempt_at: decision.nextAttemptAt?.toISOString() ?? null },
    outcome: succeeded ? 'delivered' : input.statusCode !== null ? 'http_status' : 'connection_failed',
    final: decision.status === 'failed',
  });
}

/** How long the key `dossier listen` gets from the local deployment lasts; the CLI asks for a new one when it runs out. */
export const LISTENER_KEY_SECONDS = 24 * 60 * 60;

export interface ListenerKey {
  key: string;
  key_id: string;
  org_id: string;
  workspace: string;
  expires_at: string | null;
}

/**
 * A test key with only the `webhooks:listen` scope, for `dossier listen` run against the local
 * deployment without `--api-key`: for the given workspace, or the only one there is. It expires
 * after a day, so the keys of past runs do not pile up as live credentials.
 */
export async function createListenerKey(deps: Pick<Deps, 'db' | 'clock' | 'ids'>, input: { orgId?: string }): Promise<Result<ListenerKey>> {
  let org;
  if (input.orgId !== undefined) {
    org = await findOrg(deps.db, input.orgId);
    if (!org) return failOn('org', 'not_found', `No organization ${input.orgId}.`);
  } else {
    const orgs = await listOrgsUnscoped(deps.db, 6);
    if (orgs.length === 0) return fail('not_found', 'This deployment has no workspace yet: run `npm run dossier -- demo` (or `org create`) first.');
    if (orgs.length > 1) {
      return failOn('org', 'invalid_request', `This deployment has several workspaces: choose one with --org (${orgs.slice(0, 5).map((o) => `${o.org_id} ${o.name}`).join('; ')}${orgs.length > 5 ? '; …' : ''}).`);
    }
    org = orgs[0]!;
  }
  const created = await createApiKey(deps, { orgId: org.org_id, environment: 'test', scopes: ['webhooks:listen'], name: 'dossier listen', expiresInSeconds: LISTENER_KEY_SECONDS });
  if (!created.ok) return created;
  return ok({ key: created.value.key, key_id: created.value.key_id, org_id: org.org_id, workspace: org.name, expires_at: created.value.expires_at });
}
