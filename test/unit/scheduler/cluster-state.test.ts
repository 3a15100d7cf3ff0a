import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULER_CONFIG } from '../../../src/scheduler/config.ts';
import { isPsType } from '../../../src/scheduler/model/job-model.ts';
import { buildPassModel } from '../../../src/scheduler/model/pass-model.ts';
import { cpu, Gi, node, paperTestbed, running, snapshot, waiting } from './helpers/builders.ts';

const model = (...args: Parameters<typeof snapshot>) => buildPassModel(snapshot(...args), DEFAULT_SCHEDULER_CONFIG);

describe('cluster model', () => {
  it('recognises the PS replica type case-insensitively, as tf-operator does, and nothing else', () => {
    for (const t of ['PS', 'ps', 'Ps', 'pS']) expect(isPsType(t)).toBe(true);
    for (const t of ['', 'P', 'S', 'PSX', 'Worker', 'Chief', 'pſ', 'P S', 'ps ']) expect(isPsType(t)).toBe(false);
    // Every string of up to two characters from a mixed alphabet: the same answer as lower-casing.
    const alphabet = ['p', 'P', 's', 'S', 'ſ', 'İ', 'x', ' '];
    for (const a of alphabet) for (const b of ['', ...alphabet]) expect(isPsType(a + b)).toBe((a + b).toLowerCase() === 'ps');
  });

  it('idle = allocatable − bound replicas of running jobs − other pods', () => {
    const m = model(
      paperTestbed(),
      [
        running('r1', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-2']),
        // Pending replicas, waiting and finished jobs hold nothing.
        running('r2', ['PS:0@node-3', 'Worker:0']),
        waiting('w1'),
        { ...running('f1', ['PS:0@node-2']), phase: 'finished' },
        // A replica on a node that no longer exists holds nothing anywhere.
        running('r3', ['PS:0@gone-node']),
      ],
      { otherPods: [{ key: 'kube-system/dns', node: 'node-2', requests: { cpu: 500, memory: Gi } }] },
    );
    const s = m.state;
    expect(s.idleOf(s.nodeIndex.get('node-1')!)).toEqual({ cpu: cpu(7), memory: 26 * Gi });
    expect(s.idleOf(s.nodeIndex.get('node-2')!)).toEqual({ cpu: cpu(7.5), memory: 27 * Gi });
    expect(s.idleOf(s.nodeIndex.get('node-3')!)).toEqual({ cpu: cpu(9), memory: 30 * Gi });
  });

  it('scores a node without a pod limit by its other resources when other nodes declare one', () => {
    // An unlimited pod dimension (∞) times its zero score weight must not make the score NaN.
    const nodes = [
      node('a', { cpu: cpu(4), memory: 8 * Gi, pods: 110 }),
      node('b', { cpu: cpu(8), memory: 8 * Gi }),
      node('c', { cpu: cpu(2), memory: 8 * Gi, pods: 110 }),
    ];
    const s = model(nodes, []).state;
    expect(Array.from(s.score).every(Number.isFinite)).toBe(true);
    expect(Array.from(s.order).map((n) => s.nodes[n]!.name)).toEqual(['b', 'a', 'c']);
  });

  it('orders nodes most idle first, ties by name, NotReady last', () => {
    const nodes = [
      node('b', { cpu: cpu(4), memory: 8 * Gi }),
      node('a', { cpu: cpu(4), memory: 8 * Gi }),
      node('c', { cpu: cpu(8), memory: 8 * Gi }),
      node('d', { cpu: cpu(100), memory: 100 * Gi }, { ready: false }),
    ];
    const s = model(nodes, []).state;
    expect(Array.from(s.order).map((n) => s.nodes[n]!.name)).toEqual(['c', 'a', 'b', 'd']);
  });

  it('counts one pod per replica against a node’s pod capacity', () => {
    const nodes = [node('small', { cpu: cpu(64), memory: 64 * Gi, pods: 2 })];
    const s = model(nodes, [running('r', ['PS:0@small', 'Worker:0@small'])]).state;
    expect(s.idleOf(0)).toEqual({ cpu: cpu(61), memory: 58 * Gi });
    const podsDim = s.dims.position('pods')!;
    expect(s.idle[podsDim]).toBe(0);
  });

  it('keeps order, maximum and free-sum indexes equal to a recomputation after any changes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 16 }), { minLength: 1, maxLength: 12 }),
        fc.array(
          fc.record({
            node: fc.nat(),
            cpu: fc.integer({ min: 0, max: 8 }),
            mem: fc.integer({ min: 0, max: 16 }),
            sign: fc.constantFrom(1 as const, -1 as const),
            read: fc.boolean(),
          }),
          { maxLength: 40 },
        ),
        (sizes, changes) => {
          const nodes = sizes.map((c, i) => node(`n${String(i).padStart(2, '0')}`, { cpu: cpu(c), memory: c * 2 * Gi }));
          const s = model(nodes, []).state;
          const R = s.R;
          const expectSorted = (): void => {
            const expectedOrder = [...Array(nodes.length).keys()].sort((a, b) => s.score[b]! - s.score[a]! || a - b);
            expect(Array.from(s.order)).toEqual(expectedOrder);
          };
          // The order is brought up to date when read: after one change or after several.
          expectSorted();
          for (const ch of changes) {
            const vec = new Float64Array(R);
            vec[s.dims.position('cpu')!] = cpu(ch.cpu);
            vec[s.dims.position('memory')!] = ch.mem * Gi;
            s.adjust(ch.node % nodes.length, vec, ch.sign);
            if (ch.read) expectSorted();
          }
          expectSorted();
          const max = s.maxIdle();
          for (let r = 0; r < R; r++) {
            let m = Number.NEGATIVE_INFINITY;
            let sum = 0;
            for (let n = 0; n < nodes.length; n++) {
              m = Math.max(m, s.idle[n * R + r]!);
              sum += Math.max(0, s.idle[n * R + r]!);
            }
            expect(max[r]).toBe(m);
            const probe = new Float64Array(R);
            probe[r] = sum;
            expect(s.withinFreeSum(probe)).toBe(true);
            probe[r] = sum + 1;
            expect(s.withinFreeSum(probe)).toBe(false);
          }
        },
      ),
      { seed: 42, numRuns: 200 },
    );
  });
});
