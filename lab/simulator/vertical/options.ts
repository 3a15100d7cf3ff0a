// What the simulator's CPU model and vertical rules are told (docs/simulation-results.md §9).
import type { DqoesVerticalConfig } from '../../../src/scheduler/vertical/dqoes/index.ts';
import type { FlowConConfig } from '../../../src/scheduler/vertical/flowcon/index.ts';

/**
 * The vertical arm: `none` (no allocation: every container keeps its template limit), `equal` (static
 * equal limits: a container's first round sets its job's limit on the node to the node's CPU over the
 * jobs there then, never changed afterwards), or a rule of src/scheduler/vertical. A migration rule
 * (SpeCon) would be one more arm whose round returns moves as well as limits (vertical-rules.ts).
 */
export const VERTICAL_ARMS = ['none', 'equal', 'flowcon', 'dqoes'] as const;
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
}

/** The longest interval a rule backs off to, as a multiple of the first (the operator's stage: 16). */
export const MAX_INTERVAL_FACTOR = 16;

/** DQoES's "stable state broke, run at once": the operator stage's next check, 2 s later. */
export const RUN_NOW_SECONDS = 2;
