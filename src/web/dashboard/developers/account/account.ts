import type { FastifyReply, FastifyRequest } from 'fastify';
import { listOperators, OPERATOR_ROLES, type OperatorView } from '../../../../domain/operators/operators.ts';
import { listInvitations, type InvitationView } from '../../../../domain/operators/invitations.ts';
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

/** The invitation form as sent, or empty. */
export interface InviteForm {
  email: string;
  role: string;
}

interface AccountViewProps {
  org: OrgView;
  usage: MonthlyUsage;
  operators: readonly OperatorView[];
  /** Invitations not yet accepted or withdrawn, expired ones included (to be sent again). */
  invitations: readonly InvitationView[];
  now: Date;
  /** Whether this deployment mails invitations (SMTP_URL), or hands the admin the link. */
  mails: boolean;
  /** The signed-in operator, who cannot change their own role or access here. */
  me: string;
  flash: Flash | undefined;
  form: InviteForm;
  errors: readonly ErrorItem[];
}

/** What became of an invitation just made: mailed, or its link to pass on, with why it was not mailed. */
function invitationNotice(f: Extract<Flash, { kind: 'invitation' }>): Markup {
  if (f.delivery === 'mailed') {
    return notification({ tone: 'success', role: 'status', children: html`<p>Invitation sent to <strong>${f.email}</strong>. The link in it works once, for 72 hours.</p>` });
  }
  const why = f.delivery === 'no_mailer' ? 'This deployment does not send email (it has no SMTP_URL).' : 'The mail server did not accept the message.';
  return notification({
    tone: f.delivery === 'mail_failed' ? 'warning' : 'info',
    role: 'status',
    title: `Invitation for ${f.email} created`,
    children: html`<p>${why} Send this link to ${f.email} yourself, through a channel you trust. It works once, for 72 hours.</p>
      <p><label class="label" for="invitation-link">Invitation link</label><input class="input mono" id="invitation-link" type="text" readonly value=${f.link} /></p>`,
  });
}

function expiresText(i: InvitationView, now: Date): Markup {
  if (i.expired) return tag('Expired', 'neutral');
  const hours = Math.max(1, Math.round((Date.parse(i.expires_at) - now.getTime()) / 3_600_000));
  return html`${hours >= 24 ? `In ${Math.round(hours / 24)} day${Math.round(hours / 24) === 1 ? '' : 's'}` : `In ${hours} hour${hours === 1 ? '' : 's'}`}`;
}

/** Usage against the caps, billing and legal terms, the operators with their role and access, invitations, and the invitation form. */
function accountView({ org: o, usage, operators, invitations, now, mails, me, flash, form, errors }: AccountViewProps, viewer: DashboardViewer): Markup {
  const acceptedBy = o.legal_accepted_by ? operators.find((op) => op.operator_id === o.legal_accepted_by)?.email ?? o.legal_accepted_by : null;
  const err = (id: string) => errors.find((e) => e.href === id)?.text;
  return html`<div class="page-header"><h1>Usage and account</h1></div>
    ${flash?.kind === 'notice' ? notification({ tone: 'success', role: 'status', children: html`<p>${flash.text}</p>` }) : null}
    ${flash?.kind === 'invitation' ? invitationNotice(flash) : null}
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
    ${invitations.length > 0
      ? html`<section class="card card--flush" aria-labelledby="invitations-heading">
          <h2 class="card__title card__title--inset" id="invitations-heading">Invitations</h2>
          ${table<InvitationView>({
            stack: true,
            caption: 'Invitations not yet accepted',
            captionHidden: true,
            scrollRegion: true,
            rows: invitations,
            columns: [
              { header: 'Email', rowHeader: true, cell: (i) => i.email },
              { header: 'Role', cell: (i) => (i.role === 'admin' ? 'Admin' : 'Reviewer') },
              { header: 'Expires', cell: (i) => expiresText(i, now) },
              {
                header: 'Action',
                cell: (i) =>
                  i.expired
                    ? html`<form method="post" action=${`${ACCOUNT_PATH}/invitations`}>
                        ${csrfField(viewer)}<input type="hidden" name="email" value=${i.email} /><input type="hidden" name="role" value=${i.role} />
                        <button class="button button--secondary button--small" type="submit">Invite again<span class="visually-hidden"> ${i.email}</span></button>
                      </form>`
                    : html`<form method="post" action=${`${ACCOUNT_PATH}/invitations/${i.invitation_id}/withdraw`}>
                        ${csrfField(viewer)}
                        <button class="button button--secondary button--small" type="submit">Withdraw<span class="visually-hidden"> the invitation for ${i.email}</span></button>
                      </form>`,
              },
            ],
          })}
        </section>`
      : null}
    <section class="card" aria-labelledby="invite-heading">
      <h2 class="card__title" id="invite-heading">Invite an operator</h2>
      <p>${mails ? 'They get an email with a link to choose their own password.' : 'You get a link to send them, to choose their own password (this deployment does not send email).'} The link works once, for 72 hours.</p>
      <form method="post" action=${`${ACCOUNT_PATH}/invitations`} novalidate>
        ${csrfField(viewer)}
        ${textInput({ id: 'invite-email', name: 'email', label: 'Email address', type: 'email', autocomplete: 'off', spellcheck: false, value: form.email, error: err('invite-email'), width: 'w30' })}
        ${choices({ id: 'invite-role', name: 'role', label: 'Role', type: 'radio', values: [form.role], error: err('invite-role'), options: [
          { value: 'reviewer', text: 'Reviewer', hint: 'Works cases.' },
          { value: 'admin', text: 'Admin', hint: 'Also reaches developer settings: keys, webhooks, case types, terms and operators.' },
        ] })}
        ${button({ text: 'Send invitation', data: { 'prevent-double-submit': '' } })}
      </form>
    </section>`;
}

/** The account page, with the invitation form as sent and its problems (`errorStatus`), or empty (200, reading the flash). */
export async function showAccount(request: FastifyRequest, reply: FastifyReply, deps: DashboardRouteDeps, form: InviteForm, errors: ErrorItem[] = [], errorStatus = 400) {
  const { ctx } = deps;
  const { orgId } = tenantOf(request);
  const me = operatorSessionOf(request).operator.operator_id;
  const org = await getOrg(ctx, { orgId });
  if (!org.ok) throw new Error('the signed-in workspace is missing');
  const [usage, operators, invitations] = await Promise.all([
    monthlyUsage(ctx, { orgId, testCap: ctx.config.testSessionsPerMonth, liveCap: org.value.live_usage_cap }),
    listOperators(ctx, { orgId }),
    listInvitations(ctx, { orgId }),
  ]);
  const flash = errors.length === 0 ? takeFlash(reply, request, flashDeps(deps)) : undefined;
  const props: AccountViewProps = { org: org.value, usage, operators, invitations, now: ctx.clock.now(), mails: ctx.mailer !== null, me, flash, form, errors };
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
  handler: async ({ request, reply, deps }) => showAccount(request, reply, deps, { email: '', role: 'reviewer' }),
});
