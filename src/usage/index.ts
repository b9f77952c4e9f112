export {
  type BarBox,
  type ChartDay,
  type ChartInput,
  type ChartLayout,
  chartLayout,
  chartSvg,
} from './chart.ts';
export { dayKey, lastDays, nextDayStart, shortDay } from './days.ts';
export { KeyvUsageLedger, type UsageDay, type UsageLedger } from './ledger.ts';
export { type Raster, rasterize } from './png.ts';
export {
  chartAltText,
  chartInput,
  dailyUsage,
  lowQuotaLine,
  type MemberUsage,
  quotaLow,
  type ServerUsage,
  type TopMember,
  topMembers,
  type UsageFigures,
  usageLines,
} from './report.ts';
