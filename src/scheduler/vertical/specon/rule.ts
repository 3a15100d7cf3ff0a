// SpeCon's rule: on a node where a faster-growing job is CPU-constrained (the CPU its containers may
// use reaches the node's allocatable), one worker of a slow-growing job there (FlowCon's Completing
// list) is re-created on another node where kube-scheduler would accept it and it is not contended
// itself, freeing its share for the fast job. The growth classification is FlowCon's, not redone
// here. A moved job waits out a cooldown; a round moves at most a few workers. Pure.
import { nodeFeasibility } from '../../model/feasibility.ts';
import { CPU, fitsIn, subtractResources, addResources } from '../../model/resources.ts';
import type { Resources } from '../../types.ts';
import {
  DEFAULT_SPECON_CONFIG,
  EMPTY_SPECON_STATE,
  type Migration,
  type MigrationRefusal,
  type SpeconConfig,
  type SpeconInput,
  type SpeconJob,
  type SpeconNode,
  type SpeconReplica,
  type SpeconRound,
  type SpeconState,
} from './types.ts';

/** A node's figures as the round goes: each planned move takes room on its target and gives CPU back at its source. */
interface Room {
  readonly node: SpeconNode;
  requested: Resources;
  usedCpuMillis: number;
}

const allocatableCpu = (r: Room) => r.node.info.allocatable[CPU] ?? 0;
const contended = (r: Room, config: SpeconConfig) => r.usedCpuMillis >= config.contendedFraction * allocatableCpu(r);
const efficiencyOf = (j: SpeconJob) => j.flowcon.growthEfficiency ?? 0;
const isSlow = (j: SpeconJob) => j.flowcon.list === 'Completing';
const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const round3 = (x: number) => Number(x.toPrecision(3));

/** The fastest-growing job on the node that is not converging, if any grows faster than `slow`. */
function constrainedFastJob(jobs: readonly SpeconJob[], node: string, slow: SpeconJob): SpeconJob | undefined {
  const fast = jobs
    .filter((j) => j.key !== slow.key && j.nodes.includes(node) && j.flowcon.list !== undefined && !isSlow(j))
    .filter((j) => efficiencyOf(j) > efficiencyOf(slow))
    .sort((a, b) => efficiencyOf(b) - efficiencyOf(a) || byName(a.key, b.key));
  return fast[0];
}

/** Why the replica cannot go to `target`, or undefined when it can (and the target stays uncontended). */
function unfitWhy(replica: SpeconReplica, target: Room, config: SpeconConfig): string | undefined {
  const infeasible = nodeFeasibility(target.node.info, replica.constraints);
  if (infeasible !== undefined) return infeasible;
  if (!fitsIn(replica.requests, subtractResources(target.node.info.allocatable, target.requested))) return 'requests do not fit';
  const after = { ...target, usedCpuMillis: target.usedCpuMillis + replica.cpuLimitMillis };
  if (contended(after, config)) return 'would be contended there';
  return undefined;
}

/** The roomiest node (most CPU left to use) the replica may go to, or why there is none. */
function chooseTarget(replica: SpeconReplica, rooms: ReadonlyMap<string, Room>, config: SpeconConfig): Room | string {
  const whys: string[] = [];
  const fitting: Room[] = [];
  for (const [name, room] of rooms) {
    if (name === replica.node) continue;
    const why = unfitWhy(replica, room, config);
    if (why === undefined) fitting.push(room);
    else whys.push(`${name}: ${why}`);
  }
  fitting.sort(
    (a, b) => allocatableCpu(b) - b.usedCpuMillis - (allocatableCpu(a) - a.usedCpuMillis) || byName(a.node.info.name, b.node.info.name),
  );
  return fitting[0] ?? (whys.length === 0 ? 'no other node' : `no node takes ${replica.pod} (${whys.join('; ')})`);
}

function move(replica: SpeconReplica, from: Room, to: Room): void {
  from.requested = subtractResources(from.requested, replica.requests);
  from.usedCpuMillis -= replica.cpuLimitMillis;
  to.requested = addResources(to.requested, replica.requests);
  to.usedCpuMillis += replica.cpuLimitMillis;
}

export function speconRound(
  input: SpeconInput,
  previous: SpeconState = EMPTY_SPECON_STATE,
  config: SpeconConfig = DEFAULT_SPECON_CONFIG,
): SpeconRound {
  const rooms = new Map(
    [...input.nodes]
      .sort((a, b) => byName(a.info.name, b.info.name))
      .map((n) => [n.info.name, { node: n, requested: n.requested, usedCpuMillis: n.usedCpuMillis }] as const),
  );
  const jobs = [...input.jobs].sort((a, b) => efficiencyOf(a) - efficiencyOf(b) || byName(a.key, b.key));
  const migrations: Migration[] = [];
  const refusals: MigrationRefusal[] = [];
  const lastMovedAt = new Map(previous.lastMovedAt);
  for (const [k, at] of lastMovedAt) if (input.now - at >= config.cooldownMs) lastMovedAt.delete(k);
  for (const [name, room] of rooms) {
    for (const slow of jobs.filter((j) => isSlow(j) && j.nodes.includes(name))) {
      if (migrations.length >= config.maxMovesPerRound || !contended(room, config)) break;
      const fast = constrainedFastJob(jobs, name, slow);
      if (fast === undefined) continue;
      const refuse = (why: string) => refusals.push({ job: slow.key, node: name, why });
      if (slow.notMovable !== undefined) {
        refuse(slow.notMovable);
        continue;
      }
      if (lastMovedAt.has(slow.key)) {
        refuse(`moved ${Math.round((input.now - lastMovedAt.get(slow.key)!) / 1000)}s ago (cooldown ${config.cooldownMs / 1000}s)`);
        continue;
      }
      const replica = slow.movable.filter((r) => r.node === name).sort((a, b) => b.index - a.index)[0];
      if (replica === undefined) {
        refuse(`no worker on ${name} that survives a move`);
        continue;
      }
      const target = chooseTarget(replica, rooms, config);
      if (typeof target === 'string') {
        refuse(target);
        continue;
      }
      move(replica, room, target);
      lastMovedAt.set(slow.key, input.now);
      const reason =
        `SpeCon: ${slow.key} is Completing (growth ${round3(efficiencyOf(slow))}/CPU-s) on ${name}, where ` +
        `${fast.key} (${fast.flowcon.list}, ${round3(efficiencyOf(fast))}/CPU-s) is CPU-constrained`;
      migrations.push({ job: slow.key, pod: replica.pod, index: replica.index, from: name, to: target.node.info.name, reason });
    }
  }
  return { migrations, refusals, state: { lastMovedAt } };
}
