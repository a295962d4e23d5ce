import { z } from 'zod';
import { withdrawInvitation } from '../../../../domain/operators/invitations.ts';
import { tenantOf } from '../../context.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, setFlash } from '../flash.ts';
import { ACCOUNT_PATH } from './account.ts';

/** POST /dashboard/developers/account/invitations/:invitation_id/withdraw: the link stops working at once. */
export const withdrawInvitationPost = dashboardRoute({
  method: 'POST',
  url: '/developers/account/invitations/:invitation_id/withdraw',
  auth: 'admin',
  params: z.object({ invitation_id: z.string().min(1).max(64) }),
  handler: async ({ request, reply, params, deps }) => {
    const withdrawn = await withdrawInvitation(deps.ctx, { orgId: tenantOf(request).orgId, invitationId: params.invitation_id });
    setFlash(reply, request, flashDeps(deps), { kind: 'notice', text: withdrawn.ok ? 'Invitation withdrawn: its link no longer works.' : withdrawn.message });
    return reply.redirect(ACCOUNT_PATH, 303);
  },
});
