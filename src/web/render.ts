import type { FastifyReply } from 'fastify';
import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { render } from 'preact-render-to-string';

/**
 * Templates are htm tagged templates over Preact's `h`, rendered to a string on the server: every
 * interpolated value is escaped by the renderer, nothing is concatenated by hand, and no build step
 * is needed (Node runs the .ts files as they are).
 */
export { html };

export type Markup = VNode | VNode[] | string | null;

export function renderDocument(page: Markup): string {
  return `<!doctype html>${render(page as VNode)}`;
}

/** Sends a whole page. Pages may carry personal data, so no cache keeps them. */
export function sendPage(reply: FastifyReply, page: Markup, status = 200): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(renderDocument(page));
}
