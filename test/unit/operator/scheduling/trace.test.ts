import { describe, expect, it } from 'vitest';
import { placementTrace } from '../../../../src/operator/scheduling/pass/trace.ts';
import type { Plan } from '../../../../src/scheduler/types.ts';
import { cpu, Gi, jobSpec, node, snapshot, waiting } from '../../scheduler/helpers/builders.ts';

const empty: Plan = { suspend: [], admit: [], scaleIn: [], scaleOut: [], bind: [], waiting: [], weights: {} };

describe('placement trace', () => {
  const snap = snapshot(
    [node('n-1', { cpu: cpu(6), memory: 24 * Gi }), node('n-2', { cpu: cpu(6), memory: 24 * Gi })],
    [
      {
        spec: jobSpec('a'),
        phase: 'running',
        replicas: [
          { type: 'PS', index: 0, node: 'n-1' },
          { type: 'Worker', index: 0, node: 'n-1' },
          { type: 'Worker', index: 1, node: 'n-1', pending: true },
        ],
      },
      waiting('b'),
    ],
    { otherPods: [{ key: 'ns/other', node: 'n-1', requests: { cpu: cpu(1) } }] },
  );

  it('says nothing for a pass that places nothing', () => {
    expect(placementTrace(snap, empty, [])).toEqual([]);
  });

  it('lists, per node placed on, what the pass counted there (other pods, replicas, pending placements), what it takes away and what it placed', () => {
    const plan: Plan = {
      ...empty,
      admit: [{ job: 'b', replicas: [{ type: 'PS', index: 0, node: 'n-1' }] }],
      scaleIn: [{ job: 'a', forJob: 'b', remove: [{ type: 'Worker', index: 0, node: 'n-1' }] }],
    };
    const [t, ...rest] = placementTrace(snap, plan, [
      { replica: { job: 'a', group: jobSpec('a').workers!, name: 'a-worker-3' }, node: 'n-2' },
    ]);
    expect(t).toEqual({
      node: 'n-1',
      allocatable: { cpu: 6000, memory: 24 * Gi },
      // other 1 cpu + PS 1 cpu/2Gi + two workers 2 cpu/4Gi each.
      used: { cpu: 6000, memory: 10 * Gi },
      counted: ['ns/other', 'a:PS-0', 'a:Worker-0', 'a:Worker-1(pending)'],
      placed: ['b:PS-0'],
      adds: { cpu: 1000, memory: 2 * Gi },
      removed: ['a:Worker-0'],
      frees: { cpu: 2000, memory: 4 * Gi },
    });
    expect(rest).toEqual([
      {
        node: 'n-2',
        allocatable: { cpu: 6000, memory: 24 * Gi },
        used: {},
        counted: [],
        placed: ['a:a-worker-3'],
        adds: { cpu: 2000, memory: 4 * Gi },
        removed: [],
        frees: {},
      },
    ]);
  });
});
