// The pure part of bench/vertical-real.ts: what one run of real jobs under one condition measured
// (completion times, samples of each job's CPU limit, step rate, metric and QoE class), summarised
// per run and over repetitions, as a Markdown table and one SVG per run (three panels over time).
import { lineChart, type Series } from '../../lab/simulator/svg.ts';
import { round, spread, type Spread } from './stats.ts';

/** One sample of one job, `t` seconds after the jobs were created. */
export interface JobSample {
  readonly t: number;
  readonly job: string;
  /** The training container's CPU limit as the kubelet reports it (millicores); undefined: none. */
  readonly cpuLimitMillis?: number;
  /** Steps per second since the previous sample of this job (from status.progress.step). */
  readonly stepsPerSecond?: number;
  readonly metric?: number;
  /** status.qoe.class (DQoES: Ahead = G, Satisfied = S, Behind = B). */
  readonly qoeClass?: string;
  /** status.verticalResize.list (FlowCon: New, Watching, Completing). */
  readonly list?: string;
}

export interface RunRecord {
  readonly condition: string;
  readonly repeat: number;
  readonly startedAt: string;
  /** 1-minute load average at the start, its mean over the run, and at the end (2 shared cores). */
  readonly loadAverage: { readonly start: number; readonly mean: number; readonly end: number };
  /** Seconds from the common creation to the job's Succeeded (null: did not finish). */
  readonly completion: Readonly<Record<string, number | null>>;
  readonly samples: readonly JobSample[];
}

export interface RunSummary {
  readonly makespan: number | null;
  readonly meanCompletion: number | null;
  readonly unfinished: number;
}

export function summariseRun(run: RunRecord): RunSummary {
  const times = Object.values(run.completion);
  const done = times.filter((t): t is number => t !== null);
  const unfinished = times.length - done.length;
  return {
    makespan: unfinished === 0 && done.length > 0 ? Math.max(...done) : null,
    meanCompletion: unfinished === 0 && done.length > 0 ? done.reduce((a, b) => a + b, 0) / done.length : null,
    unfinished,
  };
}

