import type { FastifyInstance } from 'fastify';

/**
 * Every page: no inline script or style, nothing from another origin, no framing, no referrer
 * (links carry tokens on first visit), forms post only to us. `img-src blob:` lets the upload page
 * show the photo a person is about to send; `data:` covers SVG icons in the stylesheet.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'geolocation=(), microphone=(), payment=(), usb=()',
};

/** Adds the headers to every response of the plugin scope it is called in (pages, redirects, errors, assets). */
export function registerSecurityHeaders(scope: FastifyInstance): void {
  scope.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(SECURITY_HEADERS);
    return payload;
  });
}
