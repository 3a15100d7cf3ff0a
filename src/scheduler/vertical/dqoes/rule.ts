// DQoES vertical (Algorithm 1 of DQoES, on one node at a time): jobs ahead of their performance target
// (set G) give CPU limit to jobs behind theirs (set B) on the same node, each round a step of β of what
// G holds, split by how far each job is from its target; the scheduler's next classification says
// whether they reached ±α (set S). Once no job on a node is behind or holds CPU it was given (the
// jobs that needed it are gone), the limits DQoES lowered there go back to their templates: kept for
// nobody they only idle the node. A node with B but no G changes nothing.
// Pure; limits stay within [request, node allocatable].
import { byNode, changeIf, clampLimit, splitByRequest, untouchable, type ContainerCpu, type LimitChange, type NodeCpu } from '../limits.ts';

export type QoeClass = 'Ahead' | 'Satisfied' | 'Behind' | 'Unknown';

export interface DqoesJob {
  /** namespace/name of the TFJob. */
  readonly key: string;
  readonly containers: readonly ContainerCpu[];
  /** Its class against its target after the scheduler's last pass (`status.qoe.class`); undefined: none. */
  readonly qoeClass?: QoeClass;
  /** How far from the target: |measured / required − 1| (DQoES's q); undefined: unknown (counts as equal). */
  readonly distance?: number;
  readonly optOut?: boolean;
}

export interface DqoesVerticalConfig {
  /** β: share of G's limits given up per round (the paper used 10 %). */
  readonly beta: number;
  readonly minStepMillis: number;
}

export const DEFAULT_DQOES_VERTICAL_CONFIG: DqoesVerticalConfig = { beta: 0.1, minStepMillis: 50 };

interface Member {
  readonly job: DqoesJob;
  readonly containers: readonly ContainerCpu[];
  readonly weight: number;
}

const total = (cs: readonly ContainerCpu[], pick: (c: ContainerCpu) => number) => cs.reduce((a, c) => a + pick(c), 0);

/** Per-container limits for a job's new total on the node, and the changes they make. */
function setTotal(m: Member, node: NodeCpu, wantMillis: number, minStep: number, reason: string): { changes: LimitChange[]; set: number } {
  const wants = splitByRequest(m.containers, wantMillis);
  const limits = m.containers.map((c, i) => clampLimit(c, wants[i]!, node));
  const changes = m.containers.flatMap((c, i) => changeIf(m.job.key, c, limits[i]!, minStep, reason) ?? []);
  const set = m.containers.reduce(
    (a, c, i) => a + (changes.some((x) => x.pod === c.pod && x.container === c.container) ? limits[i]! : c.limitMillis),
    0,
  );
  return { changes, set };
}

/** No job on the node behind its target or above its template: every lowered limit goes back. */
function restoreNode(node: NodeCpu, members: readonly Member[]): LimitChange[] {
  // Any step back to the template is made: it is the last one.
  const minStep = 1;
  return members.flatMap((m) =>
    m.containers.flatMap((c) =>
      c.limitMillis < c.templateLimitMillis
        ? (changeIf(
            m.job.key,
            c,
            clampLimit(c, c.templateLimitMillis, node),
            minStep,
            `DQoES: no job behind its target on ${node.name}, limit restored`,
          ) ?? [])
        : [],
    ),
  );
}

function planNode(node: NodeCpu, members: readonly Member[], containersOnNode: number, config: DqoesVerticalConfig): LimitChange[] {
  const ahead = members.filter((m) => m.job.qoeClass === 'Ahead');
  const behind = members.filter((m) => m.job.qoeClass === 'Behind');
  // A job raised above its template got what it needed from the lowered ones: they stay lowered.
  const given = members.some((m) => m.containers.some((c) => c.limitMillis > c.templateLimitMillis));
  if (behind.length === 0) return given ? [] : restoreNode(node, members);
  if (ahead.length === 0) return [];
  const changes: LimitChange[] = [];
  const heldByAhead = ahead.reduce((a, m) => a + total(m.containers, (c) => c.limitMillis), 0);
  const cut = config.beta * heldByAhead;
  const sumAhead = ahead.reduce((a, m) => a + m.weight, 0);
  // DQoES's lower bound: 1/(2·|C|) of the node per container, never below the request.
  const floorPer = node.allocatableMillis / (2 * containersOnNode);
  let freed = 0;
  for (const m of ahead) {
    const now = total(m.containers, (c) => c.limitMillis);
    const floor = total(m.containers, (c) => Math.max(c.requestMillis, floorPer));
    const want = Math.max(floor, now - (cut * m.weight) / sumAhead);
    const r = setTotal(m, node, want, config.minStepMillis, `DQoES: ahead of its target, gives CPU to jobs behind theirs on ${node.name}`);
    changes.push(...r.changes);
    freed += now - r.set;
  }
  if (freed <= 0) return changes;
  const sumBehind = behind.reduce((a, m) => a + m.weight, 0);
  for (const m of behind) {
    const now = total(m.containers, (c) => c.limitMillis);
    const r = setTotal(
      m,
      node,
      now + (freed * m.weight) / sumBehind,
      config.minStepMillis,
      `DQoES: behind its target, gets CPU from jobs ahead of theirs on ${node.name}`,
    );
    changes.push(...r.changes);
  }
  return changes;
}

export function dqoesVerticalRound(
  jobs: readonly DqoesJob[],
  nodes: readonly NodeCpu[],
  config: DqoesVerticalConfig = DEFAULT_DQOES_VERTICAL_CONFIG,
): LimitChange[] {
  const eligible = [...jobs]
    .filter((j) => j.optOut !== true && j.qoeClass !== undefined)
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((j) => ({ job: j, byNode: byNode(j.containers.filter((c) => untouchable(c) === undefined)) }));
  const changes: LimitChange[] = [];
  for (const node of [...nodes].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const members: Member[] = eligible.flatMap((e) => {
      const containers = e.byNode.get(node.name);
      // An unknown distance weighs as much as a distance of 1 (the job is as far as it can be told).
      return containers === undefined ? [] : [{ job: e.job, containers, weight: Math.max(1e-6, e.job.distance ?? 1) }];
    });
    const containersOnNode = members.reduce((a, m) => a + m.containers.length, 0);
    if (members.length > 0) changes.push(...planNode(node, members, containersOnNode, config));
  }
  return changes;
}
