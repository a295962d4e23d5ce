import type { FastifyReply, FastifyRequest } from 'fastify';
import { ENVIRONMENTS } from '../../../../config.ts';
import { listApiKeys, type ApiKeyView } from '../../../../domain/keys/keys.ts';
import { SCOPES } from '../../../../domain/keys/scopes.ts';
import { html, type Markup } from '../../../render.ts';
import { button, notification, table, tag, type ErrorItem } from '../../../ui/components.ts';
import { choices, textInput } from '../../../ui/fields.ts';
import { tenantOf, type DashboardRouteDeps, type DashboardViewer } from '../../context.ts';
import { csrfField } from '../../layout.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, takeFlash, type Flash } from '../flash.ts';
import { when } from '../format.ts';
import { sendDeveloperPage } from '../shell.ts';

export const KEYS_PATH = '/dashboard/developers/keys';

const SCOPE_HINTS: Record<string, string> = {
  '*': 'Every scope, including any added later.',
  'cases:read': 'Read cases, their events and packages.',
  'cases:write': 'Correct facts and record decisions.',
  'cases:erase': 'Erase documents and document-derived data.',
  'sessions:write': 'Create hosted intake sessions.',
  'process:write': 'Process documents from a URL.',
  'webhooks:read': 'Read the delivery log and notifications.',
  'webhooks:write': 'Retry failed deliveries.',
  'webhooks:test': 'Send test webhooks.',
  'webhooks:listen': 'Receive test deliveries on your own machine with `dossier listen` (test keys only).',
  'webhooks:acknowledge': 'Acknowledge handoffs.',
  'connectors:read': 'Read connectors.',
  'connectors:write': 'Import and change connectors.',
  'case_types:read': 'Try a sample document against a case type (nothing is stored).',
};

/** The create form as sent (or empty), shown again with its problems. */
export interface KeyForm {
  name: string;
  environment: string;
  scopes: string[];
  expiresInDays: string;
  rateLimit: string;
}

function keyStatus(k: ApiKeyView, now: Date) {
  if (k.revoked_at) return tag('Revoked', 'danger');
  if (k.expires_at && new Date(k.expires_at) <= now) return tag('Expired', 'warning');
  return tag('Active', 'success');
}

interface KeysViewProps {
  keys: readonly ApiKeyView[];
  flash: Flash | undefined;
  form: KeyForm;
  errors: readonly ErrorItem[];
  now: Date;
  /** The deployment's rate limit, for keys without one of their own. */
  defaultLimit: number;
}

