export {
  type BarBox,
  type ChartDay,
  type ChartInput,
  type ChartLayout,
  chartLayout,
  chartSvg,
} from './chart.ts';
export { type Raster, rasterize } from './png.ts';
