// The versioned JSON document of a run and the comparison table printed by `simulate`.
import type { SimPolicyName as PolicyName } from './policies/registry.ts';
import { clusterCapacity, clusterNodes } from '../workloads/model.ts';
import { displayPath } from '../workloads/scenario.ts';
import type { JobOutcome } from './engine.ts';
import type { Summary } from './figures.ts';
import type { PolicyRun, ScenarioRun } from './run.ts';

/** Bump on any incompatible change of the document's shape. */
export const SCHEMA = 'tfjob-operator.kubeflow.org/simulation/v1';
export const BASELINE: PolicyName = 'tf-operator';

/** This run's figure divided by the tf-operator run's (< 1 = better for times, > 1 = busier cluster). */
export interface VersusBaseline {
  readonly meanJct: number | null;
  readonly p95Jct: number | null;
  readonly meanJctInclUnfinished: number | null;
  readonly makespan: number | null;
  readonly utilisation: Readonly<Record<string, number | null>>;
}

export interface RunDocument {
  readonly schema: typeof SCHEMA;
  readonly scenario: string;
  readonly policy: PolicyName;
  readonly params: Readonly<Record<string, unknown>>;
  readonly jobs: readonly (JobOutcome & { readonly idealJct: number })[];
  readonly summary: Summary & { readonly vsTfOperator: VersusBaseline | null };
  readonly cpu?: { readonly rounds: number; readonly limitChanges: number };
}

function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  return a === null || a === undefined || b === null || b === undefined || b === 0 ? null : a / b;
}

export function versusBaseline(run: Summary, baseline: Summary): VersusBaseline {
  const utilisation: Record<string, number | null> = {};
  for (const [name, share] of Object.entries(run.utilisation.allocated)) {
    utilisation[name] = ratio(share, baseline.utilisation.allocated[name]);
  }
  return {
    meanJct: ratio(run.jct?.mean, baseline.jct?.mean),
    p95Jct: ratio(run.jct?.p95, baseline.jct?.p95),
    meanJctInclUnfinished: ratio(run.jctInclUnfinished?.mean, baseline.jctInclUnfinished?.mean),
    makespan: ratio(run.makespan, baseline.makespan),
    utilisation,
  };
}

export function scenarioParams(scenarioRun: ScenarioRun, schedulerConfig: unknown): Record<string, unknown> {
  const { scenario, horizon, bounds } = scenarioRun;
  const d = scenario.definition;
  const common = {
    scenarioFile: displayPath(scenario.file),
    kind: d.kind,
    seed: scenario.seed,
    cluster: {
      nodes: d.cluster.nodes,
      allocatable: d.cluster.allocatable,
      ...(d.cluster.extraPools.length > 0 ? { extraPools: d.cluster.extraPools } : {}),
    },
    startupSeconds: d.startupSeconds,
    tickSeconds: d.tickSeconds,
    horizonFactor: d.horizonFactor,
    horizonSeconds: horizon,
    makespanLowerBound: bounds.makespan,
    rateJitter: d.rateJitter,
    declareScalingCurves: d.declareScalingCurves,
    suspendable: d.suspendable,
    ...(d.teams === undefined ? {} : { teams: d.teams }),
    ...(d.queues === undefined ? {} : { queues: d.queues }),
    scheduler: schedulerConfig,
  };
  if (d.kind === 'kod2-paper') return { ...common, batchSize: d.batchSize, workers: d.workers, arrivals: d.arrivals };
  return { ...common, workload: displayPath(d.workload), minWorkers: d.minWorkers, maxEpochs: d.maxEpochs };
}

export function runDocuments(scenarioRun: ScenarioRun, schedulerConfig: unknown, baseline?: PolicyRun): RunDocument[] {
  const params = scenarioParams(scenarioRun, schedulerConfig);
  return scenarioRun.runs.map((run) => ({
    schema: SCHEMA,
    scenario: scenarioRun.scenario.definition.name,
    policy: run.policy,
    params,
    jobs: run.result.jobs.map((job) => ({ ...job, idealJct: scenarioRun.bounds.idealJct[job.name]! })),
    summary: { ...run.summary, vsTfOperator: baseline === undefined ? null : versusBaseline(run.summary, baseline.summary) },
    // Only with the CPU model (--vertical-policy): the rule's rounds and limit changes, not each change.
    ...(run.result.cpu === undefined ? {} : { cpu: { rounds: run.result.cpu.rounds, limitChanges: run.result.cpu.limitChanges } }),
  }));
}

/** JSON with times rounded to the millisecond: float noise below that is not a result. */
export function toJson(value: unknown): string {
  return `${JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 1000) / 1000 : v), 2)}\n`;
}

// ---- the table ----

function seconds(v: number | null | undefined): string {
  return v === null || v === undefined ? '—' : v >= 10_000 ? `${(v / 3600).toFixed(2)}h` : `${Math.round(v)}s`;
}

