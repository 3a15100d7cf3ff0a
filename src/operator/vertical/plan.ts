// One vertical round's decisions, from the operator's view of the jobs: FlowCon or DQoES vertical on
// the same inputs. Pure: the stage (stage.ts) reads the caches and applies what this returns.
import type { ParsedTFJobEntry } from '../../api/v1/parse.ts';
import type { Pod } from '../../api/v1/k8s-types.ts';
import { latestEvaluation, type EvaluationSeries } from '../../progress/signals/index.ts';
import { namespacedKey } from '../../runtime/store.ts';
import {
  dqoesVerticalRound,
  nextDqoesInterval,
  type DqoesIntervalState,
  type DqoesVerticalConfig,
} from '../../scheduler/vertical/dqoes/index.ts';
import {
  flowConRound,
  type FlowConConfig,
  type FlowConJob,
  type FlowConState,
  type ContainerCpu,
  type LimitChange,
  type NodeCpu,
} from '../../scheduler/vertical/flowcon/index.ts';
import { containersOf, optedOut, qoeOf } from './inputs.ts';
import type { VerticalPolicy } from './policy.ts';
import type { JobVerdict } from './status.ts';

export interface PlanInput {
  readonly now: number;
  readonly jobs: readonly ParsedTFJobEntry[];
  readonly podsOf: (key: string) => readonly Pod[];
  readonly series: (key: string) => EvaluationSeries | undefined;
  readonly nodes: readonly NodeCpu[];
  /** Limits this operator set that the job's status may not show yet (pod/container → millicores). */
  readonly recent?: (key: string) => ReadonlyMap<string, number> | undefined;
  /** FlowCon's used CPU term: each container's CPU usage so far (namespace/pod/container → millicore-seconds). */
  readonly usage?: ReadonlyMap<string, number>;
}

export interface PlanOutput {
  readonly changes: readonly LimitChange[];
  readonly verdicts: ReadonlyMap<string, JobVerdict>;
  readonly flowcon?: FlowConState;
  readonly dqoes?: DqoesIntervalState;
  /** When the next round is due, from now. */
  readonly intervalMs: number;
  /** DQoES: the stable state broke, the next round is due at once. */
  readonly runNow?: boolean;
}

/** The state each policy carries from one round to the next. */
export interface VerticalState {
  readonly flowcon?: FlowConState;
  readonly dqoes?: DqoesIntervalState;
}

/** The longest interval either policy backs off to, as a multiple of --vertical-interval. */
export const MAX_INTERVAL_FACTOR = 16;

export const keyOf = (e: ParsedTFJobEntry): string => namespacedKey(e.job.metadata.namespace ?? 'default', e.job.metadata.name);

/** The job's CPU usage counter: the sum over its containers, when the usage of every one of them is known. */
function usedByJob(key: string, containers: readonly ContainerCpu[], usage: ReadonlyMap<string, number> | undefined): number | undefined {
  if (usage === undefined || containers.length === 0) return undefined;
  const namespace = key.slice(0, key.indexOf('/'));
  let sum = 0;
  for (const c of containers) {
    const used = usage.get(`${namespace}/${c.pod}/${c.container}`);
    if (used === undefined) return undefined;
    sum += used;
  }
  return sum;
}

/** The jobs' FlowCon inputs: containers, the newest value of their evaluation function, opt-out, CPU used. */
export function flowConJobs(input: PlanInput): FlowConJob[] {
  return input.jobs.map((e) => {
    const key = keyOf(e);
    const series = input.series(key);
    const last = latestEvaluation(series);
    const containers = containersOf(e, input.podsOf(key), input.recent?.(key));
    const used = usedByJob(key, containers, input.usage);
    return {
      key,
      containers,
      ...(used === undefined ? {} : { cpuUsedMilliSeconds: used }),
      ...(series && last
        ? { evaluation: { time: last.time, value: last.value, name: series.name, higherIsBetter: series.higherIsBetter } }
        : {}),
      ...(optedOut(e) ? { optOut: true } : {}),
    };
  });
}

export function planVertical(
  policy: Exclude<VerticalPolicy, 'none'>,
  input: PlanInput,
  config: { readonly flowcon: FlowConConfig; readonly dqoes: DqoesVerticalConfig; readonly intervalMs: number },
  state: VerticalState,
): PlanOutput {
  // SpeCon classifies and limits as FlowCon does; its migrations follow in the stage.
  if (policy === 'flowcon' || policy === 'specon') {
    const r = flowConRound({ now: input.now, jobs: flowConJobs(input), nodes: input.nodes }, state.flowcon, config.flowcon);
    const verdicts = new Map(
      r.verdicts.map((v) => {
        const verdict: JobVerdict = {
          ...(v.list === undefined ? {} : { list: v.list }),
          ...(v.growthEfficiency === undefined ? {} : { growthEfficiency: v.growthEfficiency }),
          ...(v.leftAlone === undefined ? {} : { leftAlone: v.leftAlone }),
        };
        return [v.job, verdict];
      }),
    );
    return { changes: r.changes, verdicts, flowcon: r.state, intervalMs: r.intervalMs };
  }
  const jobs = input.jobs.map((e) => {
    const key = keyOf(e);
    return {
      key,
      containers: containersOf(e, input.podsOf(key), input.recent?.(key)),
      ...qoeOf(e),
      ...(optedOut(e) ? { optOut: true } : {}),
    };
  });
  const verdicts = new Map<string, JobVerdict>(
    jobs.map((j) => [
      j.key,
      j.optOut === true
        ? { leftAlone: 'opted out (cpu-resize annotation)' }
        : j.qoeClass === undefined
          ? { leftAlone: 'no performance target (spec.qoe) classified yet' }
          : {},
    ]),
  );
  // Algorithm 2: the interval backs off while G and B converge, and resets when S loses a job.
  const interval = nextDqoesInterval(state.dqoes, jobs, {
    initialMs: config.intervalMs,
    maxMs: MAX_INTERVAL_FACTOR * config.intervalMs,
    convergingRounds: 3,
  });
  return {
    changes: dqoesVerticalRound(jobs, input.nodes, config.dqoes),
    verdicts,
    dqoes: interval.state,
    intervalMs: interval.state.intervalMs,
    ...(interval.runNow ? { runNow: true } : {}),
  };
}
