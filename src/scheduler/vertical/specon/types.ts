// SpeCon's inputs, memory and outputs (docs/scheduling.md §8, "SpeCon").
import type { FlowConVerdict } from '../flowcon/types.ts';
import type { NodeInfo, PlacementConstraints, Resources } from '../../types.ts';

/** A node as kube-scheduler's NodeResourcesFit sees it, plus the CPU its containers may use. */
export interface SpeconNode {
  readonly info: NodeInfo;
  /** Requests of every pod bound there or on its way (in-flight creates included). */
  readonly requested: Resources;
  /** CPU the containers there may use (the sum of their limits, at least the CPU requested). */
  readonly usedCpuMillis: number;
}

/** One running replica of a job that could be re-created elsewhere. */
export interface SpeconReplica {
  readonly pod: string;
  /** Replica index (a worker's slot: its TF_CONFIG is the same wherever it runs). */
  readonly index: number;
  readonly node: string;
  readonly requests: Resources;
  readonly constraints: PlacementConstraints;
  /** Its CPU limit: what it stops using on `node` and may use on the target. */
  readonly cpuLimitMillis: number;
}

export interface SpeconJob {
  readonly key: string;
  /** FlowCon's verdict on the job this round: its list (New / Watching / Completing) and growth efficiency. */
  readonly flowcon: FlowConVerdict;
  /** Nodes the job runs containers on (a fast job there may be CPU-constrained). */
  readonly nodes: readonly string[];
  /** Replicas that survive a move (workers of a checkpointing, elastic job); empty when none. */
  readonly movable: readonly SpeconReplica[];
  /** Set when the job may not be moved at all: why (opted out, not elastic, ...). */
  readonly notMovable?: string;
}

export interface SpeconInput {
  /** ms since the epoch (the caller's clock). */
  readonly now: number;
  readonly nodes: readonly SpeconNode[];
  readonly jobs: readonly SpeconJob[];
}

export interface SpeconConfig {
  /** A node is contended when the CPU its containers may use reaches this fraction of its allocatable. */
  readonly contendedFraction: number;
  /** A job moved is not moved again for this long (a move costs a restart from the checkpoint). */
  readonly cooldownMs: number;
  /** At most this many moves in one round. */
  readonly maxMovesPerRound: number;
}

export const DEFAULT_SPECON_CONFIG: SpeconConfig = { contendedFraction: 1, cooldownMs: 10 * 60_000, maxMovesPerRound: 1 };

/** What SpeCon remembers between rounds: when it last moved each job. */
export interface SpeconState {
  readonly lastMovedAt: ReadonlyMap<string, number>;
}

export const EMPTY_SPECON_STATE: SpeconState = { lastMovedAt: new Map() };

/** One planned move: the replica is deleted on `from` and re-created on `to`. */
export interface Migration {
  readonly job: string;
  readonly pod: string;
  readonly index: number;
  readonly from: string;
  readonly to: string;
  /** Why, in words (for the Event and the status). */
  readonly reason: string;
}

/** A slow job on a contended node that SpeCon would have moved but did not: why. */
export interface MigrationRefusal {
  readonly job: string;
  readonly node: string;
  readonly why: string;
}

export interface SpeconRound {
  readonly migrations: readonly Migration[];
  readonly refusals: readonly MigrationRefusal[];
  readonly state: SpeconState;
}
