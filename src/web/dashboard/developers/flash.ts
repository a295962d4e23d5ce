import type { FastifyReply, FastifyRequest } from 'fastify';
import { open, seal } from '../../../domain/crypto/secret-box.ts';
import { cookieBase } from '../../face.ts';
import { DASHBOARD_PREFIX, operatorSessionOf } from '../context.ts';

/**
 * One-time secrets (a new API key, a signing secret) and action outcomes survive the
 * post/redirect/get hop in a sealed, HttpOnly cookie bound to the operator's session, read once
 * by the next GET and cleared. The secret is never stored in the database in clear and never put
 * in a URL; a reload after it was shown shows nothing, which is what "shown once" means.
 */
const FLASH_COOKIE = 'dossier_flash';
const FLASH_PURPOSE = 'dashboard-flash';
/** Long enough for the redirect, short enough that a forgotten tab does not keep a secret around. */
const FLASH_MAX_AGE_S = 120;

export type Flash =
  | { kind: 'key_created'; key_id: string; key: string }
  | { kind: 'endpoint_secret'; endpoint_id: string; signing_secret: string; rotated: boolean }
  | { kind: 'test_sent'; endpoint_id: string; success: boolean; status_code: number | null; duration_ms: number; error?: string }
  | { kind: 'notice'; text: string }
  /** An invitation just made: its one-time link, shown to the admin when it was not mailed. */
  | { kind: 'invitation'; email: string; link: string; delivery: 'mailed' | 'no_mailer' | 'mail_failed'; expires_at: string };

interface Sealed {
  session_id: string;
  flash: Flash;
}

function cookieOptions(baseUrl: string) {
  return { ...cookieBase(baseUrl), sameSite: 'strict' as const, path: DASHBOARD_PREFIX };
}

/** What sealing and opening a flash needs, from a page's deps. */
export function flashDeps(deps: { secret: string; ctx: { config: { baseUrl: string } } }): { secret: string; baseUrl: string } {
  return { secret: deps.secret, baseUrl: deps.ctx.config.baseUrl };
}

export function setFlash(reply: FastifyReply, request: FastifyRequest, deps: { secret: string; baseUrl: string }, flash: Flash): void {
  const sealed: Sealed = { session_id: operatorSessionOf(request).session.session_id, flash };
  reply.setCookie(FLASH_COOKIE, seal(deps.secret, { purpose: FLASH_PURPOSE, owner: sealed.session_id }, JSON.stringify(sealed)), { ...cookieOptions(deps.baseUrl), maxAge: FLASH_MAX_AGE_S });
}

/** The flash for this session, cleared as it is read; anything else (another session's, tampered) is dropped. */
export function takeFlash(reply: FastifyReply, request: FastifyRequest, deps: { secret: string; baseUrl: string }): Flash | undefined {
  const raw = request.cookies[FLASH_COOKIE];
  if (!raw) return undefined;
  reply.clearCookie(FLASH_COOKIE, cookieOptions(deps.baseUrl));
  const text = open(deps.secret, { purpose: FLASH_PURPOSE, owner: operatorSessionOf(request).session.session_id }, raw);
  if (text === undefined) return undefined;
  try {
    const sealed = JSON.parse(text) as Sealed;
    return sealed.session_id === operatorSessionOf(request).session.session_id ? sealed.flash : undefined;
  } catch {
    return undefined;
  }
}
