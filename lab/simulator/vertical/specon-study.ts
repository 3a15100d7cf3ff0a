// SpeCon's study (docs/simulation-results.md §9.5): elastic PS jobs arriving over time on two nodes of
// their own CPUs (lab/workloads/specon-study.ts), placed by `ours`, under no allocation, FlowCon, and
// SpeCon (FlowCon's limits plus moves: the operator's `--vertical-policy specon`). Figures per job
// for the six-job mix; per drawn mix (seed) with a summary for `seeds`.
import { randomSpeconJobs, speconStudyJobs, SPECON_CLUSTER } from '../../workloads/specon-study.ts';
import type { SimulationResult } from '../engine.ts';
import { DEFAULT_RESTART_SECONDS, type CpuModelOptions } from './options.ts';
import type { ArmRun } from './study.ts';

export interface SpeconStudyOptions {
  /** Seconds a moved worker does no work (options.ts `restartSeconds`). */
  readonly restartSeconds: number;
  /** Run the drawn mixes of seeds 1..n instead of the six-job mix. */
  readonly seeds?: number;
  /** Jobs per drawn mix, and the mean gap between their arrivals (s). */
  readonly jobs: number;
  readonly gapSeconds: number;
}

/**
 * 12 jobs a mean 240 s apart: work arrives at about 0.8 of what the two nodes' 6 cores do (a job: ~500 s
 * × 2.25 cores), so a node has room at times; 120 s (1.6) and 360 s (0.5) are the study's other loads.
 */
export const DEFAULT_SPECON_STUDY: SpeconStudyOptions = { restartSeconds: DEFAULT_RESTART_SECONDS, jobs: 12, gapSeconds: 240 };

/** A worker would use one core (4 × its 250m request), so a job's two use a 2-core node; workers add up. */
export const SPECON_CPU = { workerDemandFactor: 4, psDemandFactor: 1, asyncWorkers: true } as const satisfies Partial<CpuModelOptions>;

export function speconSetup(options: SpeconStudyOptions = DEFAULT_SPECON_STUDY, seed?: number) {
  return {
    cluster: SPECON_CLUSTER,
    jobs: seed === undefined ? speconStudyJobs() : randomSpeconJobs(seed, options.jobs, options.gapSeconds),
    cpu: { ...SPECON_CPU, restartSeconds: options.restartSeconds },
    horizonSeconds: 100_000,
  };
}

/** Mean seconds from submission to completion; null when a job did not finish. */
export function meanJct(r: SimulationResult): number | null {
  const jct = r.jobs.map((j) => j.jct);
  return jct.some((x) => x === null) ? null : jct.reduce<number>((a, x) => a + (x ?? 0), 0) / jct.length;
}

const makespan = (r: SimulationResult) => r.end - r.start;
const change = (x: number | null, base: number | null) => (x === null || base === null || base === 0 ? null : (x - base) / base);
const pct = (x: number | null) => (x === null ? '–' : `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`);
const seconds = (x: number | null) => (x === null ? 'unfinished' : String(Math.round(x)));

/** SpeCon against FlowCon's limits alone (the operator's `flowcon`): the moves' own effect. */
export function versusFlowconLine(runs: readonly ArmRun[]): string {
  const specon = runs.find((r) => r.arm === 'specon')?.result;
  const flowcon = runs.find((r) => r.arm === 'flowcon')?.result;
  if (specon === undefined || flowcon === undefined) return '';
  return (
    `specon vs flowcon: mean completion ${pct(change(meanJct(specon), meanJct(flowcon)))}, ` +
    `makespan ${pct(change(makespan(specon), makespan(flowcon)))}`
  );
}

/** Each arm's moves (when, which worker, from → to) and SpeCon's refusals by reason. */
export function movesLines(runs: readonly ArmRun[]): string[] {
  return runs
    .filter((r) => r.arm === 'specon')
    .flatMap((r) => {
      const cpu = r.result.cpu;
      const moves = (cpu?.migrations ?? []).map((m) => `${Math.round(m.t)} s ${m.pod} ${m.from} → ${m.to}`);
      const refused = [...(cpu?.migrationRefusals ?? [])].map(([why, n]) => `${why} × ${n}`);
      return [
        `specon: ${moves.length} moves${moves.length > 0 ? ` (${moves.join('; ')})` : ''}`,
        `specon refusals (per round and job): ${refused.length > 0 ? refused.join('; ') : 'none'}`,
      ];
    });
}

export interface SeedRow {
  readonly seed: number;
  readonly runs: readonly ArmRun[];
}

interface Figures {
  readonly jct: Record<'none' | 'flowcon' | 'specon', number | null>;
  readonly span: Record<'none' | 'flowcon' | 'specon', number | null>;
  readonly moves: number;
}

function figures(row: SeedRow): Figures {
  const pick = (arm: string) => row.runs.find((r) => r.arm === arm)?.result;
  const of = (f: (r: SimulationResult) => number | null) => {
    const at = (arm: string) => {
      const r = pick(arm);
      return r === undefined ? null : f(r);
    };
    return { none: at('none'), flowcon: at('flowcon'), specon: at('specon') };
  };
  return { jct: of(meanJct), span: of(makespan), moves: pick('specon')?.cpu?.migrations.length ?? 0 };
}

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** One line per seed: mean JCT and makespan under each arm, SpeCon's change against FlowCon and none, its moves; then the medians. */
export function seedsTable(rows: readonly SeedRow[]): string {
  const head =
    '| seed | mean JCT none / flowcon / specon (s) | specon vs flowcon | specon vs none | makespan none / flowcon / specon (s) | specon vs flowcon | specon vs none | moves |';
  const lines = [head, `|${' --- |'.repeat(8)}`];
  const all = rows.map(figures);
  rows.forEach((row, i) => {
    const f = all[i]!;
    const three = (x: Figures['jct']) => `${seconds(x.none)} / ${seconds(x.flowcon)} / ${seconds(x.specon)}`;
    lines.push(
      `| ${row.seed} | ${three(f.jct)} | ${pct(change(f.jct.specon, f.jct.flowcon))} | ${pct(change(f.jct.specon, f.jct.none))} | ` +
        `${three(f.span)} | ${pct(change(f.span.specon, f.span.flowcon))} | ${pct(change(f.span.specon, f.span.none))} | ${f.moves} |`,
    );
  });
  const summary = (pickFig: (f: Figures) => Figures['jct'], base: 'none' | 'flowcon') => {
    const changes = all.flatMap((f) => {
      const c = change(pickFig(f).specon, pickFig(f)[base]);
      return c === null ? [] : [c];
    });
    return `${pct(median(changes))} (better in ${changes.filter((c) => c < 0).length} of ${changes.length})`;
  };
  lines.push(
    `| median | | ${summary((f) => f.jct, 'flowcon')} | ${summary((f) => f.jct, 'none')} | | ${summary((f) => f.span, 'flowcon')} | ` +
      `${summary((f) => f.span, 'none')} | ${median(all.map((f) => f.moves)) ?? '–'} |`,
  );
  return lines.join('\n');
}