function times(v: number | null | undefined): string {
  return v === null || v === undefined ? '—' : `${v.toFixed(2)}×`;
}

function percent(v: number | null | undefined): string {
  return v === null || v === undefined ? '—' : `${(v * 100).toFixed(1)}%`;
}

function count(v: number): string {
  return String(v);
}

export function comparisonTable(scenarioRun: ScenarioRun, baseline: PolicyRun | undefined): string {
  const { runs, bounds, scenario } = scenarioRun;
  const capacity = clusterCapacity(scenario.cluster);
  const resources = Object.keys(capacity).filter((r) => (capacity[r] ?? 0) > 0);
  const vs = (s: Summary) => (baseline === undefined ? null : versusBaseline(s, baseline.summary));
  const rows: [string, (s: Summary) => string][] = [
    ['JCT mean', (s) => seconds(s.jct?.mean)],
    ['JCT p50', (s) => seconds(s.jct?.p50)],
    ['JCT p95', (s) => seconds(s.jct?.p95)],
    ['JCT p99', (s) => seconds(s.jct?.p99)],
    ['JCT max', (s) => seconds(s.jct?.max)],
    ['unfinished jobs', (s) => count(s.unfinished)],
    ['JCT mean incl. unfinished', (s) => seconds(s.jctInclUnfinished?.mean)],
    ['makespan', (s) => (s.makespan === null ? `>${seconds(s.window.horizon)}` : seconds(s.makespan))],
    ['waiting mean', (s) => seconds(s.waiting?.mean)],
    ['waiting max', (s) => seconds(s.waiting?.max)],
    ['wait to progress mean', (s) => seconds(s.waitingToProgress?.mean)],
    ['wait to progress max', (s) => seconds(s.waitingToProgress?.max)],
    ['time to accuracy mean', (s) => seconds(s.timeToAccuracy?.mean)],
    ...resources.map((r): [string, (s: Summary) => string] => [`util ${r} allocated`, (s) => percent(s.utilisation.allocated[r])]),
    ...resources.map((r): [string, (s: Summary) => string] => [`util ${r} useful`, (s) => percent(s.utilisation.useful[r])]),
    ['preempted workers', (s) => count(s.preemptedWorkers)],
    ['scale-out workers', (s) => count(s.scaleOuts)],
    ['suspended jobs', (s) => count(s.suspensions)],
    ['pods created/deleted', (s) => `${s.pods.created}/${s.pods.deleted}`],
    ['JCT mean / bound', (s) => times(s.toLowerBound.meanJct)],
    ['JCT incl. unf. / bound', (s) => times(s.toLowerBound.meanJctInclUnfinished)],
    ['mean slowdown (JCT/ideal)', (s) => times(s.toLowerBound.meanSlowdown)],
    ['makespan / bound', (s) => times(s.toLowerBound.makespan)],
    ['jobs faster than ideal', (s) => count(s.jobsFasterThanIdeal)],
    ['JCT mean / tf-operator', (s) => times(vs(s)?.meanJct)],
    ['JCT p95 / tf-operator', (s) => times(vs(s)?.p95Jct)],
    ['JCT incl. unf. / tf-operator', (s) => times(vs(s)?.meanJctInclUnfinished)],
    ['makespan / tf-operator', (s) => times(vs(s)?.makespan)],
    // Performance targets (docs/results/log.md §1c), when the scenario states any.
    ...(runs.some((r) => r.summary.qoe !== null)
      ? ([
          ['targeted jobs met', (s) => percent(s.qoe?.jobsMetFraction)],
          ['throughput target: time met', (s) => percent(s.qoe?.throughputMetFraction)],
          ['throughput target: met running', (s) => percent(s.qoe?.throughputMetWhileRunning)],
          ['deadlines met', (s) => (s.qoe === null ? '—' : `${s.qoe.deadlinesMet}/${s.qoe.deadlineJobs}`)],
          ['JCT mean, no target', (s) => seconds(s.qoe?.untargetedMeanJct)],
        ] satisfies [string, (s: Summary) => string][])
      : []),
  ];
  const header = ['figure', ...runs.map((r) => r.policy)];
  const body = rows.map(([label, cell]) => [label, ...runs.map((r) => cell(r.summary))]);
  const widths = header.map((_, c) => Math.max(...[header, ...body].map((row) => (row[c] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  const title =
    `${scenario.definition.name}: ${scenario.jobs.length} jobs, ${clusterNodes(scenario.cluster).length} nodes; ` +
    `lower bounds: mean ideal JCT ${seconds(bounds.meanIdealJct)}, makespan ${seconds(bounds.makespan)} ` +
    `(arrivals ${seconds(bounds.arrivalBound)}, work ${seconds(bounds.workBound)} on ${bounds.workBoundResource}); ` +
    `horizon ${seconds(scenarioRun.horizon)}`;
  return [title, line(header), ...body.map(line)].join('\n');
}
