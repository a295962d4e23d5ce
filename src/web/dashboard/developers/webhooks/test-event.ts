import { z } from 'zod';
import { currentSigningSecret } from '../../../../domain/webhooks/endpoints.ts';
import { listenerStates } from '../../../../domain/webhooks/listeners.ts';
import { WEBHOOK_USER_AGENT } from '../../../../domain/webhooks/sent-request.ts';
import { queueTestDelivery, sendTestWebhook } from '../../../../domain/webhooks/test-send.ts';
import { tenantOf } from '../../context.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, setFlash } from '../flash.ts';
import { endpointPath } from './views.ts';

/** POST /dashboard/developers/webhooks/{endpoint_id}/test: sends a test event now (a listener's is queued), its outcome shown on the endpoint's page. */
export const sendTestEventPost = dashboardRoute({
  method: 'POST',
  url: '/developers/webhooks/:endpoint_id/test',
  auth: 'admin',
  params: z.object({ endpoint_id: z.string() }),
  handler: async ({ request, reply, params, deps }) => {
    const { ctx } = deps;
    const { endpoint_id } = params;
    const tenant = tenantOf(request);
    const target = await currentSigningSecret({ ...ctx, secret: deps.secret }, { tenant, endpointId: endpoint_id });
    if (!target.ok) return reply.callNotFound();
    if ((await listenerStates(ctx, tenant)).has(endpoint_id)) {
      // The server never connects to a listener's URL: the test is queued for the listen stream, like any delivery.
      const queued = await queueTestDelivery(ctx, { tenant, endpointId: endpoint_id, traceId: String(request.id) });
      if (queued.ok) ctx.wake.notify('webhook-deliveries');
      setFlash(reply, request, flashDeps(deps), { kind: 'notice', text: queued.ok ? 'Test event queued for dossier listen: it appears in the delivery log below.' : queued.message });
      return reply.redirect(endpointPath(endpoint_id), 303);
    }
    const sent = await sendTestWebhook(
      // The same client as POST /api/v1/webhooks/test and the delivery worker.
      { ...ctx, secret: deps.secret, http: ctx.outbound.webhooks },
      {
        orgId: tenant.orgId,
        environment: tenant.environment,
        endpointUrl: target.value.url,
        signingSecret: target.value.secret,
        traceId: String(request.id),
        userAgent: WEBHOOK_USER_AGENT,
        endpointId: endpoint_id,
      },
    );
    if (!sent.ok) {
      setFlash(reply, request, flashDeps(deps), { kind: 'test_sent', endpoint_id, success: false, status_code: null, duration_ms: 0, error: sent.message });
    } else {
      const r = sent.value;
      setFlash(reply, request, flashDeps(deps), { kind: 'test_sent', endpoint_id, success: r.success, status_code: r.status_code, duration_ms: r.duration_ms, ...(r.error ? { error: r.error } : {}) });
    }
    return reply.redirect(endpointPath(endpoint_id), 303);
  },
});
