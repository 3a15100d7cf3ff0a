// The simulator's CPU model and vertical rules, driven by the engine (engine.ts `cpu` option): limits
// in force per container, the node's CPU shared among its containers (contention.ts), each job's rate
// scaled by the CPU it gets, a vertical round every interval (or when the running jobs change, as the
// operator's stage does), and the time each targeted job spends Ahead / Satisfied / Behind. Under
// `specon` the round's FlowCon verdicts then feed SpeCon, whose moves relocate workers (migration.ts).
import type { FlowConVerdict, NodeCpu } from '../../../src/scheduler/vertical/flowcon/index.ts';
import { progressRate } from '../../workloads/throughput.ts';
import type { ClusterState, SimJob } from '../state.ts';
import { PS } from '../state.ts';
import { asyncCpuSpeedFactor, cpuSpeedFactor, shareNodeCpu } from './contention.ts';
import { boundContainers, nodeCpuMillis, runningContainers, type SimContainer } from './containers.ts';
import { SimSpecon, type MigrationAt } from './migration.ts';
import type { CpuModelOptions } from './options.ts';
import { verticalRound, type RuleState } from './vertical-rules.ts';

export type QoeSet = 'Ahead' | 'Satisfied' | 'Behind';

export interface CpuJobOutcome {
  readonly name: string;
  /** Seconds running in each of DQoES's sets by its true rate against its throughput target; null without one. */
  readonly qoeSeconds: Readonly<Record<QoeSet, number>> | null;
  /** CPU-seconds (millicore-seconds / 1000) it got. */
  readonly cpuSeconds: number;
}

export interface LimitChangeAt {
  /** Simulated seconds. */
  readonly t: number;
  readonly container: string;
  readonly fromMillis: number;
  readonly toMillis: number;
  readonly reason: string;
}

export interface CpuOutcome {
  readonly rounds: number;
  readonly limitChanges: number;
  /** Every limit a rule set, in order (the study's limit-over-time trace). */
  readonly changes: readonly LimitChangeAt[];
  /** SpeCon's moves, in order (empty for the other arms). */
  readonly migrations: readonly MigrationAt[];
  /** SpeCon's refusals by reason: how often a slow job on a contended node could not move, and why. */
  readonly migrationRefusals: ReadonlyMap<string, number>;
  readonly jobs: readonly CpuJobOutcome[];
}

/** True rate vs throughput target with the job's tolerance; undefined without such a target. */
function qoeSet(job: SimJob): QoeSet | undefined {
  const target = job.workload.qoe;
  if (target?.stepsPerSecond === undefined || job.phase !== 'running') return undefined;
  const gap = job.rate / target.stepsPerSecond - 1;
  return gap > target.tolerance ? 'Ahead' : gap < -target.tolerance ? 'Behind' : 'Satisfied';
}

export class CpuSimulation {
  readonly #options: CpuModelOptions;
  readonly #startupSeconds: number;
  /** Limits set by a rule, by container (pod name); a re-created pod starts from its template again. */
  #limits = new Map<string, number>();
  readonly #known = new Set<string>();
  #rules: RuleState = {};
  #nextRoundAt = 0;
  #lastJobSet = '';
  #rounds = 0;
  readonly #changes: LimitChangeAt[] = [];
  readonly #qoe = new Map<string, Record<QoeSet, number>>();
  readonly #cpu = new Map<string, number>();
  /** CPU each running job gets now (millicores), from the last rescale. */
  #gotNow = new Map<string, number>();
  readonly #specon: SimSpecon | undefined;

  constructor(options: CpuModelOptions, startupSeconds: number) {
    this.#options = options;
    this.#startupSeconds = startupSeconds;
    this.#specon = options.arm === 'specon' ? new SimSpecon(options, startupSeconds) : undefined;
  }

  /** The next round, in simulated seconds. */
  nextRoundAt(): number {
    return this.#nextRoundAt;
  }

  /** Credits `dt` seconds at the rates and shares in force (before the clock moves). */
  account(state: ClusterState, dt: number): void {
    if (dt <= 0) return;
    for (const job of state.jobs) {
      const set = qoeSet(job);
      if (set !== undefined) {
        const t = this.#qoe.get(job.workload.name) ?? { Ahead: 0, Satisfied: 0, Behind: 0 };
        t[set] += dt;
        this.#qoe.set(job.workload.name, t);
      }
      const got = this.#gotNow.get(job.workload.name);
      if (got !== undefined && job.phase === 'running')
        this.#cpu.set(job.workload.name, (this.#cpu.get(job.workload.name) ?? 0) + (got * dt) / 1000);
    }
  }

