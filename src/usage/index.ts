export {
  type BarBox,
  type ChartDay,
  type ChartInput,
  type ChartLayout,
  chartLayout,
  chartSvg,
} from './chart.ts';
export { gatherUsage, type UsageAsker, type UsageSources, usageChart } from './gather.ts';
export { dollarsToMicros, formatMoney } from './money.ts';
export { type Raster, rasterize } from './png.ts';
export {
  chartAltText,
  chartInput,
  dailyUsage,
  lowQuotaLine,
  type MemberUsage,
  type MoneyFigures,
  moneyFigures,
  quotaLow,
  type ServerUsage,
  serverUsage,
  shortDay,
  type TopMember,
  topMembers,
  type UsageFigures,
  usageLines,
} from './report.ts';
