// SpeCon in the simulator (`specon` arm): after FlowCon's round, the SAME migration rule the operator
// runs (src/scheduler/vertical/specon) on what the operator's caches would show, and each move carried
// out as the operator does: the worker is deleted on its node and re-created at the same index on the
// target, where it does no work for the restart (start-up, joining its PS) before it trains again.
import type { Plan, Resources } from '../../../src/scheduler/types.ts';
import type { FlowConVerdict } from '../../../src/scheduler/vertical/flowcon/index.ts';
import {
  DEFAULT_SPECON_CONFIG,
  EMPTY_SPECON_STATE,
  speconRound,
  type Migration,
  type SpeconInput,
  type SpeconJob,
  type SpeconNode,
  type SpeconState,
} from '../../../src/scheduler/vertical/specon/index.ts';
import { addResources } from '../../workloads/resources.ts';
import type { ClusterState } from '../state.ts';
import { WORKER } from '../state.ts';
import type { SimContainer } from './containers.ts';
import { DEFAULT_RESTART_SECONDS, type CpuModelOptions } from './options.ts';

/** One move carried out, in simulated seconds. */
export interface MigrationAt extends Migration {
  readonly t: number;
}

/** Why no worker of the job may move (the operator's notMovableWhy), or undefined. */
function notMovableWhy(options: CpuModelOptions): string | undefined {
  return options.asyncWorkers === true ? undefined : 'its training style waits for every worker';
}

/** Each job's FlowCon verdict, its nodes and the workers that survive a move (never worker 0: the chief). */
export function speconJobs(bound: readonly SimContainer[], verdicts: readonly FlowConVerdict[], options: CpuModelOptions): SpeconJob[] {
  const byJob = new Map<string, SimContainer[]>();
  for (const c of bound) byJob.set(c.job.spec.key, [...(byJob.get(c.job.spec.key) ?? []), c]);
  const why = notMovableWhy(options);
  return [...byJob].map(([key, cs]) => ({
    key,
    flowcon: verdicts.find((v) => v.job === key) ?? { job: key },
    nodes: [...new Set(cs.map((c) => c.node))],
    movable:
      why !== undefined
        ? []
        : cs
            .filter((c) => c.replicaType === WORKER && c.index > 0)
            .map((c) => ({
              pod: c.pod,
              index: c.index,
              node: c.node,
              requests: c.job.workload.workers.requests,
              constraints: {},
              cpuLimitMillis: c.limitMillis,
            })),
    ...(why === undefined ? {} : { notMovable: why }),
  }));
}

/** Every node: requests of the pods bound there, and the CPU its containers may use (requests plus limits above them). */
export function speconNodes(state: ClusterState, bound: readonly SimContainer[]): SpeconNode[] {
  return state.nodes.map((info) => {
    let requested: Resources = {};
    let headroom = 0;
    for (const job of state.jobs) {
      if (job.phase !== 'running') continue;
      for (const r of job.replicas.values()) if (r.node === info.name) requested = addResources(requested, r.requests);
    }
    for (const c of bound) if (c.node === info.name) headroom += Math.max(0, c.limitMillis - c.requestMillis);
    return { info, requested, usedCpuMillis: (requested['cpu'] ?? 0) + headroom };
  });
}

/** The move as the core's relocation: the worker leaves (scale-in `relocated`) and comes back on the target. */
export function relocationPlan(m: Migration): Plan {
  const replica = { type: WORKER, index: m.index };
  return {
    suspend: [],
    admit: [],
    scaleIn: [{ job: m.job, remove: [{ ...replica, node: m.from }], forJob: m.job, relocated: true }],
    scaleOut: [{ job: m.job, add: [{ ...replica, node: m.to }] }],
    bind: [],
    waiting: [],
    weights: {},
  };
}

/**
 * Applies the move at `now`. The re-created worker is bound at once; its start-up is shifted so that
 * it is ready `restartSeconds` from now (the engine counts readiness as bound + start-up).
 */
export function applyMigration(state: ClusterState, m: Migration, now: number, startupSeconds: number, restartSeconds: number): void {
  state.apply(relocationPlan(m), now);
  const job = state.jobs.find((j) => j.spec.key === m.job);
  const replica = [...(job?.replicas.values() ?? [])].find((r) => r.type === WORKER && r.index === m.index);
  if (replica === undefined || replica.node !== m.to) throw new Error(`SpeCon move of ${m.pod} to ${m.to} was not applied`);
  replica.boundAt = now + restartSeconds - startupSeconds;
}

/** A refusal's reason without node, pod and time: what a tally counts. */
export function refusalKind(why: string): string {
  if (why.startsWith('in its cooldown')) return 'in its cooldown';
  if (why.startsWith('no worker on')) return 'no movable worker on that node';
  const list = /^no node takes \S+ \((.*)\)$/.exec(why)?.[1];
  if (list === undefined) return why;
  return `no node takes it: ${[...new Set(list.split('; ').map((x) => x.replace(/^[^:]+: /, '')))].join(', ')}`;
}

/** SpeCon's memory between rounds and the moves made. */
export class SimSpecon {
  readonly #options: CpuModelOptions;
  readonly #startupSeconds: number;
  #state: SpeconState = EMPTY_SPECON_STATE;
  readonly moves: MigrationAt[] = [];
  /** Moves the rule would have made but could not, by reason (node and pod names left out). */
  readonly refusals = new Map<string, number>();

  constructor(options: CpuModelOptions, startupSeconds: number) {
    this.#options = options;
    this.#startupSeconds = startupSeconds;
  }

  /** Plans this round's moves on `bound` (limits as this round left them) and applies them; returns them. */
  round(state: ClusterState, bound: readonly SimContainer[], verdicts: readonly FlowConVerdict[], now: number): readonly Migration[] {
    const input: SpeconInput = { now: now * 1000, nodes: speconNodes(state, bound), jobs: speconJobs(bound, verdicts, this.#options) };
    const r = speconRound(input, this.#state, { ...DEFAULT_SPECON_CONFIG, ...this.#options.specon });
    this.#state = r.state;
    for (const refusal of r.refusals) this.refusals.set(refusalKind(refusal.why), (this.refusals.get(refusalKind(refusal.why)) ?? 0) + 1);
    const restart = this.#options.restartSeconds ?? DEFAULT_RESTART_SECONDS;
    for (const m of r.migrations) {
      applyMigration(state, m, now, this.#startupSeconds, restart);
      this.moves.push({ ...m, t: now });
    }
    return r.migrations;
  }
}
