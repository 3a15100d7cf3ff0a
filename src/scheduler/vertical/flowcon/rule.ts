// FlowCon (Algorithm 1, with Algorithm 2's interval): each round, each job's growth efficiency over
// the interval just closed puts it in New / Watching / Completing, and the CPU limits of its
// containers on each node follow: New and Completing jobs get the node in proportion to their growth
// efficiency (Completing ones at least 1/(β·n) of it and never more than they have), Watching ones
// keep theirs, and when every job
// on a node is Completing all get the whole node (free competition). Pure: the caller keeps the state.
import { accrue, growthOver, nextList, type Growth } from './growth.ts';
import { byNode, changeIf, clampLimit, splitByRequest, untouchable, type ContainerCpu, type LimitChange, type NodeCpu } from '../limits.ts';
import {
  DEFAULT_FLOWCON_CONFIG,
  type FlowConConfig,
  type FlowConInput,
  type FlowConJob,
  type FlowConMemory,
  type FlowConRound,
  type FlowConState,
  type FlowConVerdict,
} from './types.ts';

export const EMPTY_FLOWCON_STATE: FlowConState = { jobs: new Map(), intervalMs: DEFAULT_FLOWCON_CONFIG.initialIntervalMs, jobSet: [] };

/** A job this round: its memory after the round and its growth if a new value closed an interval. */
interface Judged {
  readonly job: FlowConJob;
  readonly eligible: readonly ContainerCpu[];
  readonly memory: FlowConMemory;
  readonly growth?: Growth;
}

const sumLimits = (cs: readonly ContainerCpu[]) => cs.reduce((a, c) => a + c.limitMillis, 0);

function leftAloneWhy(job: FlowConJob, eligible: readonly ContainerCpu[]): string | undefined {
  if (job.optOut === true) return 'opted out (cpu-resize annotation)';
  if (job.evaluation === undefined) return 'no progress information';
  if (eligible.length === 0) return job.containers.length === 0 ? 'no running containers' : untouchable(job.containers[0]!);
  return undefined;
}

/** Folds the job's newest evaluation value into its memory (Algorithm 1 lines 2–13). */
function judge(
  job: FlowConJob,
  eligible: readonly ContainerCpu[],
  before: FlowConMemory | undefined,
  now: number,
  config: FlowConConfig,
): Judged {
  const point = job.evaluation!;
  const limitMillis = sumLimits(job.containers);
  // Where the job's CPU usage counter stands as an interval starts (the used CPU term).
  const used = job.cpuUsedMilliSeconds === undefined ? {} : { usedAtStart: job.cpuUsedMilliSeconds };
  // A new job, or a new series (another metric name): New, its first interval starts now (Algorithm 2).
  if (before === undefined || before.start.name !== point.name) {
    const memory: FlowConMemory = {
      list: 'New',
      start: point,
      startedAt: now,
      allowedMilliSeconds: 0,
      lastRoundAt: now,
      limitMillis,
      ...used,
    };
    return { job, eligible, memory };
  }
  const accrued = accrue(before, now, limitMillis);
  // No new value since the interval started (an evaluation every N steps, an epoch): the interval goes on.
  if (point.time <= before.start.time) return { job, eligible, memory: accrued };
  const growth = growthOver(accrued, point, now, job.cpuUsedMilliSeconds);
  if (growth === undefined) return { job, eligible, memory: accrued };
  const { usedAtStart: _previous, ...rest } = accrued;
  const memory: FlowConMemory = {
    ...rest,
    list: nextList(before.list, growth.perCore, config),
    start: point,
    startedAt: now,
    allowedMilliSeconds: 0,
    ...used,
  };
  return { job, eligible, memory, growth };
}

/** The memory with the limits in force once this round's changes apply: the next interval accrues at them. */
function withLimitsAfter(j: Judged, changes: readonly LimitChange[]): FlowConMemory {
  const changed = changes.filter((c) => c.job === j.job.key);
  if (changed.length === 0) return j.memory;
  const limitAfter = (c: ContainerCpu) => changed.find((x) => x.pod === c.pod && x.container === c.container)?.toMillis ?? c.limitMillis;
  return { ...j.memory, limitMillis: j.job.containers.reduce((a, c) => a + limitAfter(c), 0) };
}

