import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULER_CONFIG } from '../../../src/scheduler/config.ts';
import { buildPassModel } from '../../../src/scheduler/model/pass-model.ts';
import type { CompiledJob } from '../../../src/scheduler/model/job-model.ts';
import { commitPlacement, findPlacement, maximumItems, minimumItems } from '../../../src/scheduler/model/placement.ts';
import type { Placement } from '../../../src/scheduler/model/placement.ts';
import type { ClusterSnapshot } from '../../../src/scheduler/types.ts';
import { snapshotArb } from './helpers/arbitraries.ts';
import { cpu, Gi, node, paperTestbed, snapshot, waiting } from './helpers/builders.ts';

/** Places job `key`'s minimum configuration on the snapshot; returns `type:index@node` or the failure. */
function place(snap: ClusterSnapshot, key: string, config: 'min' | 'max' = 'min'): string[] | string {
  const m = buildPassModel(snap, DEFAULT_SCHEDULER_CONFIG);
  const job = m.jobs.get(key)!;
  const items = config === 'min' ? minimumItems(job) : maximumItems(job);
  const out = findPlacement(m.state, items);
  if (!out.ok)
    return out.failure.kind === 'insufficient'
      ? `insufficient ${out.failure.group.type} ${out.failure.placed}/${out.failure.count}`
      : `${out.failure.kind} ${out.failure.group.type}`;
  return items.flatMap((it, i) => (out.placement[i] ?? []).map((n, k) => `${it.group.type}:${k}@${m.state.nodes[n]!.name}`));
}

/** Other pods that use `used` cpu on each named node (to shape idle resources). */
const load = (used: Record<string, number>) =>
  Object.entries(used).map(([n, c]) => ({ key: `x/${n}`, node: n, requests: { cpu: cpu(c) } }));

