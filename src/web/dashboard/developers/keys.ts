import type { FastifyInstance } from 'fastify';
import { ENVIRONMENTS, type Environment } from '../../../config.ts';
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyView } from '../../../domain/keys/keys.ts';
import { SCOPES } from '../../../domain/keys/scopes.ts';
import { formField, formFields } from '../../face.ts';
import { html } from '../../render.ts';
import { backLink, button, notification, table, tag, type ErrorItem } from '../../ui/components.ts';
import { choices, textInput } from '../../ui/fields.ts';
import { tenantOf, type DashboardRouteDeps } from '../context.ts';
import { csrfField } from '../layout.ts';
import { setFlash, takeFlash } from './flash.ts';
import { when } from './format.ts';
import { sendDeveloperPage } from './shell.ts';

const KEYS_PATH = '/dashboard/developers/keys';

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
};

interface KeyForm {
  name: string;
  environment: string;
  scopes: string[];
  expiresInDays: string;
  rateLimit: string;
}

const positiveWhole = /^[1-9][0-9]{0,6}$/;

/** Server-side validation of the create form; each problem names its field, as the error summary links to it. */
function validateKeyForm(form: KeyForm, accepted: readonly Environment[]): ErrorItem[] {
  const errors: ErrorItem[] = [];
  if (form.name.trim() === '') errors.push({ href: 'key-name', text: 'Enter a name for the key, like “Production backend”' });
  else if (form.name.trim().length > 200) errors.push({ href: 'key-name', text: 'The name must be 200 characters or fewer' });
  if (!(accepted as readonly string[]).includes(form.environment)) errors.push({ href: 'key-environment', text: 'Choose test or live' });
  if (form.scopes.length === 0) errors.push({ href: 'key-scopes', text: 'Choose at least one scope, or all scopes' });
  if (form.expiresInDays !== '' && !positiveWhole.test(form.expiresInDays)) errors.push({ href: 'key-expiry', text: 'Expiry must be a whole number of days, like 90' });
  if (form.rateLimit !== '' && !positiveWhole.test(form.rateLimit)) errors.push({ href: 'key-rate-limit', text: 'The rate limit must be a whole number of requests per minute, like 600' });
  return errors;
}

function keyStatus(k: ApiKeyView, now: Date) {
  if (k.revoked_at) return tag('Revoked', 'danger');
  if (k.expires_at && new Date(k.expires_at) <= now) return tag('Expired', 'warning');
  return tag('Active', 'success');
}

/** GET/POST /dashboard/developers/keys, and the revocation confirmation. Admins only. */
export function registerKeys(scope: FastifyInstance, deps: DashboardRouteDeps): void {
  const { ctx } = deps;
  const flashDeps = { secret: deps.secret, baseUrl: ctx.config.baseUrl };
  const defaultLimit = ctx.config.rateLimitPerMinute;

  const render = async (
    request: Parameters<typeof sendDeveloperPage>[0],
    reply: Parameters<typeof sendDeveloperPage>[1],
    form: KeyForm,
    errors: ErrorItem[] = [],
  ) => {
    const tenant = tenantOf(request);
    const keys = await listApiKeys(ctx, { orgId: tenant.orgId });
    const flash = errors.length === 0 ? takeFlash(reply, request, flashDeps) : undefined;
    const created = flash?.kind === 'key_created' ? flash : undefined;
    const notice = flash?.kind === 'notice' ? flash.text : undefined;
    const now = ctx.clock.now();
    const err = (id: string) => errors.find((e) => e.href === id)?.text;
    return sendDeveloperPage(request, reply, deps, {
      title: 'API keys',
      nav: 'keys',
      errors,
      status: errors.length > 0 ? 400 : 200,
      body: (viewer) => html`<div class="page-header"><h1>API keys</h1><a href="/docs">API reference</a></div>
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
        </section>`,
    });
  };

  scope.get('/developers/keys', { config: { auth: 'admin' } }, async (request, reply) =>
    render(request, reply, { name: '', environment: tenantOf(request).environment, scopes: [], expiresInDays: '', rateLimit: '' }),
  );

  scope.post('/developers/keys', { config: { auth: 'admin' } }, async (request, reply) => {
    const form: KeyForm = {
      name: formField(request.body, 'name'),
      environment: formField(request.body, 'environment'),
      scopes: formFields(request.body, 'scopes'),
      expiresInDays: formField(request.body, 'expires_in_days').trim(),
      rateLimit: formField(request.body, 'rate_limit').trim(),
    };
    const errors = validateKeyForm(form, ctx.config.acceptedKeyEnvironments);
    const knownScopes = form.scopes.filter((s) => s === '*' || (SCOPES as readonly string[]).includes(s));
    if (knownScopes.length !== form.scopes.length) errors.push({ href: 'key-scopes', text: 'Choose scopes from the list' });
    if (errors.length > 0) return render(request, reply, form, errors);
    const created = await createApiKey(ctx, {
      orgId: tenantOf(request).orgId,
      environment: form.environment as Environment,
      scopes: knownScopes,
      name: form.name.trim(),
      ...(form.expiresInDays ? { expiresInSeconds: Number(form.expiresInDays) * 86_400 } : {}),
      ...(form.rateLimit ? { rateLimitPerMinute: Number(form.rateLimit) } : {}),
    });
    if (!created.ok) return render(request, reply, form, [{ href: 'key-name', text: created.message }]);
    setFlash(reply, request, flashDeps, { kind: 'key_created', key_id: created.value.key_id, key: created.value.key });
    return reply.redirect(KEYS_PATH, 303);
  });

  scope.get('/developers/keys/:key_id/revoke', { config: { auth: 'admin' } }, async (request, reply) => {
    const { key_id } = request.params as { key_id: string };
    const key = (await listApiKeys(ctx, { orgId: tenantOf(request).orgId })).find((k) => k.key_id === key_id && !k.revoked_at);
    if (!key) return reply.redirect(KEYS_PATH, 303);
    return sendDeveloperPage(request, reply, deps, {
      title: 'Revoke API key',
      nav: 'keys',
      body: (viewer) => html`${backLink(KEYS_PATH, 'Back to API keys')}
        <div class="card">
          <h1>Revoke “${key.name ?? `…${key.key_hint}`}”?</h1>
          <p>Requests with the ${key.environment} key ending in <code>${key.key_hint}</code> will be refused with 401 within 5 seconds, on every server. This cannot be undone: create a new key if you need one.</p>
          <form method="post" action=${`${KEYS_PATH}/${key.key_id}/revoke`}>
            ${csrfField(viewer)}
            <div class="button-group">
              ${button({ text: 'Revoke key', variant: 'warning', data: { 'prevent-double-submit': '' } })}
              <a href=${KEYS_PATH}>Cancel</a>
            </div>
          </form>
        </div>`,
    });
  });

  scope.post('/developers/keys/:key_id/revoke', { config: { auth: 'admin' } }, async (request, reply) => {
    const { key_id } = request.params as { key_id: string };
    const revoked = await revokeApiKey(ctx, { orgId: tenantOf(request).orgId, keyId: key_id });
    // This process forgets it at once; the others' caches hold a verified key for at most 4 s.
    if (revoked.ok) {
      ctx.keys.forget(key_id);
      setFlash(reply, request, flashDeps, { kind: 'notice', text: `The key “${revoked.value.name ?? revoked.value.key_hint}” is revoked.` });
    }
    return reply.redirect(KEYS_PATH, 303);
  });
}
