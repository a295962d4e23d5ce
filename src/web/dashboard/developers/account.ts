import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addWorkspaceOperator, listOperators, OPERATOR_ROLES, updateOperatorAccess, type OperatorRole, type OperatorView } from '../../../domain/operators/operators.ts';
import { getOrg, updateOrg } from '../../../domain/orgs/orgs.ts';
import { monthlyUsage } from '../../../domain/usage/usage.ts';
import { formField } from '../../face.ts';
import { html } from '../../render.ts';
import { button, meter, notification, summaryList, table, tag, type ErrorItem } from '../../ui/components.ts';
import { choices, select, textInput } from '../../ui/fields.ts';
import { operatorSessionOf, tenantOf, type DashboardRouteDeps } from '../context.ts';
import { csrfField } from '../layout.ts';
import { setFlash, takeFlash } from './flash.ts';
import { when } from './format.ts';
import { sendDeveloperPage } from './shell.ts';

const ACCOUNT_PATH = '/dashboard/developers/account';

interface OperatorForm {
  email: string;
  password: string;
  role: string;
}

/** Usage against the caps, billing (read-only), legal terms and operators. Admins only. */
export function registerAccount(scope: FastifyInstance, deps: DashboardRouteDeps): void {
  const { ctx } = deps;
  const flashDeps = { secret: deps.secret, baseUrl: ctx.config.baseUrl };

  const page = async (request: FastifyRequest, reply: FastifyReply, form: OperatorForm, errors: ErrorItem[] = [], errorStatus = 400) => {
    const { orgId } = tenantOf(request);
    const me = operatorSessionOf(request).operator.operator_id;
    const org = await getOrg(ctx, { orgId });
    if (!org.ok) throw new Error('the signed-in workspace is missing');
    const o = org.value;
    const [usage, operators] = await Promise.all([monthlyUsage(ctx, { orgId, testCap: ctx.config.testSessionsPerMonth, liveCap: o.live_usage_cap }), listOperators(ctx, { orgId })]);
    const acceptedBy = o.legal_accepted_by ? operators.find((op) => op.operator_id === o.legal_accepted_by)?.email ?? o.legal_accepted_by : null;
    const flash = errors.length === 0 ? takeFlash(reply, request, flashDeps) : undefined;
    const err = (id: string) => errors.find((e) => e.href === id)?.text;
    return sendDeveloperPage(request, reply, deps, {
      title: 'Usage and account',
      nav: 'account',
      errors,
      status: errors.length ? errorStatus : 200,
      body: (viewer) => html`<div class="page-header"><h1>Usage and account</h1></div>
        ${flash?.kind === 'notice' ? notification({ tone: 'success', role: 'status', children: html`<p>${flash.text}</p>` }) : null}
        <section class="card" aria-labelledby="usage-heading">
          <h2 class="card__title" id="usage-heading">Usage in ${usage.period} (UTC)</h2>
          <div class="stack">
            ${meter({ label: 'Test sessions', value: usage.test.used, max: usage.test.cap, text: `${usage.test.used} of ${usage.test.cap}` })}
            ${usage.live.cap === null
              ? html`<p>Live sessions: <strong>${usage.live.used}</strong> (no live usage cap)</p>`
              : meter({ label: 'Live sessions', value: usage.live.used, max: usage.live.cap, text: `${usage.live.used} of ${usage.live.cap}` })}
            <p class="muted small">Caps reset at the start of each UTC month; idempotent replays are not counted.</p>
          </div>
        </section>
        <section class="card" aria-labelledby="billing-heading">
          <h2 class="card__title" id="billing-heading">Billing and legal terms</h2>
          ${summaryList([
            { key: 'Billing', value: html`${o.billing_status === 'active' ? tag('Active', 'success') : tag('Inactive', 'warning')} <span class="muted small">Set by the deployment's operator (<code>dossier org update --billing</code>). Live keys need active billing.</span>` },
            { key: 'Current terms', value: o.current_legal_terms_version },
            {
              key: 'Accepted',
              value: o.legal_terms_current
                ? html`${tag('Accepted', 'success')} version ${o.legal_terms_version}, ${when(o.legal_accepted_at)}${acceptedBy ? ` by ${acceptedBy}` : ' (through the CLI)'}`
                : html`${tag('Not accepted', 'warning')}${o.legal_terms_version ? ` (version ${o.legal_terms_version} was accepted before)` : ''}`,
            },
          ])}
          ${o.legal_terms_current
            ? null
            : html`<form method="post" action=${`${ACCOUNT_PATH}/terms`}>
                ${csrfField(viewer)}
                <p>Live sessions are refused with 428 <code>legal_acceptance_required</code> until the current terms are accepted. Accepting records the version, the time and you.</p>
                ${button({ text: 'Accept terms', data: { 'prevent-double-submit': '' } })}
              </form>`}
        </section>
        <section class="card card--flush" aria-labelledby="operators-heading">
          <h2 class="card__title card__title--inset" id="operators-heading">Operators</h2>
          ${table<OperatorView>({
            stack: true,
            caption: 'Operators of this workspace',
            captionHidden: true,
            scrollRegion: true,
            rows: operators,
            columns: [
              { header: 'Email', rowHeader: true, cell: (op) => html`${op.email}${op.operator_id === me ? html` <span class="muted">(you)</span>` : null}` },
              { header: 'Status', cell: (op) => (op.disabled ? tag('Disabled', 'neutral') : tag('Active', 'success')) },
              { header: 'Last sign-in', cell: (op) => when(op.last_sign_in_at) },
              {
                header: 'Role',
                cell: (op) =>
                  op.operator_id === me
                    ? op.role === 'admin' ? 'Admin' : 'Reviewer'
                    : html`<form method="post" action=${`${ACCOUNT_PATH}/operators/${op.operator_id}`} class="cluster">
                        ${csrfField(viewer)}
                        ${select({ id: `role-${op.operator_id}`, name: 'role', label: `Role of ${op.email}`, value: op.role, options: OPERATOR_ROLES.map((r) => ({ value: r, text: r === 'admin' ? 'Admin' : 'Reviewer' })) })}
                        ${button({ text: 'Save role', variant: 'secondary', size: 'small', name: 'action', value: 'role' })}
                      </form>`,
              },
              {
                header: 'Access',
                cell: (op) =>
                  op.operator_id === me
                    ? html`<span class="muted">—</span>`
                    : html`<form method="post" action=${`${ACCOUNT_PATH}/operators/${op.operator_id}`}>
                        ${csrfField(viewer)}
                        <input type="hidden" name="action" value=${op.disabled ? 'enable' : 'disable'} />
                        <button class=${op.disabled ? 'button button--secondary button--small' : 'button button--warning button--small'} type="submit" data-confirm=${op.disabled ? undefined : `Disable ${op.email}? They are signed out at once.`}>${op.disabled ? 'Enable' : 'Disable'}<span class="visually-hidden"> ${op.email}</span></button>
                      </form>`,
              },
            ],
          })}
        </section>
        <section class="card" aria-labelledby="add-operator-heading">
          <h2 class="card__title" id="add-operator-heading">Add an operator</h2>
          <form method="post" action=${`${ACCOUNT_PATH}/operators`} novalidate>
            ${csrfField(viewer)}
            ${textInput({ id: 'operator-email', name: 'email', label: 'Email', type: 'email', autocomplete: 'off', spellcheck: false, value: form.email, error: err('operator-email'), width: 'w30' })}
            ${textInput({ id: 'operator-password', name: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', hint: 'At least 12 characters. Give it to them through a safe channel.', error: err('operator-password'), width: 'w30' })}
            ${choices({ id: 'operator-role', name: 'role', label: 'Role', type: 'radio', values: [form.role], error: err('operator-role'), options: [
              { value: 'reviewer', text: 'Reviewer', hint: 'Works cases.' },
              { value: 'admin', text: 'Admin', hint: 'Also reaches developer settings: keys, webhooks, case types, terms and operators.' },
            ] })}
            ${button({ text: 'Add operator', data: { 'prevent-double-submit': '' } })}
          </form>
        </section>`,
    });
  };

  scope.get('/developers/account', { config: { auth: 'admin' } }, async (request, reply) => page(request, reply, { email: '', password: '', role: 'reviewer' }));

  scope.post('/developers/account/terms', { config: { auth: 'admin' } }, async (request, reply) => {
    const accepted = await updateOrg(ctx, { orgId: tenantOf(request).orgId, acceptLegal: true, acceptedBy: operatorSessionOf(request).operator.operator_id });
    if (accepted.ok) setFlash(reply, request, flashDeps, { kind: 'notice', text: `You accepted the legal terms (${accepted.value.legal_terms_version}). Live sessions are no longer held back by them.` });
    return reply.redirect(ACCOUNT_PATH, 303);
  });

  scope.post('/developers/account/operators', { config: { auth: 'admin' } }, async (request, reply) => {
    const form: OperatorForm = { email: formField(request.body, 'email').trim(), password: formField(request.body, 'password'), role: formField(request.body, 'role') };
    const errors: ErrorItem[] = [];
    if (form.email === '') errors.push({ href: 'operator-email', text: 'Enter their email address' });
    if (form.password === '') errors.push({ href: 'operator-password', text: 'Enter a password for them' });
    if (!(OPERATOR_ROLES as readonly string[]).includes(form.role)) errors.push({ href: 'operator-role', text: 'Choose a role' });
    if (errors.length) return page(request, reply, { ...form, password: '' }, errors);
    const created = await addWorkspaceOperator(ctx, { orgId: tenantOf(request).orgId, email: form.email, password: form.password, role: form.role as OperatorRole });
    if (!created.ok && created.code === 'rate_limit_exceeded') {
      reply.header('retry-after', created.headers?.['retry-after'] ?? '60');
      return page(request, reply, { ...form, password: '' }, [{ href: 'operator-email', text: 'You have tried to add several operators in a short time. Wait a minute and try again.' }], 429);
    }
    if (!created.ok) {
      const field = /password/i.test(created.message) ? 'operator-password' : 'operator-email';
      return page(request, reply, { ...form, password: '' }, [{ href: field, text: created.message }]);
    }
    setFlash(reply, request, flashDeps, { kind: 'notice', text: `${created.value.email} can now sign in as ${created.value.role === 'admin' ? 'an admin' : 'a reviewer'}.` });
    return reply.redirect(ACCOUNT_PATH, 303);
  });

  scope.post('/developers/account/operators/:operator_id', { config: { auth: 'admin' } }, async (request, reply) => {
    const { operator_id } = request.params as { operator_id: string };
    const action = formField(request.body, 'action');
    const role = formField(request.body, 'role');
    const change =
      action === 'role' && (OPERATOR_ROLES as readonly string[]).includes(role)
        ? { role: role as OperatorRole }
        : action === 'disable' ? { disabled: true } : action === 'enable' ? { disabled: false } : undefined;
    if (!change) return reply.redirect(ACCOUNT_PATH, 303);
    const updated = await updateOperatorAccess(ctx, { orgId: tenantOf(request).orgId, actorOperatorId: operatorSessionOf(request).operator.operator_id, operatorId: operator_id, ...change });
    setFlash(reply, request, flashDeps, { kind: 'notice', text: updated.ok ? `${updated.value.email}: ${updated.value.disabled ? 'disabled' : updated.value.role}.` : updated.message });
    return reply.redirect(ACCOUNT_PATH, 303);
  });
}