/** Seconds each job spent in each QoE class, each sample counting until the next one of that job. */
export function timeInClasses(samples: readonly JobSample[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  const byJob = groupByJob(samples);
  for (const [job, list] of byJob) {
    const acc: Record<string, number> = {};
    for (let i = 0; i + 1 < list.length; i++) {
      const cls = list[i]!.qoeClass;
      if (cls === undefined) continue;
      acc[cls] = (acc[cls] ?? 0) + (list[i + 1]!.t - list[i]!.t);
    }
    out[job] = acc;
  }
  return out;
}

function groupByJob(samples: readonly JobSample[]): Map<string, JobSample[]> {
  const byJob = new Map<string, JobSample[]>();
  for (const s of samples) byJob.set(s.job, [...(byJob.get(s.job) ?? []), s]);
  for (const list of byJob.values()) list.sort((a, b) => a.t - b.t);
  return byJob;
}

const fmt = (v: number | null | undefined): string => (v === null || v === undefined ? '—' : String(Math.round(v)));

function fmtSpread(s: Spread | null): string {
  if (s === null) return '—';
  return s.n === 1 ? fmt(s.mean) : `${fmt(s.mean)} (${fmt(s.min)}–${fmt(s.max)})`;
}

function relative(v: number | undefined, base: number | undefined): string {
  if (v === undefined || base === undefined || base === 0) return '';
  const r = (v / base - 1) * 100;
  return ` ${r >= 0 ? '+' : '−'}${Math.abs(r).toFixed(1)} %`;
}

/**
 * Per job, mean completion over repetitions (min–max when more than one) for each condition, then
 * mean completion and makespan; each cell of a later condition also relative to the first.
 */
export function completionTable(runs: readonly RunRecord[], conditions: readonly string[]): string {
  const jobs = [...new Set(runs.flatMap((r) => Object.keys(r.completion)))].sort();
  const of = (c: string) => runs.filter((r) => r.condition === c);
  const cell = (values: (number | null)[]) => spread(values.filter((v): v is number => v !== null));
  const rows: { label: string; per: (Spread | null)[] }[] = jobs.map((j) => ({
    label: j,
    per: conditions.map((c) => cell(of(c).map((r) => r.completion[j] ?? null))),
  }));
  rows.push({ label: 'mean completion', per: conditions.map((c) => cell(of(c).map((r) => summariseRun(r).meanCompletion))) });
  rows.push({ label: 'makespan', per: conditions.map((c) => cell(of(c).map((r) => summariseRun(r).makespan))) });
  const lines = [
    `| job | ${conditions.join(' | ')} |`,
    `| --- | ${conditions.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => {
      const base = row.per[0]?.mean;
      const cells = row.per.map((s, i) => `${fmtSpread(s)}${i === 0 ? '' : relative(s?.mean, base)}`);
      return `| ${row.label} | ${cells.join(' | ')} |`;
    }),
  ];
  const reps = conditions.map((c) => `${c} ${of(c).length}`).join(', ');
  const loads = conditions
    .map(
      (c) =>
        `${c} ${of(c)
          .map((r) => r.loadAverage.mean.toFixed(1))
          .join('/')}`,
    )
    .join(', ');
  return `${lines.join('\n')}\n\nSeconds from the common start; mean (min–max) over repetitions (${reps}). Load average (1 min, mean over each run): ${loads}.\n`;
}

/** Seconds in G (Ahead), S (Satisfied), B (Behind) summed over the jobs, per condition (mean over repetitions). */
export function qoeTable(runs: readonly RunRecord[], conditions: readonly string[]): string {
  const lines = [
    '| condition | G (Ahead) | S (Satisfied) | B (Behind) | share in S | jobs mostly in S |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const c of conditions) {
    const rs = runs.filter((r) => r.condition === c);
    if (rs.length === 0) continue;
    const totals = { Ahead: 0, Satisfied: 0, Behind: 0 };
    let mostlyS = 0;
    for (const r of rs) {
      for (const perJob of Object.values(timeInClasses(r.samples))) {
        for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += (perJob[k] ?? 0) / rs.length;
        const best = Object.entries(perJob).sort((a, b) => b[1] - a[1])[0];
        if (best?.[0] === 'Satisfied') mostlyS += 1 / rs.length;
      }
    }
    const sum = totals.Ahead + totals.Satisfied + totals.Behind;
    const share = sum > 0 ? `${Math.round((totals.Satisfied / sum) * 100)} %` : '—';
    lines.push(`| ${c} | ${fmt(totals.Ahead)} | ${fmt(totals.Satisfied)} | ${fmt(totals.Behind)} | ${share} | ${round(mostlyS, 1)} |`);
  }
  return `${lines.join('\n')}\n`;
}

type Field = 'cpuLimitMillis' | 'stepsPerSecond' | 'metric';

function seriesOf(samples: readonly JobSample[], field: Field): Series[] {
  return [...groupByJob(samples)].map(([job, list]) => ({
    name: job,
    points: list.flatMap((s) => {
      const v = s[field];
      return v === undefined || !Number.isFinite(v) ? [] : [[round(s.t, 1), round(v, 4)] as const];
    }),
  }));
}

/** One SVG of three stacked panels over time: each job's CPU limit, step rate and metric. */
export function runSvg(run: RunRecord, metricName: string): string {
  const title = `${run.condition} (repeat ${run.repeat}, load ${run.loadAverage.mean.toFixed(1)})`;
  const xMax = Math.max(1, ...run.samples.map((s) => s.t));
  const panels = [
    lineChart({ title: `${title}: CPU limit`, xLabel: 's', yLabel: 'millicores', series: seriesOf(run.samples, 'cpuLimitMillis'), xMax }),
    lineChart({ title: `${title}: step rate`, xLabel: 's', yLabel: 'steps/s', series: seriesOf(run.samples, 'stepsPerSecond'), xMax }),
    lineChart({ title: `${title}: ${metricName}`, xLabel: 's', yLabel: metricName, series: seriesOf(run.samples, 'metric'), xMax }),
  ];
  const width = Number(/width="(\d+)"/.exec(panels[0]!)?.[1] ?? 820);
  const height = Number(/height="(\d+)"/.exec(panels[0]!)?.[1] ?? 440);
  const nested = panels.map((p, i) => p.replace('<svg ', `<svg y="${i * height}" `));
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height * panels.length}" viewBox="0 0 ${width} ${height * panels.length}">`,
    ...nested,
    '</svg>',
    '',
  ].join('\n');
}
