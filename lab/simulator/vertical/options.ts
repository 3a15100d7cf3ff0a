// What the simulator's CPU model and vertical rules are told (docs/simulation-results.md §9).
import type { DqoesVerticalConfig } from '../../../src/scheduler/vertical/dqoes/index.ts';
import type { FlowConConfig } from '../../../src/scheduler/vertical/flowcon/index.ts';
import type { SpeconConfig } from '../../../src/scheduler/vertical/specon/index.ts';

/**
 * The vertical arm: `none` (no allocation: every container keeps its template limit), `equal` (static
 * equal limits: a container's first round sets its job's limit on the node to the node's CPU over the
 * jobs there then, never changed afterwards), or a rule of src/scheduler/vertical. `specon` is the
 * operator's `--vertical-policy specon`: FlowCon's limits, then SpeCon's moves (migration.ts).
 */
export const VERTICAL_ARMS = ['none', 'equal', 'flowcon', 'dqoes', 'specon'] as const;
export type VerticalArm = (typeof VERTICAL_ARMS)[number];

export const FLOWCON_CPU = ['allowed', 'used'] as const;
export type FlowConCpu = (typeof FLOWCON_CPU)[number];

export interface CpuModelOptions {
  readonly arm: VerticalArm;
  /** The rule's first interval (FlowCon's itval, DQoES's interval), simulated seconds. */
  readonly intervalSeconds: number;
  /** What a worker container would use unconstrained: this × its CPU request. */
  readonly workerDemandFactor: number;
  /** The same for a PS container. */
  readonly psDemandFactor: number;
  /** The template's CPU limit: this × the request; undefined: the node's allocatable CPU (burstable to the node). */
  readonly limitFactor?: number;
  readonly flowcon?: Partial<FlowConConfig>;
  /**
   * FlowCon's CPU term: `allowed` (limits × time, what the operator's stage feeds it today) or `used`
   * (each job's CPU usage counter, the paper's measured usage). Default `allowed`.
   */
  readonly flowconCpu?: FlowConCpu;
  readonly dqoes?: Partial<DqoesVerticalConfig>;
  /**
   * Workers add up (asynchronous PS training): a job's speed is the mean of its workers' CPU shares
   * (each computes on its own), capped by its slowest PS. Default: the slowest container (a
   * synchronous step). Only such a job may have a worker moved (SpeCon's elastic, not-all-workers rule).
   */
  readonly asyncWorkers?: boolean;
  /** SpeCon: seconds a moved worker does no work, from its deletion to training on the target (default 30). */
  readonly restartSeconds?: number;
  readonly specon?: Partial<SpeconConfig>;
}

/** The longest interval a rule backs off to, as a multiple of the first (the operator's stage: 16). */
export const MAX_INTERVAL_FACTOR = 16;

/** A moved worker's restart: TensorFlow's start-up on this project's host took 20–60 s (docs/vertical-real-results.md). */
export const DEFAULT_RESTART_SECONDS = 30;

/** DQoES's "stable state broke, run at once": the operator stage's next check, 2 s later. */
export const RUN_NOW_SECONDS = 2;