  #containers(state: ClusterState, now: number): SimContainer[] {
    return runningContainers(state, now, this.#startupSeconds, this.#limits, this.#options);
  }

  /** Every running job's rate: its placement's rate × the share of its demand its slowest container gets. */
  rescale(state: ClusterState, now: number): void {
    const containers = this.#containers(state, now);
    const got = new Map<string, number>();
    for (const node of new Set(containers.map((c) => c.node))) {
      const here = containers.filter((c) => c.node === node);
      const claims = here.map((c) => ({
        id: c.pod,
        requestMillis: c.requestMillis,
        limitMillis: c.limitMillis,
        demandMillis: c.demandMillis,
      }));
      for (const [id, m] of shareNodeCpu(nodeCpuMillis(state, node), claims)) got.set(id, m);
    }
    this.#gotNow = new Map();
    for (const job of state.jobs) {
      if (job.phase !== 'running') continue;
      const mine = containers.filter((c) => c.job === job);
      const base = progressRate(job.workload, state.readyPlacement(job, now, this.#startupSeconds));
      job.rate = base * this.#speedFactor(mine, got);
      this.#gotNow.set(
        job.workload.name,
        mine.reduce((a, c) => a + (got.get(c.pod) ?? 0), 0),
      );
    }
  }

  #speedFactor(mine: readonly SimContainer[], got: ReadonlyMap<string, number>): number {
    const share = (c: SimContainer) => ({ gotMillis: got.get(c.pod) ?? 0, demandMillis: c.demandMillis });
    if (this.#options.asyncWorkers !== true) return cpuSpeedFactor(mine.map(share));
    const isPs = (c: SimContainer) => c.replicaType === PS;
    return asyncCpuSpeedFactor(mine.filter(isPs).map(share), mine.filter((c) => !isPs(c)).map(share));
  }

  /** Runs the vertical round if due (interval passed or the running jobs changed); true if a limit changed or a worker moved. */
  roundIfDue(state: ClusterState, now: number): boolean {
    const containers = this.#containers(state, now);
    const jobSet = [...new Set(containers.map((c) => c.job.spec.key))].sort().join(',');
    if (now < this.#nextRoundAt - 1e-9 && jobSet === this.#lastJobSet) return false;
    this.#lastJobSet = jobSet;
    // Limits of containers that are gone go with their pods.
    const live = new Set(containers.map((c) => c.pod));
    this.#limits = new Map([...this.#limits].filter(([pod]) => live.has(pod)));
    const nodes: NodeCpu[] = [...new Set(containers.map((c) => c.node))]
      .sort()
      .map((name) => ({ name, allocatableMillis: nodeCpuMillis(state, name) }));
    const r = verticalRound(state, containers, nodes, now, this.#rules, this.#known, this.#options, this.#cpu);
    for (const c of containers) this.#known.add(c.pod);
    this.#rules = r.state;
    this.#nextRoundAt = now + r.nextInSeconds;
    this.#rounds += 1;
    for (const change of r.changes) {
      this.#limits.set(change.pod, change.toMillis);
      this.#changes.push({
        t: now,
        container: change.pod,
        fromMillis: change.fromMillis,
        toMillis: change.toMillis,
        reason: change.reason,
      });
    }
    return this.#migrate(state, now, r.verdicts ?? []) || r.changes.length > 0;
  }

  /** SpeCon after FlowCon, as the operator's stage: on the containers the kubelet runs, with this round's limits. */
  #migrate(state: ClusterState, now: number, verdicts: readonly FlowConVerdict[]): boolean {
    if (this.#specon === undefined) return false;
    const moves = this.#specon.round(state, boundContainers(state, this.#limits, this.#options), verdicts, now);
    // The replacement is a new pod from the job's template: no limit a rule set on the old one.
    for (const m of moves) {
      this.#limits.delete(m.pod);
      this.#known.delete(m.pod);
    }
    return moves.length > 0;
  }

  outcome(state: ClusterState): CpuOutcome {
    return {
      rounds: this.#rounds,
      limitChanges: this.#changes.length,
      changes: this.#changes,
      migrations: this.#specon?.moves ?? [],
      migrationRefusals: this.#specon?.refusals ?? new Map(),
      jobs: state.jobs.map((job) => ({
        name: job.workload.name,
        qoeSeconds:
          job.workload.qoe?.stepsPerSecond === undefined
            ? null
            : (this.#qoe.get(job.workload.name) ?? { Ahead: 0, Satisfied: 0, Behind: 0 }),
        cpuSeconds: this.#cpu.get(job.workload.name) ?? 0,
      })),
    };
  }
}
