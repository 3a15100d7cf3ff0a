// SpeCon as a pure rule: which slow job's worker moves, from where, to where, and every reason it
// does not (no contention, no faster job, cooldown, nothing movable, nowhere kube-scheduler accepts it).
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SPECON_CONFIG,
  EMPTY_SPECON_STATE,
  speconRound,
  withRecordedMoves,
  type SpeconJob,
  type SpeconNode,
  type SpeconReplica,
} from '../../../../src/scheduler/vertical/specon/index.ts';
import type { NodeInfo } from '../../../../src/scheduler/types.ts';

const T0 = Date.UTC(2026, 10, 28, 12);

function node(name: string, usedCpuMillis: number, o: Partial<NodeInfo> & { requestedCpu?: number } = {}): SpeconNode {
  const { requestedCpu, ...info } = o;
  return {
    info: { name, allocatable: { cpu: 2000, memory: 8e9, pods: 110 }, labels: {}, taints: [], unschedulable: false, ready: true, ...info },
    requested: { cpu: requestedCpu ?? usedCpuMillis / 2, pods: 2 },
    usedCpuMillis,
  };
}

function worker(job: string, index: number, at: string, o: Partial<SpeconReplica> = {}): SpeconReplica {
  return {
    pod: `${job}-worker-${index}`,
    index,
    node: at,
    requests: { cpu: 500, memory: 1e9 },
    constraints: {},
    cpuLimitMillis: 1000,
    ...o,
  };
}

const slow = (o: Partial<SpeconJob> = {}): SpeconJob => ({
  key: 'ns/slow',
  flowcon: { job: 'ns/slow', list: 'Completing', growthEfficiency: 0.001 },
  nodes: ['a'],
  movable: [worker('slow', 1, 'a')],
  ...o,
});
const fast = (o: Partial<SpeconJob> = {}): SpeconJob => ({
  key: 'ns/fast',
  flowcon: { job: 'ns/fast', list: 'New', growthEfficiency: 0.1 },
  nodes: ['a'],
  movable: [],
  ...o,
});

// Node a: both jobs' limits sum to its allocatable (contended); node b: idle.
const CONTENDED = [node('a', 2000), node('b', 0)];

