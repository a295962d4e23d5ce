import type { VNode } from 'preact';
import { html, type Markup } from '../render.ts';
import { backLink, errorSummary, type ErrorItem } from '../ui/components.ts';
import { htmlDocument, pageTitle, skipLink } from '../ui/document.ts';
import { hiddenInput } from '../ui/fields.ts';
import { CSRF_FIELD } from '../csrf.ts';
import type { Locale, Translate } from '../i18n/index.ts';
import type { AppRouteDeps } from './context.ts';
import type { LanguageLink } from './language.ts';

export interface AppPageProps {
  locale: Locale;
  t: Translate;
  title: string;
  /** Organisation name for the footer (absent on pages shown before the link is verified). */
  orgName?: string | undefined;
  testMode?: boolean;
  back?: string | undefined;
  errors?: readonly ErrorItem[];
  /** The header's language links (absent when the session fixes the locale). */
  languages?: readonly LanguageLink[] | undefined;
  children: Markup;
}

/** Each language in its own name and language; the current one is marked, not linked. */
function languageNav(label: string, links: readonly LanguageLink[]): VNode {
  return html`<nav class="app-header__languages" aria-label=${label}>
    <ul class="cluster">
      ${links.map((l) =>
        l.current
          ? html`<li><span lang=${l.locale} aria-current="true">${l.name}</span></li>`
          : html`<li><a href=${l.href} lang=${l.locale} hreflang=${l.locale}>${l.name}</a></li>`,
      )}
    </ul>
  </nav>`;
}

/** The applicant app's shell: a plain header, a narrow reading column, the footer saying where the answers go. */
export function appPage(deps: AppRouteDeps, p: AppPageProps): VNode {
  const { t } = p;
  const hasErrors = (p.errors?.length ?? 0) > 0;
  return htmlDocument({
    lang: p.locale,
    title: pageTitle(p.title, t('common.service_name'), hasErrors, t('common.error_prefix')),
    stylesheet: deps.assets.url(deps.prefix, 'app.css'),
    scripts: [deps.assets.url(deps.prefix, 'js/app.js')],
    bodyClass: 'app',
    children: html`
      ${skipLink(t('common.skip_to_content'))}
      <header class="app-header">
        <div class="app-header__inner"><span class="app-header__name">${t('common.service_name')}</span>${p.orgName ? html`<span class="app-header__org">${p.orgName}</span>` : null}${p.languages ? languageNav(t('common.language'), p.languages) : null}</div>
      </header>
      ${p.testMode ? html`<div class="app-banner" role="note"><div class="app-banner__inner">${t('common.test_banner')}</div></div>` : null}
      <div class="app-width">
        ${p.back ? backLink(p.back, t('common.back')) : null}
        <main class="app-main" id="main" tabindex="-1" data-error-title=${t('common.error_summary_title')}>
          ${errorSummary(t('common.error_summary_title'), p.errors ?? [])}
          ${p.children}
        </main>
      </div>
      ${p.orgName ? html`<footer class="app-footer"><div class="app-footer__inner"><p>${t('common.footer', { org: p.orgName })}</p></div></footer>` : null}
    `,
  });
}

export function csrfInput(csrf: string): VNode {
  return hiddenInput(CSRF_FIELD, csrf);
}
