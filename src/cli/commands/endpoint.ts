import { z } from 'zod';
import type { AppContext } from '../../domain/deps.ts';
import {
  createEndpoint,
  disableEndpointById,
  enableEndpointById,
  listEndpointViews,
  locateEndpointUnscoped,
  rotateEndpointSecret,
} from '../../domain/webhooks/endpoints.ts';
import type { Result } from '../../domain/errors.ts';
import { listenerStates } from '../../domain/webhooks/listeners.ts';
import type { Tenant } from '../../ports/tenant.ts';
import { listNotificationViews } from '../../domain/webhooks/notifications.ts';
import { cliError } from '../output.ts';
import { orgAndEnv, reported, type AdminCommand } from './command.ts';

const addFlags = z.object({
  ...orgAndEnv,
  url: z.string({ error: '--url is required' }).min(1, '--url is required'),
  events: z
    .string({ error: "--events is required (e1,e2 or '*')" })
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean)),
});

const listFlags = z.object(orgAndEnv);

const notificationFlags = z.object({
  ...orgAndEnv,
  limit: z.coerce.number({ error: '--limit must be a number' }).int().min(1).max(100).default(20),
});

/**
 * The operator names an endpoint by id alone (the CLI acts across workspaces): find its workspace
 * first, then act in it as the dashboard would, so the operations themselves are always scoped.
 */
async function inEndpointWorkspace<T>(ctx: AppContext, endpointId: string, act: (tenant: Tenant) => Promise<Result<T>>): Promise<Result<T>> {
  const located = await locateEndpointUnscoped(ctx, { endpointId });
  return located.ok ? act(located.value) : located;
}

export const ENDPOINT_COMMANDS: readonly AdminCommand[] = [
  {
    path: ['endpoint', 'add'],
    usage: "dossier endpoint add --org ORG_ID --env test|live --url URL --events e1,e2|'*'",
    options: { org: { type: 'string' }, env: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' } },
    flags: addFlags,
    async run(ctx, values) {
      const flags = addFlags.parse(values);
      const created = await createEndpoint(ctx, { tenant: { orgId: flags.org, environment: flags.env }, url: flags.url, events: flags.events });
      if (!created.ok) return cliError(created.code, created.message);
      return { ...created.value, note: 'The signing secret is shown once: store it now.' };
    },
  },
  {
    path: ['endpoint', 'list'],
    usage: 'dossier endpoint list --org ORG_ID --env test|live',
    options: { org: { type: 'string' }, env: { type: 'string' } },
    flags: listFlags,
    async run(ctx, values) {
      const flags = listFlags.parse(values);
      const tenant = { orgId: flags.org, environment: flags.env };
      const [endpoints, listeners] = await Promise.all([listEndpointViews(ctx, { tenant }), listenerStates(ctx, tenant)]);
      // A `dossier listen` listener is an endpoint of its own kind: its URL is where the CLI forwards, shown only.
      return {
        endpoints: endpoints.map((e) => {
          const listener = listeners.get(e.endpoint_id);
          return listener ? { ...e, kind: 'listener', listener } : { ...e, kind: 'url' };
        }),
      };
    },
  },
  {
    path: ['endpoint', 'disable'],
    usage: 'dossier endpoint disable ENDPOINT_ID',
    options: {},
    positionals: 1,
    run: async (ctx, _values, [endpointId]) => reported(await inEndpointWorkspace(ctx, endpointId!, (tenant) => disableEndpointById(ctx, { tenant, endpointId: endpointId! }))),
  },
  {
    path: ['endpoint', 'enable'],
    usage: 'dossier endpoint enable ENDPOINT_ID',
    options: {},
    positionals: 1,
    run: async (ctx, _values, [endpointId]) => reported(await inEndpointWorkspace(ctx, endpointId!, (tenant) => enableEndpointById(ctx, { tenant, endpointId: endpointId! }))),
  },
  {
    path: ['endpoint', 'rotate-secret'],
    usage: 'dossier endpoint rotate-secret ENDPOINT_ID',
    options: {},
    positionals: 1,
    async run(ctx, _values, [endpointId]) {
      const rotated = await inEndpointWorkspace(ctx, endpointId!, (tenant) => rotateEndpointSecret(ctx, { tenant, endpointId: endpointId! }));
      if (!rotated.ok) return cliError(rotated.code, rotated.message);
      return {
        ...rotated.value,
        note: `The new secret is shown once. Deliveries are signed with both secrets until ${rotated.value.previous_secret_expires_at}.`,
      };
    },
  },
  {
    path: ['notifications', 'list'],
    usage: 'dossier notifications list --org ORG_ID --env test|live [--limit N]',
    options: { org: { type: 'string' }, env: { type: 'string' }, limit: { type: 'string' } },
    flags: notificationFlags,
    async run(ctx, values) {
      const flags = notificationFlags.parse(values);
      return reported(await listNotificationViews(ctx, { orgId: flags.org, environment: flags.env, limit: flags.limit }));
    },
  },
];