/** The workspace's keys, a new key once (from the flash), and the create form. */
function keysView({ keys, flash, form, errors, now, defaultLimit }: KeysViewProps, viewer: DashboardViewer): Markup {
  const created = flash?.kind === 'key_created' ? flash : undefined;
  const notice = flash?.kind === 'notice' ? flash.text : undefined;
  const err = (id: string) => errors.find((e) => e.href === id)?.text;
  return html`<div class="page-header"><h1>API keys</h1><a href="/docs">API reference</a></div>
    ${created
      ? notification({
          tone: 'success',
          title: 'Your new API key',
          role: 'status',
          children: html`<p><strong>Copy it now: it will not be shown again.</strong> Dossier keeps only a hash of it.</p>
            <div class="key-reveal"><code id="new-key">${created.key}</code><button type="button" class="button button--secondary button--small" data-copy-target="new-key" hidden>Copy key</button></div>`,
        })
      : null}
    ${notice ? notification({ tone: 'success', role: 'status', children: html`<p>${notice}</p>` }) : null}
    <section class="card card--flush" aria-labelledby="keys-heading">
      <h2 class="card__title card__title--inset" id="keys-heading">Keys of this workspace</h2>
      ${table<ApiKeyView>({
        stack: true,
        caption: 'API keys',
        captionHidden: true,
        scrollRegion: true,
        rows: keys,
        empty: 'No keys yet. Create one below.',
        columns: [
          { header: 'Name', rowHeader: true, cell: (k) => html`${k.name ?? 'Unnamed'}<br /><span class="muted mono">…${k.key_hint}</span>` },
          { header: 'Environment', cell: (k) => (k.environment === 'live' ? tag('Live', 'info') : tag('Test', 'warning')) },
          { header: 'Scopes', cell: (k) => (k.scopes.includes('*') ? 'All scopes' : html`<ul class="plain-list">${k.scopes.map((s) => html`<li><code>${s}</code></li>`)}</ul>`) },
          { header: 'Created', cell: (k) => when(k.created_at) },
          { header: 'Last used', cell: (k) => when(k.last_used_at) },
          { header: 'Expires', cell: (k) => when(k.expires_at) },
          { header: 'Rate limit', numeric: true, cell: (k) => (k.rate_limit_per_minute ? `${k.rate_limit_per_minute}/min` : `${defaultLimit}/min (default)`) },
          { header: 'Status', cell: (k) => keyStatus(k, now) },
          {
            header: 'Action',
            cell: (k) =>
              k.revoked_at
                ? html`<span class="muted">—</span>`
                : html`<a href=${`${KEYS_PATH}/${k.key_id}/revoke`}>Revoke<span class="visually-hidden"> ${k.name ?? k.key_hint}</span></a>`,
          },
        ],
      })}
    </section>
    <section class="card" aria-labelledby="create-heading">
      <h2 class="card__title" id="create-heading">Create a key</h2>
      <form method="post" action=${KEYS_PATH} novalidate>
        ${csrfField(viewer)}
        ${textInput({ id: 'key-name', name: 'name', label: 'Name', hint: 'What uses this key, so you can tell keys apart later.', value: form.name, error: err('key-name'), width: 'w30' })}
        ${choices({
          id: 'key-environment',
          name: 'environment',
          label: 'Environment',
          type: 'radio',
          hint: 'Test keys start with sk_test_ and see only test data; live keys start with sk_live_.',
          options: ENVIRONMENTS.filter((e) => viewer.acceptedEnvironments.includes(e)).map((e) => ({ value: e, text: e === 'test' ? 'Test' : 'Live' })),
          values: [form.environment],
          error: err('key-environment'),
        })}
        ${choices({
          id: 'key-scopes',
          name: 'scopes',
          label: 'Scopes',
          type: 'checkbox',
          hint: 'Give a key only what it needs.',
          options: [{ value: '*', text: 'All scopes', hint: SCOPE_HINTS['*']! }, ...SCOPES.map((s) => ({ value: s, text: s, hint: SCOPE_HINTS[s] ?? '' }))],
          values: form.scopes,
          error: err('key-scopes'),
        })}
        ${textInput({ id: 'key-expiry', name: 'expires_in_days', label: 'Expires after, in days', optionalText: '(optional)', hint: 'Leave empty for a key that does not expire.', value: form.expiresInDays, inputmode: 'numeric', width: 'w10', error: err('key-expiry') })}
        ${textInput({ id: 'key-rate-limit', name: 'rate_limit', label: 'Rate limit, requests per minute', optionalText: '(optional)', hint: `Leave empty for this deployment’s default of ${defaultLimit}.`, value: form.rateLimit, inputmode: 'numeric', width: 'w10', error: err('key-rate-limit') })}
        ${button({ text: 'Create key', data: { 'prevent-double-submit': '' } })}
      </form>
    </section>`;
}

/** The keys page, with the create form as sent and its problems (400) or empty (200, reading the flash). */
export async function showKeys(request: FastifyRequest, reply: FastifyReply, deps: DashboardRouteDeps, form: KeyForm, errors: ErrorItem[] = []) {
  const { ctx } = deps;
  const tenant = tenantOf(request);
  const keys = await listApiKeys(ctx, { orgId: tenant.orgId });
  const flash = errors.length === 0 ? takeFlash(reply, request, flashDeps(deps)) : undefined;
  const props: KeysViewProps = { keys, flash, form, errors, now: ctx.clock.now(), defaultLimit: ctx.config.rateLimitPerMinute };
  return sendDeveloperPage(request, reply, deps, {
    title: 'API keys',
    nav: 'keys',
    errors,
    status: errors.length > 0 ? 400 : 200,
    body: (viewer) => keysView(props, viewer),
  });
}

/** GET /dashboard/developers/keys: the keys with their use, and the create form. Admins only. */
export const keysPage = dashboardRoute({
  method: 'GET',
  url: '/developers/keys',
  auth: 'admin',
  handler: async ({ request, reply, deps }) => showKeys(request, reply, deps, { name: '', environment: tenantOf(request).environment, scopes: [], expiresInDays: '', rateLimit: '' }),
});
