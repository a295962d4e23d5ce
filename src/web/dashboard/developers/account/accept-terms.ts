import { updateOrg } from '../../../../domain/orgs/orgs.ts';
import { operatorSessionOf, tenantOf } from '../../context.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, setFlash } from '../flash.ts';
import { ACCOUNT_PATH } from './account.ts';

/** POST /dashboard/developers/account/terms: records that this operator accepted the current legal terms. */
export const acceptTermsPost = dashboardRoute({
  method: 'POST',
  url: '/developers/account/terms',
  auth: 'admin',
  handler: async ({ request, reply, deps }) => {
    const accepted = await updateOrg(deps.ctx, { orgId: tenantOf(request).orgId, acceptLegal: true, acceptedBy: operatorSessionOf(request).operator.operator_id });
    if (accepted.ok) setFlash(reply, request, flashDeps(deps), { kind: 'notice', text: `You accepted the legal terms (${accepted.value.legal_terms_version}). Live sessions are no longer held back by them.` });
    return reply.redirect(ACCOUNT_PATH, 303);
  },
});
