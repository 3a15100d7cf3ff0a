// One vertical round in the simulator: the SAME rules the operator's vertical stage runs
// (src/scheduler/vertical), on the simulator's containers, evaluation lines and measured step rates.
// SpeCon (`specon`) is FlowCon's round here, as in the operator; its verdicts then feed the migration
// rule (migration.ts), whose moves cpu-sim.ts applies as a relocation (scale-in `relocated` + scale-out).
import { dqoesVerticalRound, nextDqoesInterval, type DqoesIntervalState } from '../../../src/scheduler/vertical/dqoes/index.ts';
import { DEFAULT_DQOES_VERTICAL_CONFIG } from '../../../src/scheduler/vertical/dqoes/rule.ts';
import {
  DEFAULT_FLOWCON_CONFIG,
  flowConRound,
  splitByRequest,
  clampLimit,
  type FlowConJob,
  type FlowConState,
  type FlowConVerdict,
  type LimitChange,
  type NodeCpu,
} from '../../../src/scheduler/vertical/flowcon/index.ts';
import { readQoe } from '../../../src/scheduler/model/qoe.ts';
import type { ClusterState } from '../state.ts';
import type { SimContainer } from './containers.ts';
import { MAX_INTERVAL_FACTOR, RUN_NOW_SECONDS, type CpuModelOptions } from './options.ts';

export interface RuleState {
  readonly flowcon?: FlowConState;
  readonly dqoes?: DqoesIntervalState;
}

export interface RoundResult {
  readonly changes: readonly LimitChange[];
  readonly state: RuleState;
  /** Seconds until the next round. */
  readonly nextInSeconds: number;
  /** FlowCon's verdict per job (FlowCon and SpeCon rounds): SpeCon's input. */
  readonly verdicts?: readonly FlowConVerdict[];
}

function byJob(containers: readonly SimContainer[]): Map<string, SimContainer[]> {
  const out = new Map<string, SimContainer[]>();
  for (const c of containers) out.set(c.job.spec.key, [...(out.get(c.job.spec.key) ?? []), c]);
  return out;
}

/** The rule's view of a container: without the simulator's extra fields. */
const plain = ({ job: _job, demandMillis: _demand, replicaType: _type, index: _index, ...c }: SimContainer) => c;

function flowcon(
  containers: readonly SimContainer[],
  nodes: readonly NodeCpu[],
  now: number,
  state: RuleState,
  options: CpuModelOptions,
  cpuUsedSeconds: ReadonlyMap<string, number>,
): RoundResult {
  const intervalMs = options.intervalSeconds * 1000;
  const config = {
    ...DEFAULT_FLOWCON_CONFIG,
    initialIntervalMs: intervalMs,
    maxIntervalMs: MAX_INTERVAL_FACTOR * intervalMs,
    ...options.flowcon,
  };
  const jobs: FlowConJob[] = [...byJob(containers).values()].map((cs) => {
    const job = cs[0]!.job;
    const last = job.signal.lastPrinted;
    const used = options.flowconCpu === 'used' ? cpuUsedSeconds.get(job.workload.name) : undefined;
    return {
      key: job.spec.key,
      containers: cs.map(plain),
      ...(used === undefined ? {} : { cpuUsedMilliSeconds: used * 1000 }),
      ...(last?.time === undefined
        ? {}
        : { evaluation: { time: last.time, value: last.value, name: last.name, higherIsBetter: last.higherIsBetter } }),
    };
  });
  const r = flowConRound({ now: now * 1000, jobs, nodes }, state.flowcon, config);
  return { changes: r.changes, state: { ...state, flowcon: r.state }, nextInSeconds: r.intervalMs / 1000, verdicts: r.verdicts };
}

function dqoes(
  cluster: ClusterState,
  containers: readonly SimContainer[],
  nodes: readonly NodeCpu[],
  now: number,
  state: RuleState,
  options: CpuModelOptions,
): RoundResult {
  const snapshot = new Map(cluster.snapshot(now).jobs.map((j) => [j.spec.key, j]));
  const jobs = [...byJob(containers).entries()].map(([key, cs]) => {
    const seen = snapshot.get(key);
    const reading = seen === undefined ? undefined : readQoe(seen, now * 1000);
    // The distance the operator reads from status.qoe: |measured / required − 1|.
    const distance =
      reading?.measured !== undefined && reading.required !== undefined && reading.required > 0
        ? Math.abs(reading.measured / reading.required - 1)
        : undefined;
    return {
      key,
      containers: cs.map(plain),
      ...(reading === undefined ? {} : { qoeClass: reading.class }),
      ...(distance === undefined ? {} : { distance }),
    };
  });
  const intervalMs = options.intervalSeconds * 1000;
  const interval = nextDqoesInterval(state.dqoes, jobs, {
    initialMs: intervalMs,
    maxMs: MAX_INTERVAL_FACTOR * intervalMs,
    convergingRounds: 3,
  });
  const changes = dqoesVerticalRound(jobs, nodes, { ...DEFAULT_DQOES_VERTICAL_CONFIG, ...options.dqoes });
  return {
    changes,
    state: { ...state, dqoes: interval.state },
    nextInSeconds: interval.runNow ? RUN_NOW_SECONDS : interval.state.intervalMs / 1000,
  };
}

/** Static equal limits: a container seen for the first time gets its job's 1/n of the node, n the jobs there now. */
function equal(
  containers: readonly SimContainer[],
  nodes: readonly NodeCpu[],
  known: ReadonlySet<string>,
  options: CpuModelOptions,
): RoundResult {
  const changes: LimitChange[] = [];
  for (const node of nodes) {
    const here = containers.filter((c) => c.node === node.name);
    const jobs = byJob(here);
    for (const [key, cs] of jobs) {
      const fresh = cs.filter((c) => !known.has(c.pod));
      if (fresh.length === 0) continue;
      const wants = splitByRequest(cs, node.allocatableMillis / jobs.size);
      cs.forEach((c, i) => {
        if (known.has(c.pod)) return;
        changes.push({
          job: key,
          pod: c.pod,
          container: c.container,
          node: c.node,
          fromMillis: c.limitMillis,
          toMillis: clampLimit(c, wants[i]!, node),
          reason: 'static equal share',
        });
      });
    }
  }
  return { changes, state: {}, nextInSeconds: options.intervalSeconds };
}

export function verticalRound(
  cluster: ClusterState,
  containers: readonly SimContainer[],
  nodes: readonly NodeCpu[],
  now: number,
  state: RuleState,
  known: ReadonlySet<string>,
  options: CpuModelOptions,
  /** CPU-seconds each job (by workload name) has used so far: FlowCon's `used` CPU term. */
  cpuUsedSeconds: ReadonlyMap<string, number> = new Map(),
): RoundResult {
  switch (options.arm) {
    case 'none':
      // Nothing to decide: no timed rounds, so no extra events (and scheduling passes) either.
      return { changes: [], state, nextInSeconds: Number.POSITIVE_INFINITY };
    case 'equal':
      return equal(containers, nodes, known, options);
    case 'flowcon':
    case 'specon':
      return flowcon(containers, nodes, now, state, options, cpuUsedSeconds);
    case 'dqoes':
      return dqoes(cluster, containers, nodes, now, state, options);
  }
}
