import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../../domain/deps.ts';
import { signIn } from '../../../domain/operators/sign-in.ts';
import type { AssetRegistry } from '../../assets.ts';
import { CSRF_FIELD, randomCsrfNonce } from '../../csrf.ts';
import { cookieBase, formField, safeLocalPath } from '../../face.ts';
import { html, sendPage } from '../../render.ts';
import { button, errorSummary, notification, type ErrorItem } from '../../ui/components.ts';
import { hiddenInput, textInput } from '../../ui/fields.ts';
import { barePage } from '../layout.ts';
import { DASHBOARD_COOKIE, DASHBOARD_PREFIX } from '../context.ts';
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

function signInPage(v: SignInView) {
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

/** GET and POST /dashboard/login. */
export function registerSignIn(scope: FastifyInstance, ctx: AppContext, assets: AssetRegistry): void {
  const stylesheet = assets.url(DASHBOARD_PREFIX, 'dashboard.css');
  const scripts = [assets.url(DASHBOARD_PREFIX, 'js/dashboard.js')];
  const cookie = cookieBase(ctx.config.baseUrl);
  const show = (reply: import('fastify').FastifyReply, view: Omit<SignInView, 'nonce' | 'stylesheet' | 'scripts'>, status = 200) => {
    const nonce = randomCsrfNonce();
    reply.setCookie(LOGIN_CSRF_COOKIE, nonce, { ...cookie, sameSite: 'strict', path: LOGIN_PATH });
    return sendPage(reply, signInPage({ ...view, nonce, stylesheet, scripts }), status);
  };

  scope.get('/login', { config: { auth: 'public' } }, async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const next = safeLocalPath(query.next ?? '', DASHBOARD_PREFIX) ?? '';
    return show(reply, { email: '', next, errors: [], ...(query.reason && NOTICES[query.reason] ? { notice: NOTICES[query.reason] } : {}) });
  });

  scope.post('/login', { config: { auth: 'public' } }, async (request, reply) => {
    const email = formField(request.body, 'email').trim();
    const password = formField(request.body, 'password');
    const next = safeLocalPath(formField(request.body, 'next'), DASHBOARD_PREFIX) ?? '';
    if (!nonceMatches(request.cookies[LOGIN_CSRF_COOKIE], formField(request.body, CSRF_FIELD))) {
      return show(reply, { email, next, errors: [{ href: 'email', text: 'The sign-in page had expired. Enter your email and password again.' }] }, 400);
    }
    const missing: ErrorItem[] = [];
    if (email === '') missing.push({ href: 'email', text: 'Enter your email address' });
    if (password === '') missing.push({ href: 'password', text: 'Enter your password' });
    if (missing.length > 0) return show(reply, { email, next, errors: missing }, 400);

    const outcome = await signIn(ctx, { email, password, clientAddress: request.ip });
    if (outcome.kind === 'locked') {
      const minutes = Math.max(1, Math.ceil(outcome.retryAfterSeconds / 60));
      reply.header('retry-after', String(outcome.retryAfterSeconds));
      return show(reply, { email, next, errors: [{ href: 'email', text: `Too many failed attempts. Wait ${minutes} minute${minutes === 1 ? '' : 's'} and try again.` }] }, 429);
    }
    if (outcome.kind === 'refused') {
      // One message whether the email exists or not: the page must not confirm accounts.
      return show(reply, { email, next, errors: [{ href: 'email', text: 'The email address or password is not right' }] }, 401);
    }
    reply.clearCookie(LOGIN_CSRF_COOKIE, { ...cookie, sameSite: 'strict', path: LOGIN_PATH });
    reply.setCookie(DASHBOARD_COOKIE, outcome.token, { ...cookie, sameSite: 'strict', path: DASHBOARD_PREFIX, maxAge: SESSION_ABSOLUTE_MS / 1000 });
    return reply.redirect(next || DASHBOARD_PREFIX, 303);
  });
}
