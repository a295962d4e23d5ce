import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { html } from '../render.ts';
import { sendPage } from '../render.ts';
import type { AssetRegistry } from '../assets.ts';
import { barePage, dashboardPage } from './layout.ts';
import { DASHBOARD_PREFIX, viewerOf } from './context.ts';
import type { Environment } from '../../config.ts';

interface ErrorPageDeps {
  secret: string;
  assets: AssetRegistry;
  acceptedEnvironments: readonly Environment[];
}

const TITLES: Record<number, { title: string; body: string }> = {
  400: { title: 'That did not work', body: 'The request could not be understood. Go back and try again.' },
  403: { title: 'You do not have access to this page', body: 'Your role does not allow this. Ask an admin of the workspace if you need it.' },
  404: { title: 'Page not found', body: 'If you typed the address, check it is correct. The item may also belong to the other environment (test or live).' },
  413: { title: 'That was too large', body: 'What you sent is over the size limit. Send something smaller.' },
  429: { title: 'Too many requests', body: 'Wait a minute and try again.' },
  500: { title: 'Sorry, something went wrong', body: 'Try again. If it keeps happening, quote the request id below to your administrator.' },
};

/** A dashboard error page: inside the shell when someone is signed in, bare otherwise. */
export function sendDashboardError(request: FastifyRequest, reply: FastifyReply, deps: ErrorPageDeps, status: number, message?: string): FastifyReply {
  const known = TITLES[status] ?? TITLES[status >= 500 ? 500 : 400]!;
  const body = html`<h1>${known.title}</h1>
    <p>${message ?? known.body}</p>
    ${status >= 500 ? html`<p class="muted small">Request id: <code>${String(request.id)}</code></p>` : null}
    <p><a href="/dashboard">Go to the overview</a></p>`;
  const page = request.operatorSession
    ? dashboardPage({ viewer: viewerOf(request, deps), title: known.title, nav: 'overview', children: body })
    : barePage({ title: known.title, stylesheet: deps.assets.url(DASHBOARD_PREFIX, 'dashboard.css'), children: html`<div class="card">${body}</div>` });
  return sendPage(reply, page, status);
}

/**
 * Errors in dashboard handlers become pages, never JSON: a catalog error shows its status and
 * message (they are written for people), anything else a generic 500 whose detail is logged.
 */
export function dashboardErrorHandler(deps: ErrorPageDeps) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) return sendDashboardError(request, reply, deps, error.status, error.message);
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'dashboard page failed');
    return sendDashboardError(request, reply, deps, status);
  };
}
