import { describe, expect, test } from 'vitest';
import { chartLayout, chartSvg } from '../../src/usage/chart.ts';
import { rasterize } from '../../src/usage/png.ts';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const input = {
  days: [120, 340, 80, 500, 220, 0, 150].map((count, i) => ({ label: `05-0${i + 1}`, count })),
  limit: 500,
};

function pixel(raster: ReturnType<typeof rasterize>, x: number, y: number): number[] {
  const at = (Math.round(y) * raster.width + Math.round(x)) * 4;
  return [...raster.rgba.subarray(at, at + 4)];
}

describe('rasterize', () => {
  const raster = rasterize(chartSvg(input));
  const layout = chartLayout(input);

  test('gives a PNG of the chart’s size', () => {
    expect(raster.png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(raster.png.subarray(12, 16).toString('ascii')).toBe('IHDR');
    expect(raster.png.readUInt32BE(16)).toBe(720);
    expect(raster.png.readUInt32BE(20)).toBe(320);
    expect([raster.width, raster.height]).toEqual([720, 320]);
    expect(raster.png.length).toBeGreaterThan(2000);
    expect(raster.png.length).toBeLessThan(200_000);
  });

  test('the limit line, the bars and today’s bar are painted where the layout puts them', () => {
    const red = pixel(raster, layout.plot.left + 3, layout.limitY ?? 0);
    expect(red[0]).toBeGreaterThan(200);
    expect(red[1]).toBeLessThan(120);
    const first = layout.bars[0];
    const blue = pixel(raster, (first?.x ?? 0) + 5, (first?.y ?? 0) + 5);
    expect(blue).toEqual([0x58, 0x65, 0xf2, 255]);
    const today = layout.bars.at(-1);
    expect(pixel(raster, (today?.x ?? 0) + 5, (today?.y ?? 0) + 5)).toEqual([
      0x57, 0xf2, 0x87, 255,
    ]);
  });

  test('text is drawn with the bundled font (the axis labels put ink on the image)', () => {
    const tick = layout.ticks.at(-1);
    let ink = 0;
    for (let x = layout.plot.left - 40; x < layout.plot.left - 6; x++)
      for (let y = (tick?.y ?? 0) - 6; y < (tick?.y ?? 0) + 6; y++)
        if ((pixel(raster, x, y)[0] ?? 0) > 120) ink++;
    expect(ink).toBeGreaterThan(10);
  });

  test('the same figures give the same bytes', () => {
    expect(rasterize(chartSvg(input)).png.equals(raster.png)).toBe(true);
  });
});
