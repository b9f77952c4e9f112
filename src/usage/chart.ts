/**
 * The `/usage` bar chart as SVG: one bar per day, the daily limit as a dashed line, a
 * numeric y axis and day labels. Pure: the same figures give the same bytes. Text in the
 * image is only digits and dates, so one bundled font serves every language; words go
 * in the embed and the alt text.
 */

/** One day of the chart, oldest first; `label` is short (`05-14`). */
export interface ChartDay {
  readonly label: string;
  readonly count: number;
  /** What the day cost (v3), as printed above its bar (`$0.42`); absent: nothing printed. */
  readonly money?: string;
}

/** What the chart shows. */
export interface ChartInput {
  readonly days: readonly ChartDay[];
  /** The key's generations per day; drawn as a line when known. */
  readonly limit?: number | undefined;
  readonly width?: number;
  readonly height?: number;
}

/** A bar's rectangle in SVG units (y grows downwards). */
export interface BarBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly count: number;
  readonly label: string;
}

/** Where everything goes: what the SVG draws and what the tests measure. */
export interface ChartLayout {
  readonly width: number;
  readonly height: number;
  readonly plot: {
    readonly left: number;
    readonly top: number;
    readonly right: number;
    readonly bottom: number;
  };
  /** The value at the top of the y axis. */
  readonly yMax: number;
  readonly ticks: readonly { readonly value: number; readonly y: number }[];
  readonly bars: readonly BarBox[];
  /** The limit line's y, when a limit is given. */
  readonly limitY?: number;
}

const MARGIN = { left: 52, top: 16, right: 60, bottom: 34 } as const;

const round = (n: number): number => Math.round(n * 100) / 100;

/** A step of 1, 2 or 5 × 10ⁿ giving about `count` intervals up to `max`. */
export function niceStep(max: number, count = 4): number {
  const raw = Math.max(max, 1) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  return Math.max(1, step);
}

/** The geometry of the chart: axis scale, bars and the limit line. */
export function chartLayout(input: ChartInput): ChartLayout {
  const width = input.width ?? 720;
  const height = input.height ?? 320;
  const plot = {
    left: MARGIN.left,
    top: MARGIN.top,
    right: width - MARGIN.right,
    bottom: height - MARGIN.bottom,
  };
  const highest = Math.max(1, input.limit ?? 0, ...input.days.map((day) => day.count));
  const step = niceStep(highest);
  const yMax = Math.ceil(highest / step) * step;
  const plotHeight = plot.bottom - plot.top;
  const yOf = (value: number) => round(plot.bottom - (value / yMax) * plotHeight);
  const ticks = [];
  for (let value = 0; value <= yMax; value += step) ticks.push({ value, y: yOf(value) });
  const slot = (plot.right - plot.left) / Math.max(1, input.days.length);
  const barWidth = round(slot * 0.7);
  const bars = input.days.map((day, index) => {
    const y = yOf(Math.max(0, day.count));
    return {
      x: round(plot.left + index * slot + (slot - barWidth) / 2),
      y,
      width: barWidth,
      height: round(plot.bottom - y),
      count: day.count,
      label: day.label,
    };
  });
  return {
    width,
    height,
    plot,
    yMax,
    ticks,
    bars,
    ...(input.limit === undefined ? {} : { limitY: yOf(input.limit) }),
  };
}

/** Escapes text for SVG content and attributes. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const COLORS = {
  background: '#2b2d31',
  grid: '#3f4147',
  axis: '#b5bac1',
  bar: '#5865f2',
  today: '#57f287',
  limit: '#ed4245',
} as const;

/** The SVG document of the chart; the last day (today) is highlighted. */
export function chartSvg(input: ChartInput): string {
  const layout = chartLayout(input);
  const { plot } = layout;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}" font-family="DejaVu Sans" font-size="12">`,
    `<rect width="100%" height="100%" fill="${COLORS.background}"/>`,
  ];
  for (const tick of layout.ticks) {
    parts.push(
      `<line class="grid" x1="${plot.left}" y1="${tick.y}" x2="${plot.right}" y2="${tick.y}" stroke="${COLORS.grid}"/>`,
      `<text class="tick" x="${plot.left - 8}" y="${round(tick.y + 4)}" text-anchor="end" fill="${COLORS.axis}">${tick.value}</text>`,
    );
  }
  const labelEvery = Math.ceil(layout.bars.length / 14);
  layout.bars.forEach((bar, index) => {
    const today = index === layout.bars.length - 1;
    parts.push(
      `<rect class="bar" data-count="${bar.count}" x="${bar.x}" y="${bar.y}" width="${bar.width}" height="${bar.height}" rx="2" fill="${today ? COLORS.today : COLORS.bar}"/>`,
    );
    const money = input.days[index]?.money;
    if (money !== undefined && (index % labelEvery === 0 || today)) {
      parts.push(
        `<text class="money" x="${round(bar.x + bar.width / 2)}" y="${round(bar.y - 4)}" text-anchor="middle" fill="${COLORS.axis}" font-size="9">${escapeXml(money)}</text>`,
      );
    }
    if (index % labelEvery === 0 || today) {
      const middle = round(bar.x + bar.width / 2);
      parts.push(
        `<text class="day" x="${middle}" y="${plot.bottom + 18}" text-anchor="middle" fill="${COLORS.axis}" font-size="11">${escapeXml(bar.label)}</text>`,
      );
    }
  });
  parts.push(
    `<line class="axis" x1="${plot.left}" y1="${plot.bottom}" x2="${plot.right}" y2="${plot.bottom}" stroke="${COLORS.axis}"/>`,
  );
  if (layout.limitY !== undefined && input.limit !== undefined) {
    parts.push(
      `<line class="limit" x1="${plot.left}" y1="${layout.limitY}" x2="${plot.right}" y2="${layout.limitY}" stroke="${COLORS.limit}" stroke-width="2" stroke-dasharray="6 4"/>`,
      `<text class="limit-label" x="${plot.right + 6}" y="${round(layout.limitY + 4)}" fill="${COLORS.limit}">${input.limit}</text>`,
    );
  }
  parts.push('</svg>');
  return parts.join('\n');
}
