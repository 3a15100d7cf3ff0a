// The vertical-resizing study in the simulator (docs/simulation-results.md §9): the papers' kind of
// experiment, the same jobs started together on one 2-core node under each vertical arm, with the
// scheduling core's `ours` placing them. Prints per-job completion, makespan and time in G/S/B.
// `specon` is SpeCon's: elastic jobs arriving over time on two nodes (speconSetup, §9.5).
import type { SchedulePass, SimulationResult } from '../engine.ts';
import { simulate } from '../engine.ts';
import { dqoesStudyJobs, flowconStudyJobs, STUDY_CLUSTER } from '../../workloads/vertical-study.ts';
import type { CpuModelOptions, FlowConCpu, VerticalArm } from './options.ts';
import { speconSetup, type SpeconStudyOptions } from './specon-study.ts';

export type StudyName = 'flowcon' | 'flowcon-b' | 'dqoes' | 'specon';

export interface StudyOptions {
  readonly study: StudyName;
  readonly intervalSeconds: number;
  /** FlowCon's α (the paper's 5 % and 10 %). */
  readonly alpha: number;
  readonly flowconCpu?: FlowConCpu;
  /** Template CPU limit = this × the request; undefined: the node's CPU (no allocation). */
  readonly limitFactor?: number;
  /** The SpeCon study's own settings (study `specon` only). */
  readonly specon?: SpeconStudyOptions;
}

/** A worker would use the whole node (8 × its 250m request); the study's jobs have no PS. */
export const STUDY_CPU: Pick<CpuModelOptions, 'workerDemandFactor' | 'psDemandFactor'> = { workerDemandFactor: 8, psDemandFactor: 1 };

export const STUDY_ARMS: Readonly<Record<StudyName, readonly VerticalArm[]>> = {
  flowcon: ['none', 'equal', 'flowcon'],
  'flowcon-b': ['none', 'equal', 'flowcon'],
  dqoes: ['none', 'equal', 'dqoes'],
  specon: ['none', 'flowcon', 'specon'],
};

export interface ArmRun {
  readonly arm: VerticalArm;
  readonly result: SimulationResult;
}

/** The study's nodes, jobs and CPU model; `seed` draws a SpeCon mix (specon-study.ts). */
function setup(options: StudyOptions, seed: number | undefined) {
  if (options.study === 'specon') return speconSetup(options.specon, seed);
  const jobs = options.study === 'dqoes' ? dqoesStudyJobs() : flowconStudyJobs(options.study === 'flowcon-b' ? 'slow-short' : 'slow-long');
  return { cluster: STUDY_CLUSTER, jobs, cpu: STUDY_CPU, horizonSeconds: 20_000 };
}

export function runStudy(options: StudyOptions, schedule: SchedulePass, seed?: number): ArmRun[] {
  const { cluster, jobs, cpu, horizonSeconds } = setup(options, seed);
  return STUDY_ARMS[options.study].map((arm) => ({
    arm,
    result: simulate({
      cluster,
      jobs,
      schedule,
      startupSeconds: 10,
      tickSeconds: 10,
      horizonSeconds,
      cpu: {
        arm,
        intervalSeconds: options.intervalSeconds,
        ...cpu,
        ...(options.limitFactor === undefined ? {} : { limitFactor: options.limitFactor }),
        flowcon: { alpha: options.alpha },
        ...(options.flowconCpu === undefined ? {} : { flowconCpu: options.flowconCpu }),
      },
    }),
  }));
}

const seconds = (x: number | null): string => (x === null ? 'unfinished' : String(Math.round(x)));

function pct(x: number | null, base: number | null): string {
  if (x === null || base === null || base === 0) return '–';
  const p = (100 * (x - base)) / base;
  return `${p >= 0 ? '+' : ''}${p.toFixed(1)} %`;
}

/** Completion (s from the job's submission) per job and arm, makespan, and each arm's change against no allocation. */
export function completionTable(runs: readonly ArmRun[]): string {
  const base = runs.find((r) => r.arm === 'none') ?? runs[0]!;
  const names = base.result.jobs.map((j) => j.name);
  const head = `| job | ${runs.map((r) => r.arm).join(' | ')} | ${runs
    .filter((r) => r !== base)
    .map((r) => `${r.arm} vs ${base.arm}`)
    .join(' | ')} |`;
  const rule = `|${' --- |'.repeat(1 + runs.length + runs.length - 1)}`;
  const row = (label: string, pick: (r: ArmRun) => number | null) =>
    `| ${label} | ${runs.map((r) => seconds(pick(r))).join(' | ')} | ${runs
      .filter((r) => r !== base)
      .map((r) => pct(pick(r), pick(base)))
      .join(' | ')} |`;
  const finished = (r: ArmRun, name: string) => r.result.jobs.find((j) => j.name === name)?.jct ?? null;
  const mean = (r: ArmRun) => {
    const f = r.result.jobs.map((j) => j.jct);
    return f.some((x) => x === null) ? null : f.reduce<number>((a, x) => a + (x ?? 0), 0) / f.length;
  };
  return [
    head,
    rule,
    ...names.map((n) => row(n, (r) => finished(r, n))),
    row('mean completion', mean),
    row('makespan', (r) => r.result.end - r.result.start),
  ].join('\n');
}

/** Seconds each targeted job spent Ahead / Satisfied / Behind its target, per arm, and the share in S. */
export function qoeTable(runs: readonly ArmRun[]): string {
  const lines = ['| arm | job | G (s) | S (s) | B (s) | share in S |', '| --- | --- | --- | --- | --- | --- |'];
  for (const r of runs) {
    let g = 0;
    let s = 0;
    let b = 0;
    for (const j of r.result.cpu?.jobs ?? []) {
      if (j.qoeSeconds === null) continue;
      const t = j.qoeSeconds;
      g += t.Ahead;
      s += t.Satisfied;
      b += t.Behind;
      lines.push(
        `| ${r.arm} | ${j.name} | ${seconds(t.Ahead)} | ${seconds(t.Satisfied)} | ${seconds(t.Behind)} | ${share(t.Satisfied, t.Ahead + t.Satisfied + t.Behind)} |`,
      );
    }
    lines.push(`| ${r.arm} | **all** | ${seconds(g)} | ${seconds(s)} | ${seconds(b)} | ${share(s, g + s + b)} |`);
  }
  return lines.join('\n');
}

const share = (x: number, total: number): string => (total > 0 ? `${((100 * x) / total).toFixed(0)} %` : '–');

/** The arms' rounds and limit changes, one line each. */
export function roundsLine(runs: readonly ArmRun[]): string {
  return runs.map((r) => `${r.arm}: ${r.result.cpu?.rounds ?? 0} rounds, ${r.result.cpu?.limitChanges ?? 0} limit changes`).join('; ');
}