describe('placement rule (§4.1)', () => {
  it('puts the whole minimum configuration on one node, the most idle that holds it', () => {
    // Idle cpu: node-1 6, node-2 8, node-3 4. The job needs 1 + 2·2 = 5 cpu.
    const snap = snapshot(paperTestbed(), [waiting('j', { min: 2 })], { otherPods: load({ 'node-1': 4, 'node-2': 2, 'node-3': 6 }) });
    expect(place(snap, 'j')).toEqual(['PS:0@node-2', 'Worker:0@node-2', 'Worker:1@node-2']);
  });

  it('otherwise fills nodes most idle first, the PS with as many workers as fit', () => {
    // Idle cpu: 4, 5, 3. Needs 1 + 3·2 = 7 cpu: no single node. Most idle node-2 (5 cpu): PS + 2
    // workers; then node-1 (4 cpu): the last worker.
    const snap = snapshot(paperTestbed(), [waiting('j', { min: 3 })], { otherPods: load({ 'node-1': 6, 'node-2': 5, 'node-3': 7 }) });
    expect(place(snap, 'j')).toEqual(['PS:0@node-2', 'Worker:0@node-2', 'Worker:1@node-2', 'Worker:2@node-1']);
  });

  it('retries largest replicas first when PS first strands a worker', () => {
    // Idle cpu: 5, 1, 0. PS first would take 1 cpu of node-1 and leave 4 for a 5-cpu worker.
    const snap = snapshot(paperTestbed(), [waiting('j', { min: 1, worker: { cpu: cpu(5), memory: Gi } })], {
      otherPods: load({ 'node-1': 5, 'node-2': 9, 'node-3': 10 }),
    });
    expect(place(snap, 'j')).toEqual(['PS:0@node-2', 'Worker:0@node-1']);
  });

  it('is a real per-node packing: scattered idle capacity cannot host a pod', () => {
    // 1.5 cpu idle on each node: 4.5 cpu in total, more than the 3 cpu asked, yet the 2-cpu worker
    // fits on no node.
    const snap = snapshot(paperTestbed(), [waiting('j', { min: 1 })], { otherPods: load({ 'node-1': 8.5, 'node-2': 8.5, 'node-3': 8.5 }) });
    expect(place(snap, 'j')).toBe('insufficient Worker 0/1');
  });

  it('honours each group’s constraints, also when the groups differ', () => {
    const nodes = [
      node('cpu-1', { cpu: cpu(16), memory: 64 * Gi }, { labels: { kind: 'cpu' } }),
      node(
        'gpu-1',
        { cpu: cpu(16), memory: 64 * Gi, 'nvidia.com/gpu': 2 },
        { labels: { kind: 'gpu' }, taints: [{ key: 'gpu', effect: 'NoSchedule' }] },
      ),
    ];
    const job = waiting('j', {
      min: 2,
      worker: { cpu: cpu(2), memory: 4 * Gi, 'nvidia.com/gpu': 1 },
      constraints: { nodeSelector: { kind: 'gpu' }, tolerations: [{ key: 'gpu', operator: 'Exists' }] },
      psConstraints: { nodeSelector: { kind: 'cpu' } },
    });
    expect(place(snapshot(nodes, [job]), 'j')).toEqual(['PS:0@cpu-1', 'Worker:0@gpu-1', 'Worker:1@gpu-1']);
    const untolerated = waiting('k', { constraints: { nodeSelector: { kind: 'gpu' } }, psConstraints: {} });
    expect(place(snapshot(nodes, [untolerated]), 'k')).toBe('no-feasible-node Worker');
  });

  it('places fixed groups PS first whatever their order in the spec', () => {
    const base = waiting('j', { min: 0, ps: { cpu: cpu(9) } });
    const chiefFirst = {
      ...base,
      spec: { ...base.spec, fixed: [{ type: 'Chief', count: 1, requests: { cpu: cpu(9) }, constraints: {} }, ...base.spec.fixed] },
    };
    const snap = snapshot(paperTestbed(), [chiefFirst]);
    // The spec lists Chief first, yet the PS is placed first and takes the most idle node.
    expect(place(snap, 'j')).toEqual(['PS:0@node-1', 'Chief:0@node-2']);
  });

  it('remembers a shape’s capacity while nodes only fill, and forgets it when room is freed', () => {
    // Idle cpu 4 / 4 / 2: room for exactly two 3-cpu workers, though 10 cpu are free in total
    // (PS-less jobs to keep it simple).
    const worker = { cpu: cpu(3), memory: Gi };
    const snap = snapshot(
      paperTestbed(),
      [
        waiting('three', { psCount: 0, min: 3, worker }),
        waiting('two', { psCount: 0, min: 2, worker }),
        waiting('again', { psCount: 0, min: 3, worker }),
      ],
      { otherPods: load({ 'node-1': 6, 'node-2': 6, 'node-3': 8 }) },
    );
    const m = buildPassModel(snap, DEFAULT_SCHEDULER_CONFIG);
    const s = m.state;
    const three = findPlacement(s, minimumItems(m.jobs.get('three')!));
    expect(three.ok ? 'ok' : three.failure).toMatchObject({ kind: 'insufficient', placed: 2, count: 3 });
    // Same shape, fewer replicas: the remembered capacity (2) does not stop it.
    const two = findPlacement(s, minimumItems(m.jobs.get('two')!));
    expect(two.ok).toBe(true);
    // Fail fast again with the remembered capacity...
    const again = findPlacement(s, minimumItems(m.jobs.get('again')!));
    expect(again.ok ? 'ok' : again.failure).toMatchObject({ kind: 'insufficient', placed: 2, count: 3 });
    // ...until resources are freed: 3 more cpu on node-3 (5 idle) make room for the third worker.
    const extra = new Float64Array(s.R);
    extra[s.dims.position('cpu')!] = cpu(3);
    s.adjust(s.nodeIndex.get('node-3')!, extra, 1);
    expect(findPlacement(s, minimumItems(m.jobs.get('again')!)).ok).toBe(true);
  });

  it('restricted to some nodes, counts the room on those nodes only', () => {
    // Idle cpu 4 / 4 / 2 as above; node-1 is off limits: room for one 3-cpu worker (on node-2).
    const worker = { cpu: cpu(3), memory: Gi };
    const snap = snapshot(
      paperTestbed(),
      [waiting('two', { psCount: 0, min: 2, worker }), waiting('one', { psCount: 0, min: 1, worker })],
      {
        otherPods: load({ 'node-1': 6, 'node-2': 6, 'node-3': 8 }),
      },
    );
    const m = buildPassModel(snap, DEFAULT_SCHEDULER_CONFIG);
    const s = m.state;
    const allowed = new Uint8Array(s.nodes.length).fill(1);
    allowed[s.nodeIndex.get('node-1')!] = 0;
    const two = findPlacement(s, minimumItems(m.jobs.get('two')!), undefined, allowed);
    expect(two.ok ? 'ok' : two.failure).toMatchObject({ kind: 'insufficient', placed: 1, count: 2 });
    const one = findPlacement(s, minimumItems(m.jobs.get('one')!), undefined, allowed);
    expect(one.ok ? one.placement : 'failed').toEqual([[s.nodeIndex.get('node-2')]]);
    // The whole cluster has room for both.
    expect(findPlacement(s, minimumItems(m.jobs.get('two')!)).ok).toBe(true);
  });

  it('uses the maximum configuration for gangs', () => {
    const snap = snapshot(paperTestbed(), [waiting('j', { min: 1, max: 4 })]);
    expect(place(snap, 'j', 'max')).toEqual(['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-1', 'Worker:2@node-1', 'Worker:3@node-1']);
  });

  it('restricted to some nodes, places exactly as on a cluster where only those nodes are ready, as nodes fill', () => {
    // Restricted searches count each item's room on the allowed nodes before walking (node by node
    // when they are few, else from kept per-node counts): a count too low would fail a job the
    // walk would place. The reference: the same cluster with every other node NotReady.
    const limitOf = (nodes: number): number => Math.max(8, nodes >> 4);
    let few = 0;
    let many = 0;
    let placed = 0;
    fc.assert(
      fc.property(snapshotArb, fc.boolean(), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (small, copies, seed) => {
        // Up to 8 nodes, or 40 copies of each, so that both ways of counting are taken.
        const snap: ClusterSnapshot = copies
          ? { ...small, nodes: small.nodes.flatMap((n) => Array.from({ length: 40 }, (_, k) => ({ ...n, name: `${n.name}-${k}` }))) }
          : small;
        const m = buildPassModel(snap, DEFAULT_SCHEDULER_CONFIG);
        const committed: { key: string; max: boolean; placement: Placement }[] = [];
        const itemsOf = (job: CompiledJob, max: boolean) => (max ? maximumItems(job) : minimumItems(job));
        let rnd = seed;
        const next = (): number => (rnd = (Math.imul(rnd, 1103515245) + 12345) >>> 0);
        for (const job of m.jobs.values()) {
          for (const max of [true, false]) {
            const items = itemsOf(job, max);
            const density = [2, 5, 60][next() % 3]!;
            const allowed = Uint8Array.from(m.state.nodes, () => (next() % density === 0 ? 1 : 0));
            const count = allowed.reduce((a, b) => a + b, 0);
            if (count <= limitOf(allowed.length)) few++;
            else many++;
            const restricted = findPlacement(m.state, items, undefined, allowed);
            // The reference cluster: what was committed so far, on the allowed nodes alone.
            const onlyAllowed: ClusterSnapshot = {
              ...snap,
              nodes: m.state.nodes.map((n, i) => ({ ...n, ready: n.ready && allowed[i] === 1 })),
            };
            const ref = buildPassModel(onlyAllowed, DEFAULT_SCHEDULER_CONFIG);
            for (const c of committed) commitPlacement(ref.state, itemsOf(ref.jobs.get(c.key)!, c.max), c.placement);
            const expected = findPlacement(ref.state, itemsOf(ref.jobs.get(job.key)!, max));
            expect(restricted.ok).toBe(expected.ok);
            if (restricted.ok && expected.ok) expect(restricted.placement).toEqual(expected.placement);
            // Fill the cluster as a pass would (unrestricted), so counts must follow changes.
            const anywhere = findPlacement(m.state, items);
            if (anywhere.ok && next() % 2 === 0) {
              commitPlacement(m.state, items, anywhere.placement);
              committed.push({ key: job.key, max, placement: anywhere.placement });
              placed++;
            }
          }
        }
      }),
      { numRuns: 150, seed: 20261126 },
    );
    expect(few).toBeGreaterThan(200);
    expect(many).toBeGreaterThan(200);
    expect(placed).toBeGreaterThan(200);
  });
});