describe('speconRound', () => {
  it('moves the slow job’s worker off the contended node to the node with room, and remembers when', () => {
    const r = speconRound({ now: T0, nodes: CONTENDED, jobs: [slow(), fast()] });
    expect(r.migrations).toEqual([
      { job: 'ns/slow', pod: 'slow-worker-1', index: 1, from: 'a', to: 'b', reason: expect.stringContaining('ns/fast (New') as string },
    ]);
    expect(r.refusals).toEqual([]);
    expect(r.state.lastMovedAt.get('ns/slow')).toBe(T0);
  });

  it('moves nothing when the node is not contended', () => {
    const r = speconRound({ now: T0, nodes: [node('a', 1500), node('b', 0)], jobs: [slow(), fast()] });
    expect(r.migrations).toEqual([]);
  });

  it('moves nothing without a faster-growing, non-converging job on that node', () => {
    const alone = speconRound({ now: T0, nodes: CONTENDED, jobs: [slow()] });
    expect(alone.migrations).toEqual([]);
    const bothSlow = speconRound({
      now: T0,
      nodes: CONTENDED,
      jobs: [slow(), fast({ flowcon: { job: 'ns/fast', list: 'Completing', growthEfficiency: 0.1 } })],
    });
    expect(bothSlow.migrations.map((m) => m.job)).toEqual([]);
    const fastElsewhere = speconRound({ now: T0, nodes: CONTENDED, jobs: [slow(), fast({ nodes: ['b'] })] });
    expect(fastElsewhere.migrations).toEqual([]);
    const slowerNew = speconRound({
      now: T0,
      nodes: CONTENDED,
      jobs: [slow({ flowcon: { job: 'ns/slow', list: 'Completing', growthEfficiency: 0.2 } }), fast()],
    });
    expect(slowerNew.migrations).toEqual([]);
  });

  it('never moves a job that is not Completing (New or Watching)', () => {
    const watching = slow({ flowcon: { job: 'ns/slow', list: 'Watching', growthEfficiency: 0.001 } });
    expect(speconRound({ now: T0, nodes: CONTENDED, jobs: [watching, fast()] }).migrations).toEqual([]);
  });

  it('refuses, saying why, a job that may not move', () => {
    const r = speconRound({ now: T0, nodes: CONTENDED, jobs: [slow({ notMovable: 'opted out', movable: [] }), fast()] });
    expect(r.migrations).toEqual([]);
    expect(r.refusals).toEqual([{ job: 'ns/slow', node: 'a', why: 'opted out' }]);
    const noWorker = speconRound({ now: T0, nodes: CONTENDED, jobs: [slow({ movable: [worker('slow', 1, 'b')] }), fast()] });
    expect(noWorker.refusals[0]?.why).toBe('no worker on a that survives a move');
  });

  it('waits out the cooldown after a move, then may move the job again', () => {
    const first = speconRound({ now: T0, nodes: CONTENDED, jobs: [slow(), fast()] });
    const soon = speconRound({ now: T0 + DEFAULT_SPECON_CONFIG.cooldownMs - 1, nodes: CONTENDED, jobs: [slow(), fast()] }, first.state);
    expect(soon.migrations).toEqual([]);
    expect(soon.refusals[0]?.why).toMatch(/cooldown/);
    const later = speconRound({ now: T0 + DEFAULT_SPECON_CONFIG.cooldownMs, nodes: CONTENDED, jobs: [slow(), fast()] }, soon.state);
    expect(later.migrations).toHaveLength(1);
  });

  it('moves at most maxMovesPerRound workers in a round', () => {
    const slow2 = slow({
      key: 'ns/slow2',
      flowcon: { job: 'ns/slow2', list: 'Completing', growthEfficiency: 0.002 },
      movable: [worker('slow2', 1, 'a')],
    });
    const nodes = [node('a', 3000), node('b', 0), node('c', 0)];
    expect(speconRound({ now: T0, nodes, jobs: [slow(), slow2, fast()] }).migrations).toHaveLength(1);
    const two = speconRound({ now: T0, nodes, jobs: [slow(), slow2, fast()] }, undefined, {
      ...DEFAULT_SPECON_CONFIG,
      maxMovesPerRound: 2,
    });
    // The slowest first; the second move only while node a is still contended after the first.
    expect(two.migrations.map((m) => m.job)).toEqual(['ns/slow', 'ns/slow2']);
    expect(new Set(two.migrations.map((m) => m.to))).toEqual(new Set(['b', 'c']));
  });

  it('stops moving once the node is no longer contended', () => {
    const slow2 = slow({
      key: 'ns/slow2',
      flowcon: { job: 'ns/slow2', list: 'Completing', growthEfficiency: 0.002 },
      movable: [worker('slow2', 1, 'a')],
    });
    const r = speconRound({ now: T0, nodes: CONTENDED, jobs: [slow(), slow2, fast()] }, undefined, {
      ...DEFAULT_SPECON_CONFIG,
      maxMovesPerRound: 5,
    });
    expect(r.migrations.map((m) => m.job)).toEqual(['ns/slow']);
  });

  it('goes only where kube-scheduler would accept the pod: ready, schedulable, tolerated, selected, requests fit', () => {
    const cases: [SpeconNode, string][] = [
      [node('b', 0, { ready: false }), 'NotReady'],
      [node('b', 0, { unschedulable: true }), 'unschedulable'],
      [node('b', 0, { taints: [{ key: 'gpu', effect: 'NoSchedule' }] }), 'taint'],
      [node('b', 0, { requestedCpu: 1600 }), 'requests do not fit'],
      [node('b', 1500), 'would be contended there'],
    ];
    for (const [b, why] of cases) {
      const r = speconRound({ now: T0, nodes: [node('a', 2000), b], jobs: [slow(), fast()] });
      expect({ why, migrations: r.migrations }).toEqual({ why, migrations: [] });
      expect(r.refusals[0]?.why).toContain(`b: ${why}`);
    }
    const selected = worker('slow', 1, 'a', { constraints: { nodeSelector: { pool: 'x' } } });
    const bySelector = speconRound({ now: T0, nodes: [node('a', 2000), node('b', 0)], jobs: [slow({ movable: [selected] }), fast()] });
    expect(bySelector.refusals[0]?.why).toContain('b: nodeSelector');
    const labelled = speconRound({
      now: T0,
      nodes: [node('a', 2000), node('b', 0, { labels: { pool: 'x' } })],
      jobs: [slow({ movable: [selected] }), fast()],
    });
    expect(labelled.migrations.map((m) => m.to)).toEqual(['b']);
  });

  it('picks the roomiest acceptable node, ties by name', () => {
    const r = speconRound({
      now: T0,
      nodes: [node('a', 2000), node('c', 200), node('b', 200), node('d', 0, { ready: false })],
      jobs: [slow(), fast()],
    });
    expect(r.migrations.map((m) => m.to)).toEqual(['b']);
  });

  it('moves the highest-index worker on the node (worker 0 stays: it is often the chief)', () => {
    const r = speconRound({
      now: T0,
      nodes: CONTENDED,
      jobs: [slow({ movable: [worker('slow', 1, 'a'), worker('slow', 2, 'a')] }), fast()],
    });
    expect(r.migrations.map((m) => m.pod)).toEqual(['slow-worker-2']);
  });
});

describe('withRecordedMoves', () => {
  it('a restarted operator (empty memory) keeps the cooldown of a move the status records, and says when it was', () => {
    const state = withRecordedMoves(EMPTY_SPECON_STATE, [{ job: 'ns/slow', at: T0 - 60_000 }]);
    const r = speconRound({ now: T0, nodes: CONTENDED, jobs: [slow(), fast()] }, state);
    expect(r.migrations).toEqual([]);
    expect(r.refusals).toEqual([{ job: 'ns/slow', node: 'a', why: 'in its cooldown: moved at 2026-11-28T11:59:00Z (cooldown 600s)' }]);
  });

  it('a recorded move older than the cooldown does not hold the job back', () => {
    const state = withRecordedMoves(EMPTY_SPECON_STATE, [{ job: 'ns/slow', at: T0 - DEFAULT_SPECON_CONFIG.cooldownMs }]);
    const r = speconRound({ now: T0, nodes: CONTENDED, jobs: [slow(), fast()] }, state);
    expect(r.migrations.map((m) => m.pod)).toEqual(['slow-worker-1']);
  });

  it('per job the later time wins: memory newer than the status stays, a newer status replaces it', () => {
    const memory = { lastMovedAt: new Map([['ns/slow', T0]]) };
    const older = withRecordedMoves(memory, [{ job: 'ns/slow', at: T0 - 5_000 }]);
    expect([...older.lastMovedAt]).toEqual([['ns/slow', T0]]);
    const newer = withRecordedMoves(memory, [
      { job: 'ns/slow', at: T0 + 5_000 },
      { job: 'ns/other', at: T0 - 1_000 },
      { job: 'ns/bad', at: Number.NaN },
    ]);
    expect([...newer.lastMovedAt]).toEqual([
      ['ns/slow', T0 + 5_000],
      ['ns/other', T0 - 1_000],
    ]);
    expect([...memory.lastMovedAt]).toEqual([['ns/slow', T0]]);
  });
});
