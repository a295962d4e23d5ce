import { z } from 'zod';
import { OPERATOR_ROLES, updateOperatorAccess, type OperatorRole } from '../../../../domain/operators/operators.ts';
import { formText } from '../../../page-route.ts';
import { operatorSessionOf, tenantOf } from '../../context.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, setFlash } from '../flash.ts';
import { ACCOUNT_PATH } from './account.ts';

/** POST /dashboard/developers/account/operators/{operator_id}: another operator's role (`action=role`), or disables or enables them. */
export const operatorAccessPost = dashboardRoute({
  method: 'POST',
  url: '/developers/account/operators/:operator_id',
  auth: 'admin',
  params: z.object({ operator_id: z.string() }),
  body: z.object({ action: formText, role: formText }),
  handler: async ({ request, reply, params, body, deps }) => {
    const { action, role } = body;
    const change =
      action === 'role' && (OPERATOR_ROLES as readonly string[]).includes(role)
        ? { role: role as OperatorRole }
        : action === 'disable' ? { disabled: true } : action === 'enable' ? { disabled: false } : undefined;
    if (!change) return reply.redirect(ACCOUNT_PATH, 303);
    const updated = await updateOperatorAccess(deps.ctx, { orgId: tenantOf(request).orgId, actorOperatorId: operatorSessionOf(request).operator.operator_id, operatorId: params.operator_id, ...change });
    setFlash(reply, request, flashDeps(deps), { kind: 'notice', text: updated.ok ? `${updated.value.email}: ${updated.value.disabled ? 'disabled' : updated.value.role}.` : updated.message });
    return reply.redirect(ACCOUNT_PATH, 303);
  },
});
