import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chartLayout, chartSvg, escapeXml, niceStep } from '../../src/usage/chart.ts';

const days = (counts: number[]) =>
  counts.map((count, i) => ({ label: `05-${String(i + 1).padStart(2, '0')}`, count }));

describe('niceStep', () => {
  test.each([
    [0, 1],
    [3, 1],
    [10, 5],
    [20, 5],
    [100, 50],
    [500, 200],
    [1000, 500],
    [7, 2],
  ])('max %i → step %i', (max, step) => {
    expect(niceStep(max)).toBe(step);
  });
});

describe('chartLayout', () => {
  const input = { days: days([100, 250, 0, 500]), limit: 500, width: 720, height: 320 };
  const layout = chartLayout(input);

  test('the plot area leaves room for the axis labels', () => {
    expect(layout.plot).toEqual({ left: 52, top: 16, right: 660, bottom: 286 });
  });

  test('the axis runs to a round value at or above the limit and every count', () => {
    expect(layout.yMax).toBe(600);
    expect(layout.ticks.map((tick) => tick.value)).toEqual([0, 200, 400, 600]);
    expect(layout.ticks[0]?.y).toBe(286);
    expect(layout.ticks.at(-1)?.y).toBe(16);
  });

  test.each([
    [0, 100, 45],
    [1, 250, 112.5],
    [2, 0, 0],
    [3, 500, 225],
  ])('bar %i (count %i) is %f high and stands on the axis', (index, count, height) => {
    const bar = layout.bars[index];
    expect(bar?.count).toBe(count);
    expect(bar?.height).toBeCloseTo(height, 1);
    expect((bar?.y ?? 0) + (bar?.height ?? 0)).toBeCloseTo(286, 1);
  });

  test('bars share the width evenly, left to right, oldest first', () => {
    const xs = layout.bars.map((bar) => bar.x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(layout.bars[0]?.width).toBeCloseTo(((660 - 52) / 4) * 0.7, 1);
    expect(layout.bars.map((bar) => bar.label)).toEqual(['05-01', '05-02', '05-03', '05-04']);
  });

  test('the limit line sits where a bar of the limit would end', () => {
    expect(layout.limitY).toBeCloseTo(286 - (500 / 600) * 270, 1);
    expect(layout.limitY).toBe(layout.bars[3]?.y);
  });

  test('no limit, no line; an empty history still has an axis', () => {
    const empty = chartLayout({ days: [] });
    expect(empty.limitY).toBeUndefined();
    expect(empty.bars).toEqual([]);
    expect(empty.yMax).toBeGreaterThan(0);
  });

  test('property: every bar stays inside the plot, and higher counts make taller bars', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(10_000), { minLength: 1, maxLength: 31 }),
        fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }),
        (counts, limit) => {
          const { bars, plot, limitY, yMax } = chartLayout({ days: days(counts), limit });
          expect(yMax).toBeGreaterThanOrEqual(Math.max(...counts, limit ?? 0));
          for (const bar of bars) {
            expect(bar.y).toBeGreaterThanOrEqual(plot.top - 0.01);
            expect(bar.y + bar.height).toBeCloseTo(plot.bottom, 1);
            expect(bar.x).toBeGreaterThanOrEqual(plot.left);
            expect(bar.x + bar.width).toBeLessThanOrEqual(plot.right + 0.01);
          }
          for (const a of bars)
            for (const b of bars)
              if (a.count > b.count) expect(a.height).toBeGreaterThanOrEqual(b.height);
          if (limit !== undefined) {
            expect(limitY).toBeGreaterThanOrEqual(plot.top - 0.01);
            expect(limitY).toBeLessThanOrEqual(plot.bottom);
          }
        },
      ),
    );
  });
});

describe('chartSvg', () => {
  const svg = chartSvg({ days: days([100, 250, 0, 500]), limit: 500 });

  test('draws one bar per day with its count, today highlighted', () => {
    const bars = [...svg.matchAll(/<rect class="bar" data-count="(\d+)"[^>]*fill="([^"]+)"/g)];
    expect(bars.map((m) => Number(m[1]))).toEqual([100, 250, 0, 500]);
    expect(new Set(bars.slice(0, 3).map((m) => m[2])).size).toBe(1);
    expect(bars[3]?.[2]).not.toBe(bars[0]?.[2]);
  });

  test('draws the limit as a dashed line labelled with its value', () => {
    expect(svg).toMatch(
      /<line class="limit" x1="52" y1="61" x2="660" y2="61"[^>]*stroke-dasharray/,
    );
    expect(svg).toMatch(/<text class="limit-label"[^>]*>500<\/text>/);
    expect(chartSvg({ days: days([1]) })).not.toContain('class="limit"');
  });

  test('labels the axis and the days', () => {
    for (const value of ['0', '200', '400', '600'])
      expect(svg).toContain(`text-anchor="end" fill="#b5bac1">${value}</text>`);
    for (const label of ['05-01', '05-04']) expect(svg).toContain(`>${label}</text>`);
  });

  test('escapes text', () => {
    expect(escapeXml('<a & "b">')).toBe('&#60;a &#38; &#34;b&#34;&#62;');
    expect(chartSvg({ days: [{ label: '<x>', count: 1 }] })).toContain('>&#60;x&#62;</text>');
  });
});
