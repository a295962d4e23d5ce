import { z } from 'zod';
import { createEndpoint } from '../../../../domain/webhooks/endpoints.ts';
import { formList, formText } from '../../../page-route.ts';
import type { ErrorItem } from '../../../ui/components.ts';
import { tenantOf } from '../../context.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, setFlash } from '../flash.ts';
import { showWebhooks } from './list.ts';
import { endpointPath } from './views.ts';

/** POST /dashboard/developers/webhooks: adds an endpoint and shows its signing secret once (through the flash), or the form again with its problems. */
export const createEndpointPost = dashboardRoute({
  method: 'POST',
  url: '/developers/webhooks',
  auth: 'admin',
  body: z.object({ url: formText, events: formList }),
  handler: async ({ request, reply, body, deps }) => {
    const form = { url: body.url.trim(), events: body.events };
    const errors: ErrorItem[] = [];
    if (form.url === '') errors.push({ href: 'endpoint-url', text: 'Enter the URL of your receiver' });
    if (form.events.length === 0) errors.push({ href: 'endpoint-events', text: 'Choose at least one event, or all events' });
    if (errors.length > 0) return showWebhooks(request, reply, deps, form, errors, 400);
    const tenant = tenantOf(request);
    const created = await createEndpoint({ ...deps.ctx, secret: deps.secret }, { tenant, url: form.url, events: form.events, selfServe: true });
    if (!created.ok) {
      const field = created.code === 'invalid_request' ? 'endpoint-events' : 'endpoint-url';
      return showWebhooks(request, reply, deps, form, [{ href: field, text: created.message }], created.code === 'self_serve_webhooks_disabled' ? 428 : 400);
    }
    setFlash(reply, request, flashDeps(deps), { kind: 'endpoint_secret', endpoint_id: created.value.endpoint_id, signing_secret: created.value.signing_secret, rotated: false });
    return reply.redirect(endpointPath(created.value.endpoint_id), 303);
  },
});
