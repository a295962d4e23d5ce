import type { FastifyReply, FastifyRequest } from 'fastify';
import { listOperators, OPERATOR_ROLES, type OperatorView } from '../../../../domain/operators/operators.ts';
import { getOrg, type OrgView } from '../../../../domain/orgs/orgs.ts';
import { monthlyUsage, type MonthlyUsage } from '../../../../domain/usage/usage.ts';
import { html, type Markup } from '../../../render.ts';
import { button, meter, notification, summaryList, table, tag, type ErrorItem } from '../../../ui/components.ts';
import { choices, select, textInput } from '../../../ui/fields.ts';
import { operatorSessionOf, tenantOf, type DashboardRouteDeps, type DashboardViewer } from '../../context.ts';
import { csrfField } from '../../layout.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, takeFlash, type Flash } from '../flash.ts';
import { when } from '../format.ts';
import { sendDeveloperPage } from '../shell.ts';

export const ACCOUNT_PATH = '/dashboard/developers/account';

/** The add-operator form as sent (its password never shown again), or empty. */
export interface OperatorForm {
  email: string;
  password: string;
  role: string;
}

interface AccountViewProps {
  org: OrgView;
  usage: MonthlyUsage;
  operators: readonly OperatorView[];
  /** The signed-in operator, who cannot change their own role or access here. */
  me: string;
  flash: Flash | undefined;
  form: OperatorForm;
  errors: readonly ErrorItem[];
}

/** Usage against the caps, billing and legal terms, the operators with their role and access, and the add-operator form. */
function accountView({ org: o, usage, operators, me, flash, form, errors }: AccountViewProps, viewer: DashboardViewer): Markup {
  const acceptedBy = o.legal_accepted_by ? operators.find((op) => op.operator_id === o.legal_accepted_by)?.email ?? o.legal_accepted_by : null;
  const err = (id: string) => errors.find((e) => e.href === id)?.text;
  return html`<div class="page-header"><h1>Usage and account</h1></div>
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
                    ${select({ id: `role-${op.operator_id}`, name: 'role', label: `Role of ${op.email}`, labelHidden: true, value: op.role, options: OPERATOR_ROLES.map((r) => ({ value: r, text: r === 'admin' ? 'Admin' : 'Reviewer' })) })}
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
    </section>`;
}

/** The account page, with the add-operator form as sent and its problems (`errorStatus`), or empty (200, reading the flash). */
export async function showAccount(request: FastifyRequest, reply: FastifyReply, deps: DashboardRouteDeps, form: OperatorForm, errors: ErrorItem[] = [], errorStatus = 400) {
  const { ctx } = deps;
  const { orgId } = tenantOf(request);
  const me = operatorSessionOf(request).operator.operator_id;
  const org = await getOrg(ctx, { orgId });
  if (!org.ok) throw new Error('the signed-in workspace is missing');
  const [usage, operators] = await Promise.all([monthlyUsage(ctx, { orgId, testCap: ctx.config.testSessionsPerMonth, liveCap: org.value.live_usage_cap }), listOperators(ctx, { orgId })]);
  const flash = errors.length === 0 ? takeFlash(reply, request, flashDeps(deps)) : undefined;
  const props: AccountViewProps = { org: org.value, usage, operators, me, flash, form, errors };
  return sendDeveloperPage(request, reply, deps, {
    title: 'Usage and account',
    nav: 'account',
    errors,
    status: errors.length ? errorStatus : 200,
    body: (viewer) => accountView(props, viewer),
  });
}

/** GET /dashboard/developers/account: usage against the caps, billing (read-only), legal terms and operators. Admins only. */
export const accountPage = dashboardRoute({
  method: 'GET',
  url: '/developers/account',
  auth: 'admin',
  handler: async ({ request, reply, deps }) => showAccount(request, reply, deps, { email: '', password: '', role: 'reviewer' }),
});
