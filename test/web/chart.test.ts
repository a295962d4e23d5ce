import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../src/web/render.ts';
import { barChart } from '../../src/web/ui/chart.ts';

const labels = ['1 Nov', '2 Nov', '3 Nov'];
const axisValues = (markup: string): string[] => [...markup.matchAll(/text-anchor="end">([^<]*)</g)].map((m) => m[1] ?? '');

describe('bar chart', () => {
  it('draws no half lines on a scale of whole counts', () => {
    const one = renderDocument(barChart({ id: 'c', title: 'T', description: 'D', labels, series: [{ name: 'A', values: [0, 1, 0] }] }));
    expect(axisValues(one)).toEqual(['0', '1']);
    const two = renderDocument(barChart({ id: 'c', title: 'T', description: 'D', labels, series: [{ name: 'A', values: [2, 1, 0] }] }));
    expect(axisValues(two)).toEqual(['0', '1', '2']);
  });

  it('colours a series by what it means when told, by position otherwise', () => {
    const markup = renderDocument(
      barChart({
        id: 'd',
        title: 'T',
        description: 'D',
        labels,
        series: [
          { name: 'Delivered', values: [1, 1, 1], tone: 'success' },
          { name: 'Failed', values: [1, 0, 1], tone: 'danger' },
          { name: 'Other', values: [0, 0, 0] },
        ],
      }),
    );
    expect(markup.match(/class="series-2"/g)).toHaveLength(3);
    expect(markup.match(/class="series-3"/g)).toHaveLength(6); // Failed (danger) and the third series by position
    expect(markup).toContain('legend__swatch--2"></span>Delivered');
    expect(markup).toContain('legend__swatch--3"></span>Failed');
  });
});
