import { z } from 'zod';
import { disableEndpointById, enableEndpointById } from '../../../../domain/webhooks/endpoints.ts';
import { tenantOf } from '../../context.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, setFlash } from '../flash.ts';
import { endpointPath } from './views.ts';

/** POST /dashboard/developers/webhooks/{endpoint_id}/disable or …/enable: whether the endpoint receives new deliveries. */
function endpointSwitchPost(action: 'disable' | 'enable') {
  return dashboardRoute({
    method: 'POST',
    url: `/developers/webhooks/:endpoint_id/${action}`,
    auth: 'admin',
    params: z.object({ endpoint_id: z.string() }),
    handler: async ({ request, reply, params, deps }) => {
      const { endpoint_id } = params;
      const changed = await (action === 'disable' ? disableEndpointById : enableEndpointById)(deps.ctx, { tenant: tenantOf(request), endpointId: endpoint_id });
      if (!changed.ok) return reply.callNotFound();
      setFlash(reply, request, flashDeps(deps), { kind: 'notice', text: action === 'disable' ? 'The endpoint is disabled: it receives no new deliveries.' : 'The endpoint is enabled.' });
      return reply.redirect(endpointPath(endpoint_id), 303);
    },
  });
}

export const disableEndpointPost = endpointSwitchPost('disable');
export const enableEndpointPost = endpointSwitchPost('enable');
