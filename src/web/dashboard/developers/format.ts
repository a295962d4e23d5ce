import type { VNode } from 'preact';
import { html } from '../../render.ts';
import { timeText } from '../cases/format.ts';

/** A timestamp as people read it (UTC, to the minute), with the exact ISO value for machines. */
export function when(iso: string | null | undefined, empty = 'Never'): VNode | string {
  if (!iso) return empty;
  return html`<time datetime=${iso}>${timeText(iso)}</time>`;
}

/** A timestamp to the second, for delivery attempts where seconds matter. */
export function whenPrecise(iso: string | null | undefined, empty = '—'): VNode | string {
  if (!iso) return empty;
  return html`<time datetime=${iso}>${timeText(iso, 'second')}</time>`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
