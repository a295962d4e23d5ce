import { z } from 'zod';
import { listApiKeys, revokeApiKey, type ApiKeyView } from '../../../../domain/keys/keys.ts';
import { html, type Markup } from '../../../render.ts';
import { backLink, button } from '../../../ui/components.ts';
import { tenantOf, type DashboardViewer } from '../../context.ts';
import { csrfField } from '../../layout.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, setFlash } from '../flash.ts';
import { sendDeveloperPage } from '../shell.ts';
import { KEYS_PATH } from './list.ts';

const keyParams = z.object({ key_id: z.string() });

/** "Revoke this key?", naming the key and what revoking does. */
function revokeView(key: ApiKeyView, viewer: DashboardViewer): Markup {
  return html`${backLink(KEYS_PATH, 'Back to API keys')}
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
    </div>`;
}

/** GET /dashboard/developers/keys/{key_id}/revoke: the confirmation; back to the keys when there is no such live key. */
export const revokeKeyPage = dashboardRoute({
  method: 'GET',
  url: '/developers/keys/:key_id/revoke',
  auth: 'admin',
  params: keyParams,
  handler: async ({ request, reply, params, deps }) => {
    const key = (await listApiKeys(deps.ctx, { orgId: tenantOf(request).orgId })).find((k) => k.key_id === params.key_id && !k.revoked_at);
    if (!key) return reply.redirect(KEYS_PATH, 303);
    return sendDeveloperPage(request, reply, deps, { title: 'Revoke API key', nav: 'keys', body: (viewer) => revokeView(key, viewer) });
  },
});

/** POST /dashboard/developers/keys/{key_id}/revoke: revokes the key, here at once and on other servers within seconds. */
export const revokeKeyPost = dashboardRoute({
  method: 'POST',
  url: '/developers/keys/:key_id/revoke',
  auth: 'admin',
  params: keyParams,
  handler: async ({ request, reply, params, deps }) => {
    const { ctx } = deps;
    const { key_id } = params;
    const revoked = await revokeApiKey(ctx, { orgId: tenantOf(request).orgId, keyId: key_id });
    // This process forgets it at once; the others' caches hold a verified key for at most 4 s.
    if (revoked.ok) {
      ctx.keys.forget(key_id);
      setFlash(reply, request, flashDeps(deps), { kind: 'notice', text: `The key “${revoked.value.name ?? revoked.value.key_hint}” is revoked.` });
    }
    return reply.redirect(KEYS_PATH, 303);
  },
});
