import type { VNode } from 'preact';
import { html } from '../render.ts';

export interface DocumentProps {
  lang: string;
  /** The page title; on a page showing errors, `errorTitle` prefixes "Error: " as GOV.UK does. */
  title: string;
  stylesheet: string;
  /** ES modules loaded with `type="module"`: deferred, and never needed for the page to work. */
  scripts?: readonly string[];
  bodyClass?: string;
  children: VNode | (VNode | null | false)[] | null;
}

/** The HTML shell every page of both faces shares. */
export function htmlDocument(props: DocumentProps): VNode {
  return html`<html lang=${props.lang}>
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="no-referrer" />
      <meta name="robots" content="noindex, nofollow" />
      <title>${props.title}</title>
      <link rel="stylesheet" href=${props.stylesheet} />
      ${(props.scripts ?? []).map((src) => html`<script type="module" src=${src}></script>`)}
    </head>
    <body class=${props.bodyClass}>
      ${props.children}
    </body>
  </html>`;
}

/** "Error: " before a title when the page shows errors, so screen readers hear it first; in the page's language. */
export function pageTitle(title: string, suffix: string, hasErrors = false, errorPrefix = 'Error:'): string {
  return `${hasErrors ? `${errorPrefix} ` : ''}${title} – ${suffix}`;
}

export function skipLink(text: string, target = '#main'): VNode {
  return html`<a class="skip-link" href=${target}>${text}</a>`;
}
