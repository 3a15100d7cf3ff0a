// The tf-operator baseline's node choice must equal a brute-force LeastAllocated scan, however
// the indexes behind it are built.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULER_CONFIG } from '../../../src/scheduler/config.ts';
import { buildPassModel } from '../../../src/scheduler/model/pass-model.ts';
import { ScoreTree } from '../../../src/scheduler/model/node-order.ts';
import { LeastAllocated } from '../../../src/scheduler/policies/tf-operator.ts';
import type { ClusterSnapshot } from '../../../src/scheduler/types.ts';
import { snapshotArb } from './helpers/arbitraries.ts';
import { node, snapshot, waiting } from './helpers/builders.ts';

// Many nodes of few shapes with uneven loads: the case the per-shape trees must get right.
const sameShapeClusterArb = fc
  .record({
    nodes: fc.array(
      fc.record({
        big: fc.boolean(),
        gpus: fc.integer({ min: 0, max: 2 }),
        usedCpu: fc.integer({ min: 0, max: 16 }),
        usedMem: fc.integer({ min: 0, max: 64 }),
        usedGpu: fc.integer({ min: 0, max: 2 }),
      }),
      { minLength: 1, maxLength: 40 },
    ),
    pods: fc.array(
      fc.record({ cpu: fc.integer({ min: 1, max: 8 }), mem: fc.integer({ min: 1, max: 16 }), gpu: fc.integer({ min: 0, max: 1 }) }),
      { minLength: 1, maxLength: 4 },
    ),
  })
  .map(({ nodes, pods }): ClusterSnapshot => {
    const Gi = 1024 ** 3;
    const nodeInfos = nodes.map((n, i) =>
      node(`n${String(i).padStart(2, '0')}`, { cpu: (n.big ? 32 : 16) * 1000, memory: (n.big ? 128 : 64) * Gi, 'nvidia.com/gpu': n.gpus }),
    );
    const otherPods = nodes.map((n, i) => ({
      key: `x/${i}`,
      node: nodeInfos[i]!.name,
      requests: { cpu: n.usedCpu * 1000, memory: n.usedMem * Gi, 'nvidia.com/gpu': Math.min(n.usedGpu, n.gpus) },
    }));
    const jobs = pods.map((p, i) =>
      waiting(`j${i}`, {
        psCount: 0,
        min: 1,
        max: 1,
        worker: { cpu: p.cpu * 1000, memory: p.mem * Gi, ...(p.gpu > 0 ? { 'nvidia.com/gpu': 1 } : {}) },
      }),
    );
    return snapshot(nodeInfos, jobs, { otherPods });
  });

describe('LeastAllocated node choice (tf-operator baseline)', () => {
  it('always picks a node with the best score, or none exactly when no node fits', () => {
    fc.assert(
      fc.property(fc.oneof(snapshotArb, sameShapeClusterArb), fc.array(fc.nat(), { minLength: 1, maxLength: 30 }), (snap, picks) => {
        const model = buildPassModel(snap, DEFAULT_SCHEDULER_CONFIG);
        const groups = [...model.jobs.values()].flatMap((j) => [...j.fixed, ...(j.workers === undefined ? [] : [j.workers])]);
        if (groups.length === 0) return;
        const st = model.state;
        const scorer = new LeastAllocated(st);
        for (const p of picks) {
          const group = groups[p % groups.length]!;
          const feasible = st.masks.get(group.maskId).feasible;
          let bestScore = Number.NEGATIVE_INFINITY;
          for (let n = 0; n < st.nodes.length; n++) {
            if (feasible[n] === 1 && st.ready[n] === 1 && st.fits(n, group.vec))
              bestScore = Math.max(bestScore, scorer.score(n, group.vec));
          }
          const chosen = scorer.best(group, new Set());
          if (bestScore === Number.NEGATIVE_INFINITY) {
            expect(chosen).toBe(-1);
            continue;
          }
          expect(chosen).toBeGreaterThanOrEqual(0);
          expect(feasible[chosen]).toBe(1);
          expect(st.fits(chosen, group.vec)).toBe(true);
          expect(scorer.score(chosen, group.vec)).toBe(bestScore);
          scorer.place(chosen, group);
        }
      }),
      { numRuns: 200, seed: 5 },
    );
  });
});

describe('ScoreTree', () => {
  it('visits exactly the members that could hold the need and are not pruned; finds the best by branch and bound', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            score: fc.integer({ min: 0, max: 20 }),
            a: fc.integer({ min: 0, max: 9 }),
            b: fc.integer({ min: 0, max: 9 }),
            member: fc.boolean(),
          }),
          { minLength: 1, maxLength: 40 },
        ),
        fc.integer({ min: 0, max: 9 }),
        fc.integer({ min: 0, max: 9 }),
        fc.integer({ min: 0, max: 20 }),
        (nodes, needA, needB, floor) => {
          const members = nodes.flatMap((n, i) => (n.member ? [i] : []));
          const tree = new ScoreTree(
            nodes.length,
            members,
            2,
            (i) => nodes[i]!.score,
            (i, r) => (r === 0 ? nodes[i]!.a : nodes[i]!.b),
          );
          const visited: number[] = [];
          tree.search(
            Float64Array.from([needA, needB]),
            (max) => max < floor,
            (n) => visited.push(n),
          );
          const expected = members.filter((i) => nodes[i]!.a >= needA && nodes[i]!.b >= needB && nodes[i]!.score >= floor);
          expect([...visited].sort((x, y) => x - y)).toEqual(expected);
          // Branch and bound with a rising bar finds the best eligible score.
          let best = Number.NEGATIVE_INFINITY;
          tree.search(
            Float64Array.from([needA, needB]),
            (max) => max <= best,
            (_n, score) => (best = Math.max(best, score)),
          );
          const eligible = members.filter((i) => nodes[i]!.a >= needA && nodes[i]!.b >= needB).map((i) => nodes[i]!.score);
          expect(best).toBe(eligible.length === 0 ? Number.NEGATIVE_INFINITY : Math.max(...eligible));
        },
      ),
      { numRuns: 300, seed: 11 },
    );
  });
});
