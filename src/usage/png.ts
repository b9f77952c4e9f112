import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';

const require = createRequire(import.meta.url);

/** The bundled font, so the chart renders the same on every machine (also the slim image without fonts). */
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');

/** A rendered image: the PNG file, and its RGBA pixels for whoever needs to look at them. */
export interface Raster {
  readonly png: Buffer;
  readonly width: number;
  readonly height: number;
  /** Row-major RGBA, 4 bytes per pixel. */
  readonly rgba: Buffer;
}

/** Rasterises an SVG in-process with resvg, using only the bundled DejaVu Sans. */
export function rasterize(svg: string): Raster {
  const resvg = new Resvg(svg, {
    font: { fontFiles: [FONT], loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans' },
  });
  const image = resvg.render();
  return { png: image.asPng(), width: image.width, height: image.height, rgba: image.pixels };
}
