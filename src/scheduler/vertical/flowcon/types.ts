// FlowCon's inputs, memory and outputs (docs/scheduling.md, "FlowCon and DQoES vertical").
import type { ContainerCpu, LimitChange, NodeCpu } from '../limits.ts';

/** FlowCon's three lists: young and growing fast, near convergence, converging. */
export type FlowConList = 'New' | 'Watching' | 'Completing';

/** One value of the job's evaluation function (its tracked metric or loss) and when it was measured. */
export interface EvaluationPoint {
  /** ms since the epoch. */
  readonly time: number;
  readonly value: number;
  readonly name: string;
  readonly higherIsBetter: boolean;
}

export interface FlowConJob {
  /** namespace/name of the TFJob. */
  readonly key: string;
  /** Its running containers a limit may be set on (all of them: the CPU it was allowed counts them all). */
  readonly containers: readonly ContainerCpu[];
  /** The latest value of its evaluation function; undefined: no progress information (left alone). */
  readonly evaluation?: EvaluationPoint;
  /** The job opted out (its cpu-resize annotation is "false"). */
  readonly optOut?: boolean;
  /**
   * CPU its containers have used so far, in millicore-seconds: a counter that only grows (the cgroup's
   * usage). Given, growth is per CPU-second used, as the paper measures it; else per CPU-second allowed.
   */
  readonly cpuUsedMilliSeconds?: number;
}

export interface FlowConInput {
  /** ms since the epoch (the caller's clock). */
  readonly now: number;
  readonly jobs: readonly FlowConJob[];
  readonly nodes: readonly NodeCpu[];
}

export interface FlowConConfig {
  /** α: a job whose relative gain per core over an interval is below it is slowing (paper: 5 % or 10 %). */
  readonly alpha: number;
  /** β: a Completing job keeps at least 1/(β·n) of its node, n the jobs there (Algorithm 1 line 22). */
  readonly beta: number;
  /** itval: the first interval; it doubles while every job is Completing, up to maxIntervalMs. */
  readonly initialIntervalMs: number;
  readonly maxIntervalMs: number;
  /** Changes smaller than this are not made (each one is an API write and an Event). */
  readonly minStepMillis: number;
}

export const DEFAULT_FLOWCON_CONFIG: FlowConConfig = {
  alpha: 0.05,
  beta: 2,
  initialIntervalMs: 20_000,
  maxIntervalMs: 320_000,
  minStepMillis: 50,
};

/** What FlowCon remembers of a job between rounds. */
export interface FlowConMemory {
  readonly list: FlowConList;
  /** The evaluation value at the start of the current interval. */
  readonly start: EvaluationPoint;
  /** The round at which `start` was taken. */
  readonly startedAt: number;
  /** CPU the job was allowed since startedAt (its limits × time), in millicore-seconds. */
  readonly allowedMilliSeconds: number;
  /** The job's CPU usage counter at startedAt, when it reports one. */
  readonly usedAtStart?: number;
  /** The last round and the sum of the job's limits then (the rate at which allowed CPU accrues since). */
  readonly lastRoundAt: number;
  readonly limitMillis: number;
}

export interface FlowConState {
  readonly jobs: ReadonlyMap<string, FlowConMemory>;
  readonly intervalMs: number;
  /** The jobs of the last round, sorted: a change resets the interval (Algorithm 2). */
  readonly jobSet: readonly string[];
}

/** Where a job stands after a round, for the status and the log. */
export interface FlowConVerdict {
  readonly job: string;
  readonly list?: FlowConList;
  /** Relative gain of the evaluation function per CPU-second over the interval just closed. */
  readonly growthEfficiency?: number;
  /** The same gain per core over the interval: what α is compared with. */
  readonly gainPerCore?: number;
  /** Set when the job is left alone: why. */
  readonly leftAlone?: string;
}

export interface FlowConRound {
  readonly state: FlowConState;
  readonly changes: readonly LimitChange[];
  readonly verdicts: readonly FlowConVerdict[];
  /** When the next round is due, from now. */
  readonly intervalMs: number;
}
