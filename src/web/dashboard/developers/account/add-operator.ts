import { z } from 'zod';
import { addWorkspaceOperator, OPERATOR_ROLES, type OperatorRole } from '../../../../domain/operators/operators.ts';
import { formText } from '../../../page-route.ts';
import type { ErrorItem } from '../../../ui/components.ts';
import { tenantOf } from '../../context.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, setFlash } from '../flash.ts';
import { ACCOUNT_PATH, showAccount, type OperatorForm } from './account.ts';

/** POST /dashboard/developers/account/operators: adds an operator to the workspace, or shows the account page again with the form's problems. */
export const addOperatorPost = dashboardRoute({
  method: 'POST',
  url: '/developers/account/operators',
  auth: 'admin',
  body: z.object({ email: formText, password: formText, role: formText }),
  handler: async ({ request, reply, body, deps }) => {
    const form: OperatorForm = { email: body.email.trim(), password: body.password, role: body.role };
    const errors: ErrorItem[] = [];
    if (form.email === '') errors.push({ href: 'operator-email', text: 'Enter their email address' });
    if (form.password === '') errors.push({ href: 'operator-password', text: 'Enter a password for them' });
    if (!(OPERATOR_ROLES as readonly string[]).includes(form.role)) errors.push({ href: 'operator-role', text: 'Choose a role' });
    if (errors.length) return showAccount(request, reply, deps, { ...form, password: '' }, errors);
    const created = await addWorkspaceOperator(deps.ctx, { orgId: tenantOf(request).orgId, email: form.email, password: form.password, role: form.role as OperatorRole });
    if (!created.ok && created.code === 'rate_limit_exceeded') {
      reply.header('retry-after', created.headers?.['retry-after'] ?? '60');
      return showAccount(request, reply, deps, { ...form, password: '' }, [{ href: 'operator-email', text: 'You have tried to add several operators in a short time. Wait a minute and try again.' }], 429);
    }
    if (!created.ok) {
      const field = /password/i.test(created.message) ? 'operator-password' : 'operator-email';
      return showAccount(request, reply, deps, { ...form, password: '' }, [{ href: field, text: created.message }]);
    }
    setFlash(reply, request, flashDeps(deps), { kind: 'notice', text: `${created.value.email} can now sign in as ${created.value.role === 'admin' ? 'an admin' : 'a reviewer'}.` });
    return reply.redirect(ACCOUNT_PATH, 303);
  },
});
