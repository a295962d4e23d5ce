import { describe, expect, it } from 'vitest';
import { timeText } from '../../src/web/dashboard/cases/format.ts';
import { when, whenPrecise } from '../../src/web/dashboard/developers/format.ts';
import { render as renderToString } from 'preact-render-to-string';

/** Timestamps on dashboard pages are read by people: a day, a month's name and a time, never an ISO value. */
describe('timestamps as people read them', () => {
  it('writes the day, the month and the time in UTC, to the minute or to the second', () => {
    expect(timeText('2026-11-29T14:16:05.123Z')).toBe('29 Nov 2026, 14:16 UTC');
    expect(timeText(new Date('2026-03-02T09:00:00Z'), 'second')).toBe('2 Mar 2026, 09:00:00 UTC');
    expect(timeText(null)).toBe('');
  });

  it('keeps the exact ISO value in the datetime attribute only', () => {
    const minute = renderToString(when('2026-11-29T00:05:00.000Z') as never);
    expect(minute).toBe('<time datetime="2026-11-29T00:05:00.000Z">29 Nov 2026, 00:05 UTC</time>');
    expect(renderToString(whenPrecise('2026-11-29T23:59:58.000Z') as never)).toContain('>29 Nov 2026, 23:59:58 UTC<');
    expect(when(null)).toBe('Never');
  });
});
