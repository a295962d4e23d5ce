import type { VNode } from 'preact';
import { html, type Markup } from '../render.ts';

export interface ErrorItem {
  /** The id of the control the error belongs to: the summary links to it. */
  href: string;
  text: string;
}

/**
 * GOV.UK error summary: at the top of the form, titled, each entry a link to its field. It takes
 * focus on load (tabindex=-1 plus the `data-focus-on-load` hook of the client script) and is
 * announced as an alert.
 */
export function errorSummary(title: string, errors: readonly ErrorItem[]): VNode | null {
  if (errors.length === 0) return null;
  return html`<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1" data-focus-on-load="">
    <h2 class="error-summary__title" id="error-summary-title">${title}</h2>
    <ul class="error-summary__list">
      ${errors.map((e) => html`<li><a href=${`#${e.href}`}>${e.text}</a></li>`)}
    </ul>
  </div>`;
}

export interface ButtonProps {
  text: string;
  variant?: 'primary' | 'secondary' | 'warning' | 'link';
  size?: 'small';
  type?: 'submit' | 'button';
  name?: string;
  value?: string;
  /** Extra attributes for client behaviour (`data-confirm`, `data-prevent-double-submit`). */
  data?: Record<string, string>;
  describedBy?: string;
}

export function button(p: ButtonProps): VNode {
  const cls = ['button', p.variant && p.variant !== 'primary' ? `button--${p.variant}` : '', p.size ? `button--${p.size}` : ''].filter(Boolean).join(' ');
  const data = Object.fromEntries(Object.entries(p.data ?? {}).map(([k, v]) => [`data-${k}`, v]));
  return html`<button class=${cls} type=${p.type ?? 'submit'} name=${p.name} value=${p.value} aria-describedby=${p.describedBy} ...${data}>${p.text}</button>`;
}

export function buttonLink(p: { href: string; text: string; variant?: 'primary' | 'secondary' }): VNode {
  return html`<a class=${p.variant === 'secondary' ? 'button button--secondary' : 'button'} href=${p.href} role="button" draggable="false">${p.text}</a>`;
}

export function backLink(href: string, text: string): VNode {
  return html`<a class="back-link" href=${href}>${text}</a>`;
}

export type Tone = 'success' | 'danger' | 'warning' | 'info' | 'neutral';

/** A status as a word in a coloured box: the colour only repeats the word. */
export function tag(text: string, tone: Tone = 'neutral'): VNode {
  return html`<strong class=${`tag tag--${tone}`}>${text}</strong>`;
}

export function notification(p: { tone?: Exclude<Tone, 'neutral'>; title?: string; role?: 'status' | 'alert'; children: Markup }): VNode {
  return html`<div class=${`notification notification--${p.tone ?? 'info'}`} role=${p.role}>
    ${p.title ? html`<p class="notification__title">${p.title}</p>` : null}
    ${p.children}
  </div>`;
}

export interface SummaryRow {
  key: string;
  value: Markup;
  /** A change link: its hidden text says what it changes ("Change <key>"). */
  action?: { href: string; text: string; hiddenText: string };
}

export function summaryList(rows: readonly SummaryRow[]): VNode {
  return html`<dl class="summary-list">
    ${rows.map(
      (r) => html`<div class="summary-list__row">
        <dt class="summary-list__key">${r.key}</dt>
        <dd class="summary-list__value">${r.value}</dd>
        ${r.action ? html`<dd class="summary-list__actions"><a href=${r.action.href}>${r.action.text}<span class="visually-hidden"> ${r.action.hiddenText}</span></a></dd>` : html`<dd class="summary-list__actions"></dd>`}
      </div>`,
    )}
  </dl>`;
}

export interface Column<Row> {
  header: string;
  cell: (row: Row) => Markup;
  numeric?: boolean;
  /** The row's header cell (scope="row"), for screen readers reading across. */
  rowHeader?: boolean;
}

/**
 * `scrollRegion`: a wide table that may scroll sideways on a phone is a focusable region named by
 * its caption, so keyboard users can scroll it (axe: scrollable-region-focusable).
 * `stack`: on a phone the table becomes one card per row instead of scrolling sideways; each value
 * is preceded by its column's name (`data-label`, drawn by the stylesheet).
 */
export function table<Row>(p: { caption?: string; captionHidden?: boolean; columns: readonly Column<Row>[]; rows: readonly Row[]; empty?: string; scrollRegion?: boolean; stack?: boolean }): VNode {
  const region = p.scrollRegion ? { role: 'region', tabindex: '0', 'aria-label': p.caption } : {};
  const label = (c: Column<Row>) => (p.stack ? c.header : undefined);
  return html`<div class=${p.stack ? 'table-wrap table-wrap--stack' : 'table-wrap'} ...${region}>
    <table class="table">
      ${p.caption ? html`<caption class=${p.captionHidden ? 'visually-hidden' : undefined}>${p.caption}</caption>` : null}
      <thead><tr>${p.columns.map((c) => html`<th scope="col" class=${c.numeric ? 'num' : undefined}>${c.header}</th>`)}</tr></thead>
      <tbody>
        ${p.rows.length === 0 && p.empty ? html`<tr><td colspan=${p.columns.length}>${p.empty}</td></tr>` : null}
        ${p.rows.map(
          (row) => html`<tr>${p.columns.map((c) =>
            c.rowHeader
              ? html`<th scope="row" class=${c.numeric ? 'num' : undefined} data-label=${label(c)}>${c.cell(row)}</th>`
              : html`<td class=${c.numeric ? 'num' : undefined} data-label=${label(c)}>${c.cell(row)}</td>`,
          )}</tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

export function details(summary: string, body: Markup, open = false): VNode {
  return html`<details class="details" open=${open}><summary>${summary}</summary><div class="details__body">${body}</div></details>`;
}

/**
 * A bar with its numbers in text: the numbers are the information, the bar only shows it. Drawn
 * as SVG geometry because the CSP allows no inline styles.
 */
export function meter(p: { label: string; value: number; max: number; text: string }): VNode {
  const pct = p.max > 0 ? Math.min(100, Math.max(0, (p.value / p.max) * 100)) : 0;
  return html`<div class="meter">
    <span>${p.label}: <strong>${p.text}</strong></span>
    <svg class="meter__bar" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect class="meter__track" x="0" y="0" width="100" height="6" />
      <rect class=${pct >= 90 ? 'meter__fill meter__fill--high' : 'meter__fill'} x="0" y="0" width=${pct.toFixed(2)} height="6" />
    </svg>
  </div>`;
}
