import type { VNode } from 'preact';
import { html } from '../../render.ts';

/** A timestamp as people read it (UTC, to the minute), with the exact ISO value for machines. */
export function when(iso: string | null | undefined, empty = 'Never'): VNode | string {
  if (!iso) return empty;
  const d = new Date(iso);
  const text = `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
  return html`<time datetime=${iso}>${text}</time>`;
}

/** A timestamp to the second, for delivery attempts where seconds matter. */
export function whenPrecise(iso: string | null | undefined, empty = '—'): VNode | string {
  if (!iso) return empty;
  return html`<time datetime=${iso}>${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC</time>`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