function nextInterval(prev: FlowConState, jobSet: readonly string[], allCompleting: boolean, config: FlowConConfig): number {
  const same = prev.jobSet.length === jobSet.length && prev.jobSet.every((k, i) => k === jobSet[i]);
  if (!same) return config.initialIntervalMs;
  return allCompleting ? Math.min(config.maxIntervalMs, prev.intervalMs * 2) : prev.intervalMs;
}

const round3 = (x: number) => Number(x.toPrecision(3));

/** The limits of the jobs on one node (Algorithm 1 lines 14–26). */
function planNode(
  node: NodeCpu,
  here: readonly (Judged & { containers: readonly ContainerCpu[] })[],
  config: FlowConConfig,
): LimitChange[] {
  const changes: LimitChange[] = [];
  const freeForAll = here.every((j) => j.memory.list === 'Completing');
  const total = here.reduce((a, j) => a + (j.growth?.efficiency ?? 0), 0);
  for (const j of here) {
    // Watching keeps its limits; a job whose interval has not closed has no new growth to act on.
    if (j.growth === undefined || (j.memory.list === 'Watching' && !freeForAll)) continue;
    let share: number;
    let why: string;
    if (freeForAll) {
      share = 1;
      why = `every job on ${node.name} is Completing: free competition`;
    } else {
      const proportional = total > 0 ? j.growth.efficiency / total : 0;
      share = j.memory.list === 'Completing' ? Math.max(proportional, 1 / (config.beta * here.length)) : proportional;
      const per = j.growth.cpu === 'used' ? 'core used' : 'core';
      why = `${j.memory.list}, gain ${round3(j.growth.perCore)}/${per} per interval (α ${config.alpha}): ${round3(share)} of ${node.name}`;
    }
    const wants = splitByRequest(j.containers, share * node.allocatableMillis);
    // A Completing job is held, never raised (its floor may lie above a small template limit); only
    // free competition gives it more.
    const hold = j.memory.list === 'Completing' && !freeForAll;
    j.containers.forEach((c, i) => {
      const want = hold ? Math.min(c.limitMillis, wants[i]!) : wants[i]!;
      const change = changeIf(j.job.key, c, clampLimit(c, want, node), config.minStepMillis, `FlowCon: ${why}`);
      if (change) changes.push(change);
    });
  }
  return changes;
}

export function flowConRound(input: FlowConInput, previous?: FlowConState, config: FlowConConfig = DEFAULT_FLOWCON_CONFIG): FlowConRound {
  // The first round starts at the configured interval, not the default's.
  const prev = previous ?? { ...EMPTY_FLOWCON_STATE, intervalMs: config.initialIntervalMs };
  const verdicts: FlowConVerdict[] = [];
  const judged: Judged[] = [];
  for (const job of [...input.jobs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    const eligible = job.containers.filter((c) => untouchable(c) === undefined);
    const why = leftAloneWhy(job, eligible);
    if (why !== undefined) {
      verdicts.push({ job: job.key, leftAlone: why });
      continue;
    }
    const j = judge(job, eligible, prev.jobs.get(job.key), input.now, config);
    judged.push(j);
    verdicts.push({
      job: job.key,
      list: j.memory.list,
      ...(j.growth ? { growthEfficiency: j.growth.efficiency, gainPerCore: j.growth.perCore } : {}),
    });
  }
  const nodes = new Map(input.nodes.map((n) => [n.name, n]));
  const changes: LimitChange[] = [];
  for (const node of [...nodes.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const here = judged.flatMap((j) => {
      const containers = byNode(j.eligible).get(node.name);
      return containers === undefined ? [] : [{ ...j, containers }];
    });
    if (here.length > 0) changes.push(...planNode(node, here, config));
  }
  const jobSet = judged.map((j) => j.job.key);
  const memories = new Map(judged.map((j) => [j.job.key, withLimitsAfter(j, changes)]));
  const allCompleting = judged.length > 0 && judged.every((j) => j.memory.list === 'Completing');
  const intervalMs = nextInterval(prev, jobSet, allCompleting, config);
  const state: FlowConState = { jobs: memories, intervalMs, jobSet };
  return { state, changes, verdicts, intervalMs };
}
