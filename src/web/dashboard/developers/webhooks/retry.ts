import { z } from 'zod';
import { getDeliveryDetail, retryDelivery } from '../../../../domain/webhooks/delivery-log.ts';
import { tenantOf } from '../../context.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, setFlash } from '../flash.ts';
import { deliveryPath } from './views.ts';

/** POST /dashboard/developers/webhooks/{endpoint_id}/deliveries/{delivery_id}/retry: queues a failed delivery again. */
export const retryDeliveryPost = dashboardRoute({
  method: 'POST',
  url: '/developers/webhooks/:endpoint_id/deliveries/:delivery_id/retry',
  auth: 'admin',
  params: z.object({ endpoint_id: z.string(), delivery_id: z.string() }),
  handler: async ({ request, reply, params, deps }) => {
    const { ctx } = deps;
    const { endpoint_id, delivery_id } = params;
    const tenant = tenantOf(request);
    const found = await getDeliveryDetail(ctx, { orgId: tenant.orgId, environment: tenant.environment, deliveryId: delivery_id });
    if (!found.ok || found.value.endpoint_id !== endpoint_id) return reply.callNotFound();
    // The same rules as POST /api/v1/webhooks/deliveries/{id}/retry: only a failed delivery.
    const retried = await retryDelivery(ctx, { orgId: tenant.orgId, environment: tenant.environment, deliveryId: delivery_id });
    if (retried.ok) ctx.wake.notify('webhook-deliveries');
    setFlash(reply, request, flashDeps(deps), { kind: 'notice', text: retried.ok ? 'The delivery is queued again.' : retried.message });
    return reply.redirect(deliveryPath(endpoint_id, delivery_id), 303);
  },
});
