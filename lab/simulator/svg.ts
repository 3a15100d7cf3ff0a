// Hand-written SVG line charts: a frame, nice ticks, one polyline per series and a legend. Enough
// for CDFs and step functions over time, and readable in any browser without a chart library.

export interface Series {
  readonly name: string;
  /** Points in data units, drawn in order. */
  readonly points: readonly (readonly [number, number])[];
  readonly dashed?: boolean;
  /** Palette slot; series of the same policy share one colour. Defaults to the series' position. */
  readonly colorIndex?: number;
}

export interface ChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  readonly xMax?: number;
  readonly yMax?: number;
}

const WIDTH = 820;
const HEIGHT = 440;
const MARGIN = { left: 70, right: 210, top: 40, bottom: 55 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

/** About five round tick values from 0 to at least `max` (steps of 1, 2 or 5 × 10^k). */
export function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough) ?? 10 * magnitude;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function formatTick(v: number): string {
  return Math.abs(v) >= 1000 || Number.isInteger(v) ? String(Math.round(v)) : String(Number(v.toPrecision(3)));
}

export function lineChart(options: ChartOptions): string {
  const allPoints = options.series.flatMap((s) => s.points);
  const xTicks = niceTicks(options.xMax ?? Math.max(0, ...allPoints.map(([x]) => x)));
  const yTicks = niceTicks(options.yMax ?? Math.max(0, ...allPoints.map(([, y]) => y)));
  const xMax = xTicks[xTicks.length - 1]!;
  const yMax = yTicks[yTicks.length - 1]!;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const sx = (x: number): string => (MARGIN.left + (x / xMax) * plotW).toFixed(1);
  const sy = (y: number): string => (MARGIN.top + plotH - (y / yMax) * plotH).toFixed(1);

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15">${escapeXml(options.title)}</text>`,
  ];
  for (const x of xTicks) {
    out.push(`<line x1="${sx(x)}" y1="${sy(0)}" x2="${sx(x)}" y2="${sy(yMax)}" stroke="#eee"/>`);
    out.push(`<text x="${sx(x)}" y="${Number(sy(0)) + 18}" text-anchor="middle">${formatTick(x)}</text>`);
  }
  for (const y of yTicks) {
    out.push(`<line x1="${sx(0)}" y1="${sy(y)}" x2="${sx(xMax)}" y2="${sy(y)}" stroke="#eee"/>`);
    out.push(`<text x="${MARGIN.left - 8}" y="${Number(sy(y)) + 4}" text-anchor="end">${formatTick(y)}</text>`);
  }
  out.push(`<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`);
  out.push(`<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 12}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`);
  out.push(
    `<text transform="translate(18 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(options.yLabel)}</text>`,
  );
  options.series.forEach((series, i) => {
    const color = COLORS[(series.colorIndex ?? i) % COLORS.length]!;
    const dash = series.dashed === true ? ' stroke-dasharray="6 4"' : '';
    if (series.points.length > 0) {
      const points = series.points.map(([x, y]) => `${sx(x)},${sy(y)}`).join(' ');
      out.push(`<polyline fill="none" stroke="${color}" stroke-width="1.8"${dash} points="${points}"/>`);
    }
    const ly = MARGIN.top + 10 + i * 20;
    const lx = WIDTH - MARGIN.right + 15;
    out.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="${color}" stroke-width="2.5"${dash}/>`);
    out.push(`<text x="${lx + 30}" y="${ly + 4}">${escapeXml(series.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Empirical CDF as a staircase: at each value the fraction of values at or below it. */
export function cdfPoints(values: readonly number[]): [number, number][] {
  const sorted = [...values].sort((a, b) => a - b);
  const points: [number, number][] = [[0, 0]];
  sorted.forEach((v, i) => {
    points.push([v, i / sorted.length], [v, (i + 1) / sorted.length]);
  });
  return points;
}

/**
 * A step function (value holds until the next sample) as drawable points, averaged into at most
 * `buckets` equal time buckets so week-long runs stay a few kilobytes.
 */
export function stepPoints(
  samples: readonly { readonly t: number }[],
  value: (index: number) => number,
  end: number,
  buckets = 600,
): [number, number][] {
  const first = samples[0];
  if (first === undefined || end <= first.t) return [];
  if (samples.length <= buckets) {
    const points: [number, number][] = [];
    samples.forEach((s, i) => {
      if (i > 0) points.push([s.t, value(i - 1)]);
      points.push([s.t, value(i)]);
    });
    points.push([end, value(samples.length - 1)]);
    return points;
  }
  const width = (end - first.t) / buckets;
  const sums = new Array<number>(buckets).fill(0);
  samples.forEach((s, i) => {
    const to = Math.min(samples[i + 1]?.t ?? end, end);
    for (let from = s.t; from < to;) {
      const bucket = Math.min(buckets - 1, Math.floor((from - first.t) / width));
      const bucketEnd = Math.min(to, first.t + (bucket + 1) * width);
      sums[bucket]! += value(i) * (bucketEnd - from);
      from = bucketEnd > from ? bucketEnd : to;
    }
  });
  return sums.map((sum, b) => [first.t + (b + 0.5) * width, sum / width]);
}
