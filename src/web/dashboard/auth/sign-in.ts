import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { signIn } from '../../../domain/operators/sign-in.ts';
import { CSRF_FIELD, randomCsrfNonce } from '../../csrf.ts';
import { cookieBase, safeLocalPath } from '../../face.ts';
import { formText, queryText } from '../../page-route.ts';
import { html, sendPage } from '../../render.ts';
import { button, errorSummary, notification, type ErrorItem } from '../../ui/components.ts';
import { hiddenInput, textInput } from '../../ui/fields.ts';
import { barePage } from '../layout.ts';
import { DASHBOARD_COOKIE, DASHBOARD_PREFIX, type DashboardRouteDeps } from '../context.ts';
import { dashboardRoute } from '../route.ts';
import { SESSION_ABSOLUTE_MS } from '../../../domain/operators/operator-sessions.ts';
import { timingSafeEqual } from 'node:crypto';

/** The sign-in form has no session to bind a CSRF token to: a double-submit nonce in a strict cookie instead. */
const LOGIN_CSRF_COOKIE = 'dossier_login_csrf';
const LOGIN_PATH = `${DASHBOARD_PREFIX}/login`;

interface SignInView {
  email: string;
  next: string;
  nonce: string;
  errors: ErrorItem[];
  notice?: string;
  stylesheet: string;
  scripts: string[];
}

function signInView(v: SignInView) {
  const emailError = v.errors.find((e) => e.href === 'email')?.text;
  const passwordError = v.errors.find((e) => e.href === 'password')?.text;
  return barePage({
    title: 'Sign in',
    stylesheet: v.stylesheet,
    scripts: v.scripts,
    hasErrors: v.errors.length > 0,
    children: html`<div class="card">
      <h1>Sign in to Dossier</h1>
      ${v.notice ? notification({ role: 'status', children: html`<p>${v.notice}</p>` }) : null}
      ${errorSummary('There is a problem', v.errors)}
      <form method="post" action=${LOGIN_PATH} novalidate>
        ${hiddenInput(CSRF_FIELD, v.nonce)}
        ${v.next ? hiddenInput('next', v.next) : null}
        ${textInput({ id: 'email', name: 'email', label: 'Email', type: 'email', value: v.email, autocomplete: 'username', spellcheck: false, error: emailError })}
        ${textInput({ id: 'password', name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', error: passwordError })}
        ${button({ text: 'Sign in', data: { 'prevent-double-submit': '' } })}
      </form>
    </div>`,
  });
}

const NOTICES: Record<string, string> = {
  expired: 'Your session ended. Sign in again to carry on.',
  signed_out: 'You have signed out.',
};

function nonceMatches(cookie: string | undefined, field: string): boolean {
  if (!cookie || !field || cookie.length !== field.length) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(field));
}

/** Shows the form with a fresh double-submit nonce, set in its strict cookie beside it. */
function showSignIn(reply: FastifyReply, deps: DashboardRouteDeps, view: Omit<SignInView, 'nonce' | 'stylesheet' | 'scripts'>, status = 200) {
  const nonce = randomCsrfNonce();
  reply.setCookie(LOGIN_CSRF_COOKIE, nonce, { ...cookieBase(deps.ctx.config.baseUrl), sameSite: 'strict', path: LOGIN_PATH });
  return sendPage(
    reply,
    signInView({ ...view, nonce, stylesheet: deps.assets.url(DASHBOARD_PREFIX, 'dashboard.css'), scripts: [deps.assets.url(DASHBOARD_PREFIX, 'js/dashboard.js')] }),
    status,
  );
}

/** GET /dashboard/login: the form, with why the operator is here (session ended, signed out) and where to go after. */
export const signInPage = dashboardRoute({
  method: 'GET',
  url: '/login',
  auth: 'public',
  query: z.object({ next: queryText, reason: queryText }),
  handler: async ({ reply, query, deps }) => {
    const next = safeLocalPath(query.next ?? '', DASHBOARD_PREFIX) ?? '';
    return showSignIn(reply, deps, { email: '', next, errors: [], ...(query.reason && NOTICES[query.reason] ? { notice: NOTICES[query.reason] } : {}) });
  },
});

/** POST /dashboard/login: checks the nonce, then the email and password; a session cookie and a redirect on success. */
export const signInPost = dashboardRoute({
  method: 'POST',
  url: '/login',
  auth: 'public',
  body: z.object({ email: formText, password: formText, next: formText, [CSRF_FIELD]: formText }),
  handler: async ({ request, reply, body, deps }) => {
    const email = body.email.trim();
    const password = body.password;
    const next = safeLocalPath(body.next, DASHBOARD_PREFIX) ?? '';
    if (!nonceMatches(request.cookies[LOGIN_CSRF_COOKIE], body[CSRF_FIELD])) {
      return showSignIn(reply, deps, { email, next, errors: [{ href: 'email', text: 'The sign-in page had expired. Enter your email and password again.' }] }, 400);
    }
    const missing: ErrorItem[] = [];
    if (email === '') missing.push({ href: 'email', text: 'Enter your email address' });
    if (password === '') missing.push({ href: 'password', text: 'Enter your password' });
    if (missing.length > 0) return showSignIn(reply, deps, { email, next, errors: missing }, 400);

    const outcome = await signIn(deps.ctx, { email, password, clientAddress: request.ip });
    if (outcome.kind === 'locked') {
      const minutes = Math.max(1, Math.ceil(outcome.retryAfterSeconds / 60));
      reply.header('retry-after', String(outcome.retryAfterSeconds));
      return showSignIn(reply, deps, { email, next, errors: [{ href: 'email', text: `Too many failed attempts. Wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.` }] }, 429);
    }
    if (outcome.kind === 'refused') {
      // One message whether the email exists or not: the page must not confirm accounts.
      return showSignIn(reply, deps, { email, next, errors: [{ href: 'email', text: 'The email address or password is not right' }] }, 401);
    }
    const cookie = cookieBase(deps.ctx.config.baseUrl);
    reply.clearCookie(LOGIN_CSRF_COOKIE, { ...cookie, sameSite: 'strict', path: LOGIN_PATH });
    reply.setCookie(DASHBOARD_COOKIE, outcome.token, { ...cookie, sameSite: 'strict', path: DASHBOARD_PREFIX, maxAge: SESSION_ABSOLUTE_MS / 1000 });
    return reply.redirect(next || DASHBOARD_PREFIX, 303);
  },
});
