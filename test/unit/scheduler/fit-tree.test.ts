import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULER_CONFIG } from '../../../src/scheduler/config.ts';
import { buildPassModel } from '../../../src/scheduler/model/pass-model.ts';
import { fitsAt } from '../../../src/scheduler/model/resource-vector.ts';
import { cpu, Gi, node, snapshot } from './helpers/builders.ts';

// The tree must find exactly what a walk of `order` finds: the same first node with room, and the
// same sequence of nodes with room, after any changes, searched between changes or not; and
// `forEachHolding` every node with room, in any order.
describe('fit tree', () => {
  it('visits the nodes with room in the order of a linear walk, after any changes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ cpu: fc.integer({ min: 0, max: 16 }), ready: fc.boolean() }), { minLength: 1, maxLength: 20 }),
        fc.array(
          fc.record({
            node: fc.nat(),
            cpu: fc.integer({ min: 0, max: 8 }),
            mem: fc.integer({ min: 0, max: 16 }),
            sign: fc.constantFrom(1 as const, -1 as const),
            search: fc.boolean(),
          }),
          { maxLength: 40 },
        ),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: 20 }),
        (specs, changes, needCpu, needMem) => {
          const nodes = specs.map((s, i) =>
            node(`n${String(i).padStart(2, '0')}`, { cpu: cpu(s.cpu), memory: ((s.cpu * 3) % 17) * Gi }, { ready: s.ready || i === 0 }),
          );
          const s = buildPassModel(snapshot(nodes, []), DEFAULT_SCHEDULER_CONFIG).state;
          const R = s.R;
          const need = new Float64Array(R);
          need[s.dims.position('cpu')!] = cpu(needCpu);
          need[s.dims.position('memory')!] = needMem * Gi;
          const tree = s.treeFor(undefined);
          const odd = (n: number): boolean => n % 2 === 1;
          const check = (): void => {
            const linear = Array.from(s.order).filter((n) => s.ready[n] === 1 && s.fits(n, need));
            expect(tree.first(need, () => true)).toBe(linear[0] ?? -1);
            expect(tree.first(need, odd)).toBe(linear.find(odd) ?? -1);
            const walked: number[] = [];
            tree.walk(
              (have, offset) => !fitsAt(need, have, offset),
              (n) => {
                walked.push(n);
                return true;
              },
            );
            expect(walked).toEqual(linear);
            // Every node with room is visited (in any order); any other visited node is one of
            // the tree's members.
            const holding: number[] = [];
            tree.forEachHolding(need, (n) => holding.push(n));
            const members = new Set(tree.members);
            expect(holding.filter((n) => s.fits(n, need)).sort((a, b) => a - b)).toEqual([...linear].sort((a, b) => a - b));
            for (const n of holding) expect(members.has(n)).toBe(true);
            expect(new Set(holding).size).toBe(holding.length);
          };
          check();
          for (const ch of changes) {
            const vec = new Float64Array(R);
            vec[s.dims.position('cpu')!] = cpu(ch.cpu);
            vec[s.dims.position('memory')!] = ch.mem * Gi;
            s.adjust(ch.node % nodes.length, vec, ch.sign);
            if (ch.search) check();
          }
          check();
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });
});
