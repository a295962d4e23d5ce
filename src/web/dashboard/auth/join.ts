import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { acceptInvitation, findInvitation, JOIN_PATH, type InvitationLookup } from '../../../domain/operators/invitations.ts';
import { SESSION_ABSOLUTE_MS } from '../../../domain/operators/operator-sessions.ts';
import { signIn } from '../../../domain/operators/sign-in.ts';
import { cookieBase } from '../../face.ts';
import { formText } from '../../page-route.ts';
import { html, sendPage } from '../../render.ts';
import { button, errorSummary, type ErrorItem } from '../../ui/components.ts';
import { textInput } from '../../ui/fields.ts';
import { DASHBOARD_COOKIE, DASHBOARD_PREFIX, type DashboardRouteDeps } from '../context.ts';
import { barePage } from '../layout.ts';
import { dashboardRoute } from '../route.ts';

/**
 * The invitation link (issue 27 §5): the invitee chooses their password and is signed in. The
 * token in the address is the proof, as a password-reset link's is; the page sends no Referer
 * (the security headers' no-referrer), and the link works once.
 */
const params = z.object({ token: z.string().max(128) });

const NO_LONGER_OPEN: Record<Exclude<InvitationLookup['kind'], 'open'>, { title: string; text: string }> = {
  expired: { title: 'This invitation has expired', text: 'Invitation links work for 72 hours. Ask the admin who invited you to send a new one.' },
  accepted: { title: 'This invitation has been used', text: 'Your account is set up. Sign in with your email address and the password you chose.' },
  withdrawn: { title: 'This invitation is no longer valid', text: 'It was withdrawn or replaced by a newer one. Use the latest invitation you received, or ask the admin who invited you.' },
  unknown: { title: 'This invitation link is not valid', text: 'Check that you opened the whole link from the email. If it still does not work, ask the admin who invited you to send a new one.' },
};

function shell(deps: DashboardRouteDeps, title: string, hasErrors: boolean, children: ReturnType<typeof html>) {
  return barePage({
    title,
    stylesheet: deps.assets.url(DASHBOARD_PREFIX, 'dashboard.css'),
    scripts: [deps.assets.url(DASHBOARD_PREFIX, 'js/dashboard.js')],
    hasErrors,
    children,
  });
}

function showClosed(reply: FastifyReply, deps: DashboardRouteDeps, why: Exclude<InvitationLookup['kind'], 'open'>) {
  const words = NO_LONGER_OPEN[why];
  const status = why === 'unknown' ? 404 : 410;
  return sendPage(
    reply,
    shell(deps, words.title, false, html`<div class="card">
      <h1>${words.title}</h1>
      <p>${words.text}</p>
      <p><a href=${`${DASHBOARD_PREFIX}/login`}>Go to sign-in</a></p>
    </div>`),
    status,
  );
}

function showForm(reply: FastifyReply, deps: DashboardRouteDeps, token: string, invitation: Extract<InvitationLookup, { kind: 'open' }>, errors: ErrorItem[] = [], status = 200) {
  const as = invitation.role === 'admin' ? 'an admin' : 'a reviewer';
  return sendPage(
    reply,
    shell(deps, 'Join your team on Dossier', errors.length > 0, html`<div class="card">
      <h1>Join ${invitation.orgName} on Dossier</h1>
      <p>You have been invited as ${as}. Choose a password to finish setting up your account.</p>
      ${errorSummary('There is a problem', errors)}
      <form method="post" action=${`${JOIN_PATH}/${token}`} novalidate>
        ${textInput({ id: 'email', name: 'email', label: 'Email', type: 'email', value: invitation.email, autocomplete: 'username', readonly: true, hint: 'You sign in with this address.' })}
        ${textInput({ id: 'password', name: 'password', label: 'Choose a password', type: 'password', autocomplete: 'new-password', hint: 'At least 12 characters. A few words you will remember is a good password.', error: errors.find((e) => e.href === 'password')?.text })}
        ${button({ text: 'Set password and sign in', data: { 'prevent-double-submit': '' } })}
      </form>
    </div>`),
    status,
  );
}

/** GET /dashboard/join/:token: the invitation, or why its link no longer works. */
export const joinPage = dashboardRoute({
  method: 'GET',
  url: '/join/:token',
  auth: 'public',
  params,
  handler: async ({ reply, params, deps }) => {
    const invitation = await findInvitation(deps.ctx, { token: params.token });
    if (invitation.kind !== 'open') return showClosed(reply, deps, invitation.kind);
    return showForm(reply, deps, params.token, invitation);
  },
});

/** POST /dashboard/join/:token: creates the operator with the chosen password and signs them in. */
export const joinPost = dashboardRoute({
  method: 'POST',
  url: '/join/:token',
  auth: 'public',
  params,
  body: z.object({ password: formText }),
  handler: async ({ request, reply, params, body, deps }) => {
    const invitation = await findInvitation(deps.ctx, { token: params.token });
    if (invitation.kind !== 'open') return showClosed(reply, deps, invitation.kind);
    if (body.password === '') return showForm(reply, deps, params.token, invitation, [{ href: 'password', text: 'Choose a password' }], 400);
    const accepted = await acceptInvitation(deps.ctx, { token: params.token, password: body.password });
    if (accepted.kind === 'invalid_password') return showForm(reply, deps, params.token, invitation, [{ href: 'password', text: accepted.message }], 400);
    if (accepted.kind === 'no_longer_open') return showClosed(reply, deps, accepted.why);
    if (accepted.kind === 'email_taken') return showClosed(reply, deps, 'accepted');
    const signedIn = await signIn(deps.ctx, { email: accepted.operator.email, password: body.password, clientAddress: request.ip });
    if (signedIn.kind !== 'signed_in') return reply.redirect(`${DASHBOARD_PREFIX}/login`, 303);
    reply.setCookie(DASHBOARD_COOKIE, signedIn.token, { ...cookieBase(deps.ctx.config.baseUrl), sameSite: 'strict', path: DASHBOARD_PREFIX, maxAge: SESSION_ABSOLUTE_MS / 1000 });
    return reply.redirect(DASHBOARD_PREFIX, 303);
  },
});
