import { z } from 'zod';
import { inviteOperator } from '../../../../domain/operators/invitations.ts';
import { OPERATOR_ROLES, type OperatorRole } from '../../../../domain/operators/operators.ts';
import { formText } from '../../../page-route.ts';
import type { ErrorItem } from '../../../ui/components.ts';
import { operatorSessionOf, tenantOf } from '../../context.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, setFlash } from '../flash.ts';
import { ACCOUNT_PATH, showAccount, type InviteForm } from './account.ts';

/**
 * POST /dashboard/developers/account/invitations: invites a person by email (issue 27 §5). The
 * outcome, and the link when it was not mailed, travel in the sealed flash to the account page.
 */
export const invitePost = dashboardRoute({
  method: 'POST',
  url: '/developers/account/invitations',
  auth: 'admin',
  body: z.object({ email: formText, role: formText }),
  handler: async ({ request, reply, body, deps }) => {
    const form: InviteForm = { email: body.email.trim(), role: body.role };
    const errors: ErrorItem[] = [];
    if (form.email === '') errors.push({ href: 'invite-email', text: 'Enter their email address' });
    if (!(OPERATOR_ROLES as readonly string[]).includes(form.role)) errors.push({ href: 'invite-role', text: 'Choose a role' });
    if (errors.length) return showAccount(request, reply, deps, form, errors);
    const session = operatorSessionOf(request);
    const invited = await inviteOperator(deps.ctx, { orgId: tenantOf(request).orgId, invitedBy: session.operator.operator_id, email: form.email, role: form.role as OperatorRole, orgName: session.orgName });
    if (!invited.ok && invited.code === 'rate_limit_exceeded') {
      reply.header('retry-after', invited.headers?.['retry-after'] ?? '60');
      return showAccount(request, reply, deps, form, [{ href: 'invite-email', text: 'You have sent several invitations in a short time. Wait a minute and try again.' }], 429);
    }
    if (!invited.ok) return showAccount(request, reply, deps, form, [{ href: 'invite-email', text: invited.message }]);
    const { invitation, link, delivery } = invited.value;
    setFlash(reply, request, flashDeps(deps), { kind: 'invitation', email: invitation.email, link, delivery, expires_at: invitation.expires_at });
    return reply.redirect(ACCOUNT_PATH, 303);
  },
});
