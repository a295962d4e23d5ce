import type { VNode } from 'preact';
import { html, type Markup } from '../render.ts';
import { errorSummary, type ErrorItem } from '../ui/components.ts';
import { htmlDocument, pageTitle, skipLink } from '../ui/document.ts';
import { hiddenInput } from '../ui/fields.ts';
import { CSRF_FIELD } from '../csrf.ts';
import type { DashboardViewer } from './context.ts';

export type NavKey = 'overview' | 'cases' | 'keys' | 'webhooks' | 'notifications' | 'case-types' | 'account';

interface NavItem {
  key: NavKey;
  href: string;
  text: string;
}

const WORK: readonly NavItem[] = [
  { key: 'overview', href: '/dashboard', text: 'Overview' },
  { key: 'cases', href: '/dashboard/cases', text: 'Cases' },
];
const DEVELOPERS: readonly NavItem[] = [
  { key: 'keys', href: '/dashboard/developers/keys', text: 'API keys' },
  { key: 'webhooks', href: '/dashboard/developers/webhooks', text: 'Webhooks' },
  { key: 'notifications', href: '/dashboard/developers/notifications', text: 'Notifications' },
  { key: 'case-types', href: '/dashboard/developers/case-types', text: 'Case types' },
  { key: 'account', href: '/dashboard/developers/account', text: 'Usage and account' },
];

export interface DashboardPageProps {
  viewer: DashboardViewer;
  title: string;
  nav: NavKey;
  errors?: readonly ErrorItem[];
  /** Counts shown beside navigation items, over the viewer's own (unread notifications). */
  navCounts?: Partial<Record<NavKey, number>>;
  children: Markup;
}

/** A CSRF field for a dashboard form. */
export function csrfField(viewer: DashboardViewer): VNode {
  return hiddenInput(CSRF_FIELD, viewer.csrf);
}

function navLink(item: NavItem, active: NavKey, counts: Partial<Record<NavKey, number>>): VNode {
  const count = counts[item.key];
  return html`<li>
    <a class="sidenav__link" href=${item.href} aria-current=${item.key === active ? 'page' : undefined}>
      <span>${item.text}</span>
      ${count ? html`<span class="sidenav__count">${count}<span class="visually-hidden"> unread</span></span>` : null}
    </a>
  </li>`;
}

/**
 * The dashboard shell: test-mode banner, top bar with the test/live switch and sign-out, side
 * navigation (developer settings only for admins: the server refuses them to reviewers anyway),
 * and the page. Every view is rendered through it.
 */
export function dashboardPage(p: DashboardPageProps): VNode {
  const v = p.viewer;
  const counts: Partial<Record<NavKey, number>> = { ...(v.unreadNotifications ? { notifications: v.unreadNotifications } : {}), ...p.navCounts };
  const hasErrors = (p.errors?.length ?? 0) > 0;
  return htmlDocument({
    lang: 'en',
    title: pageTitle(p.title, `${v.orgName} – Dossier`, hasErrors),
    stylesheet: v.stylesheet,
    scripts: v.scripts,
    bodyClass: 'dashboard',
    children: html`
      ${skipLink('Skip to main content')}
      ${v.environment === 'test' ? html`<div class="test-banner" role="note">Test mode: you are viewing test data. Live data is kept apart.</div>` : null}
      <header class="topbar">
        <div class="topbar__inner">
          <a class="topbar__brand" href="/dashboard">Dossier</a>
          <span class="topbar__org">${v.orgName}</span>
          <span class="topbar__spacer"></span>
          ${v.acceptedEnvironments.length > 1
            ? html`<form method="post" action="/dashboard/environment" class="env-switch-form">
                ${csrfField(v)}${hiddenInput('return_to', v.path)}
                <span class="visually-hidden" id="env-label">Environment</span>
                <div class="env-switch" role="group" aria-labelledby="env-label">
                  ${v.acceptedEnvironments.map(
                    (env) => html`<button type="submit" name="environment" value=${env} aria-pressed=${String(v.environment === env)}>${env === 'test' ? 'Test' : 'Live'}</button>`,
                  )}
                </div>
              </form>`
            : null}
          <span class="topbar__user">${v.email} (${v.role})</span>
          <form method="post" action="/dashboard/logout">
            ${csrfField(v)}
            <button class="button button--secondary button--small" type="submit">Sign out</button>
          </form>
        </div>
      </header>
      <div class="shell">
        <nav class="sidenav" aria-label="Dashboard">
          <ul class="sidenav__list">${WORK.map((i) => navLink(i, p.nav, counts))}</ul>
          ${v.role === 'admin'
            ? html`<h2 class="sidenav__heading" id="nav-developers">Developers</h2>
                <ul class="sidenav__list" aria-labelledby="nav-developers">
                  ${DEVELOPERS.map((i) => navLink(i, p.nav, counts))}
                  <li><a class="sidenav__link" href="/docs">API reference</a></li>
                </ul>`
            : null}
        </nav>
        <main class="content" id="main" tabindex="-1">
          ${errorSummary('There is a problem', p.errors ?? [])}
          ${p.children}
        </main>
      </div>
    `,
  });
}

/** A page outside the shell (sign-in, errors before sign-in). */
export function barePage(p: { title: string; stylesheet: string; scripts?: readonly string[]; hasErrors?: boolean; children: Markup }): VNode {
  return htmlDocument({
    lang: 'en',
    title: pageTitle(p.title, 'Dossier', p.hasErrors),
    stylesheet: p.stylesheet,
    scripts: p.scripts ?? [],
    bodyClass: 'dashboard',
    children: html`${skipLink('Skip to main content')}<main class="sign-in" id="main" tabindex="-1">${p.children}</main>`,
  });
}
