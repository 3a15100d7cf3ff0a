// The pure part of bench/specon-real.ts: what one run on the two real nodes recorded beyond
// bench/lib/vertical-report.ts's RunRecord (where each job's pods ran, SpeCon's moves and what the
// moved worker's restart cost), as a Markdown table and one SVG per run (four panels over time).
import { lineChart, type Series } from '../../lab/simulator/svg.ts';
import { round } from './stats.ts';
import type { JobSample, RunRecord } from './vertical-report.ts';

export interface SpeconSample extends JobSample {
  /** How many of the job's pods were bound to the second node (realnode-1). */
  readonly podsOnSecondNode: number;
}

/** One migration Event of a job, `t` seconds after the jobs were created. */
export interface MoveEvent {
  readonly t: number;
  readonly job: string;
  readonly reason: string;
  readonly message: string;
}

export interface Restart {
  /** Seconds after the jobs were created (the kubelet's timestamp of the replacement's "session open" line). */
  readonly sessionOpenAt: number;
  readonly globalStep: number;
}

/** The replacement's restart from its log read with timestamps, or undefined when it has no "session open" line. */
export function restartOf(timestampedLog: string, t0: number): Restart | undefined {
  const m = /^(\S+) session open after \S+, global step (\d+)/m.exec(timestampedLog);
  if (m === null) return undefined;
  return { sessionOpenAt: (Date.parse(m[1]!) - t0) / 1000, globalStep: Number(m[2]) };
}

export interface SpeconRunRecord extends RunRecord {
  readonly samples: readonly SpeconSample[];
  /** status.migration.migrations per job at the end of the run (0: never moved). */
  readonly migrations: Readonly<Record<string, number>>;
  readonly moves: readonly MoveEvent[];
  /** Per moved pod, when its replacement had restarted TensorFlow and opened its session, and at what global step. */
  readonly restarts: Readonly<Record<string, Restart>>;
}

/** The pods of `job` (named `<job>-<type>-<index>`) bound to `node`. */
export function podsOnNode(pods: readonly { name: string; node: string | undefined }[], job: string, node: string): number {
  return pods.filter((p) => p.name.startsWith(`${job}-`) && p.node === node).length;
}

const sumOf = (r: Readonly<Record<string, number>>) => Object.values(r).reduce((a, b) => a + b, 0);

/** One row per run: its migrations, each move (when, which pod, where to) and its restart. */
export function movesTable(runs: readonly SpeconRunRecord[]): string {
  const lines = ['| run | load (mean) | migrations | moves (s after start: pod from → to; replacement) |', '| --- | --- | --- | --- |'];
  for (const r of runs) {
    const moved = r.moves.filter((m) => m.reason === 'WorkerMigrating');
    const cells = moved.map((m) => {
      const pod = /^(\S+) deleted on (\S+) to be re-created on (\S+)/.exec(m.message);
      const what = pod === null ? m.message.slice(0, 60) : `${pod[1]} ${pod[2]} → ${pod[3]}`;
      const restart = pod === null ? undefined : r.restarts[pod[1]!];
      const cost =
        restart === undefined
          ? ''
          : ` (training again ${Math.round(restart.sessionOpenAt - m.t)} s later, at global step ${restart.globalStep})`;
      return `${Math.round(m.t)}: ${what}${cost}`;
    });
    lines.push(`| ${r.condition} #${r.repeat} | ${r.loadAverage.mean.toFixed(1)} | ${sumOf(r.migrations)} | ${cells.join('; ') || '—'} |`);
  }
  return `${lines.join('\n')}\n`;
}

type Field = 'cpuLimitMillis' | 'stepsPerSecond' | 'relativeLoss' | 'podsOnSecondNode';

function byJob(samples: readonly SpeconSample[]): Map<string, SpeconSample[]> {
  const out = new Map<string, SpeconSample[]>();
  for (const s of samples) out.set(s.job, [...(out.get(s.job) ?? []), s]);
  for (const list of out.values()) list.sort((a, b) => a.t - b.t);
  return out;
}

/** Per job, the field over time; relativeLoss is the metric over the job's first reported one. */
export function speconSeries(samples: readonly SpeconSample[], field: Field): Series[] {
  return [...byJob(samples)].map(([job, list]) => {
    const first = list.find((s) => s.metric !== undefined && s.metric > 0)?.metric;
    return {
      name: job,
      points: list.flatMap((s) => {
        const v = field === 'relativeLoss' ? (s.metric === undefined || first === undefined ? undefined : s.metric / first) : s[field];
        return v === undefined || !Number.isFinite(v) ? [] : [[round(s.t, 1), round(v, 4)] as const];
      }),
    };
  });
}

/** One SVG of four stacked panels over time: CPU limit, step rate, loss relative to the first, pods on realnode-1. */
export function speconSvg(run: SpeconRunRecord, secondNode: string): string {
  const title = `${run.condition} (repeat ${run.repeat}, load ${run.loadAverage.mean.toFixed(1)})`;
  const xMax = Math.max(1, ...run.samples.map((s) => s.t));
  const panel = (what: string, yLabel: string, field: Field) =>
    lineChart({ title: `${title}: ${what}`, xLabel: 's', yLabel, series: speconSeries(run.samples, field), xMax });
  const panels = [
    panel('CPU limit (worker 0)', 'millicores', 'cpuLimitMillis'),
    panel('step rate', 'steps/s', 'stepsPerSecond'),
    panel('evaluation loss / first reported', 'ratio', 'relativeLoss'),
    panel(`pods on ${secondNode}`, 'pods', 'podsOnSecondNode'),
  ];
  const width = Number(/width="(\d+)"/.exec(panels[0]!)?.[1] ?? 820);
  const height = Number(/height="(\d+)"/.exec(panels[0]!)?.[1] ?? 440);
  const total = height * panels.length;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${total}" viewBox="0 0 ${width} ${total}">`,
    ...panels.map((p, i) => p.replace('<svg ', `<svg y="${i * height}" `)),
    '</svg>',
    '',
  ].join('\n');
}
