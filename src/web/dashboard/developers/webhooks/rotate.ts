import { z } from 'zod';
import { getEndpoint, rotateEndpointSecret } from '../../../../domain/webhooks/endpoints.ts';
import { html, type Markup } from '../../../render.ts';
import { backLink, button } from '../../../ui/components.ts';
import { tenantOf, type DashboardViewer } from '../../context.ts';
import { csrfField } from '../../layout.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, setFlash } from '../flash.ts';
import { sendDeveloperPage } from '../shell.ts';
import { endpointPath } from './views.ts';

const endpointParams = z.object({ endpoint_id: z.string() });

/** "Rotate the signing secret?", with what happens to deliveries meanwhile. */
function rotateView({ endpointId, url }: { endpointId: string; url: string }, viewer: DashboardViewer): Markup {
  return html`${backLink(endpointPath(endpointId), 'Back to the endpoint')}
    <div class="card">
      <h1>Rotate the signing secret?</h1>
      <p>A new secret is made and shown once. For 24 hours every delivery to <code class="break">${url}</code> is signed with both the old and the new secret, so you can deploy the new one to your receiver without missing a delivery.</p>
      <form method="post" action=${`${endpointPath(endpointId)}/rotate`}>
        ${csrfField(viewer)}
        <div class="button-group">${button({ text: 'Rotate secret', data: { 'prevent-double-submit': '' } })}<a href=${endpointPath(endpointId)}>Cancel</a></div>
      </form>
    </div>`;
}

/** GET /dashboard/developers/webhooks/{endpoint_id}/rotate: the confirmation. Admins only. */
export const rotateSecretPage = dashboardRoute({
  method: 'GET',
  url: '/developers/webhooks/:endpoint_id/rotate',
  auth: 'admin',
  params: endpointParams,
  handler: async ({ request, reply, params, deps }) => {
    const found = await getEndpoint(deps.ctx, { tenant: tenantOf(request), endpointId: params.endpoint_id });
    if (!found.ok) return reply.callNotFound();
    return sendDeveloperPage(request, reply, deps, { title: 'Rotate signing secret', nav: 'webhooks', body: (viewer) => rotateView({ endpointId: params.endpoint_id, url: found.value.url }, viewer) });
  },
});

/** POST /dashboard/developers/webhooks/{endpoint_id}/rotate: a new signing secret, shown once on the endpoint's page; the old one signs for 24 more hours. */
export const rotateSecretPost = dashboardRoute({
  method: 'POST',
  url: '/developers/webhooks/:endpoint_id/rotate',
  auth: 'admin',
  params: endpointParams,
  handler: async ({ request, reply, params, deps }) => {
    const { endpoint_id } = params;
    const rotated = await rotateEndpointSecret({ ...deps.ctx, secret: deps.secret }, { tenant: tenantOf(request), endpointId: endpoint_id });
    if (!rotated.ok) return reply.callNotFound();
    setFlash(reply, request, flashDeps(deps), { kind: 'endpoint_secret', endpoint_id, signing_secret: rotated.value.signing_secret, rotated: true });
    return reply.redirect(endpointPath(endpoint_id), 303);
  },
});
