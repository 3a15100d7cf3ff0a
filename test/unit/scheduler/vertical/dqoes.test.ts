// DQoES vertical as a pure rule: on one node, jobs ahead of their target give CPU limit to jobs behind.
import { describe, expect, it } from 'vitest';
import { dqoesVerticalRound, type DqoesJob, type QoeClass } from '../../../../src/scheduler/vertical/dqoes/index.ts';
import type { ContainerCpu } from '../../../../src/scheduler/vertical/flowcon/index.ts';

const N1 = { name: 'n1', allocatableMillis: 2000 };
const N2 = { name: 'n2', allocatableMillis: 2000 };

function cpu(pod: string, o: Partial<ContainerCpu> = {}): ContainerCpu {
  return { pod, container: 'tensorflow', node: 'n1', requestMillis: 200, limitMillis: 1000, templateLimitMillis: 1000, ...o };
}
const job = (key: string, qoeClass: QoeClass | undefined, o: Partial<DqoesJob> = {}): DqoesJob => ({
  key,
  containers: [cpu(`${key}-0`)],
  ...(qoeClass ? { qoeClass } : {}),
  ...o,
});
const brief = (jobs: DqoesJob[], nodes = [N1]) => dqoesVerticalRound(jobs, nodes).map((c) => [c.pod, c.fromMillis, c.toMillis]);

describe('dqoesVerticalRound', () => {
  it('moves β of what the ahead jobs hold to the behind job on the same node', () => {
    // G holds 2 × 1000m; β = 10 %: 200m freed, split by distance (0.3 vs 0.1): 150m and 50m.
    expect(
      brief([
        job('a', 'Ahead', { distance: 0.3 }),
        job('b', 'Ahead', { distance: 0.1, containers: [cpu('b-0')] }),
        job('c', 'Behind', { distance: 0.5 }),
      ]),
    ).toEqual([
      ['a-0', 1000, 850],
      ['b-0', 1000, 950],
      ['c-0', 1000, 1200],
    ]);
    // With b only 0.02 away its step (200 × 0.02/0.32 = 12.5m) is below the minimum step: not made, and
    // not given either; a gives 200 × 0.3/0.32 = 187.5m (limit 812.5m, written 813m) and c gets the 187m freed.
    expect(
      brief([
        job('a', 'Ahead', { distance: 0.3 }),
        job('b', 'Ahead', { distance: 0.02, containers: [cpu('b-0')] }),
        job('c', 'Behind', { distance: 0.5 }),
      ]),
    ).toEqual([
      ['a-0', 1000, 813],
      ['c-0', 1000, 1187],
    ]);
  });

  it('splits what was freed among behind jobs by their distance from target', () => {
    expect(
      brief([job('a', 'Ahead', { distance: 1 }), job('b', 'Behind', { distance: 0.6 }), job('c', 'Behind', { distance: 0.2 })]),
    ).toEqual([
      ['a-0', 1000, 900],
      ['b-0', 1000, 1075],
    ]);
  });

  it.each([
    ['no behind job', [job('a', 'Ahead'), job('s', 'Satisfied')]],
    ['no ahead job', [job('b', 'Behind'), job('s', 'Satisfied')]],
    ['ahead and behind on different nodes', [job('a', 'Ahead'), job('b', 'Behind', { containers: [cpu('b-0', { node: 'n2' })] })]],
    ['the ahead job opted out', [job('a', 'Ahead', { optOut: true }), job('b', 'Behind')]],
    [
      'the ahead job has no room (Guaranteed)',
      [job('a', 'Ahead', { containers: [cpu('a-0', { requestMillis: 1000 })] }), job('b', 'Behind')],
    ],
    [
      "the ahead job's limit was set by someone else",
      [job('a', 'Ahead', { containers: [cpu('a-0', { limitMillis: 1500 })] }), job('b', 'Behind')],
    ],
    ['no class (no target)', [job('a', undefined), job('b', 'Behind')]],
  ])('%s: nothing moves', (_, jobs) => {
    expect(brief(jobs, [N1, N2])).toEqual([]);
  });

  it('no job on a node behind its target or holding CPU it was given: the limits DQoES lowered there go back', () => {
    const lowered = (pod: string, node = 'n1') => cpu(pod, { node, limitMillis: 820, setByUsMillis: 820 });
    expect(
      brief(
        [
          job('a', 'Ahead', { containers: [lowered('a-0')] }),
          job('s', 'Satisfied', { containers: [lowered('s-0'), cpu('s-1', { limitMillis: 1000 })] }),
          // Behind on n2: n2's lowered limits stay, the behind job still needs what they gave.
          job('b', 'Behind', { containers: [cpu('b-0', { node: 'n2', limitMillis: 1180, setByUsMillis: 1180 })] }),
          job('g', 'Satisfied', { containers: [lowered('g-0', 'n2')] }),
        ],
        [N1, N2],
      ),
    ).toEqual([
      ['a-0', 820, 1000],
      ['s-0', 820, 1000],
    ]);
    // A job that was behind, now Satisfied with a raised limit, keeps what it was given, and so do the givers.
    expect(
      brief([
        job('a', 'Ahead', { containers: [cpu('a-0', { limitMillis: 820, setByUsMillis: 820 })] }),
        job('b', 'Satisfied', { containers: [cpu('b-0', { limitMillis: 1180, setByUsMillis: 1180 })] }),
      ]),
    ).toEqual([]);
    // A step smaller than the minimum is still made when it restores the template.
    expect(brief([job('a', 'Satisfied', { containers: [cpu('a-0', { limitMillis: 990, setByUsMillis: 990 })] })])).toEqual([
      ['a-0', 990, 1000],
    ]);
    // A limit someone else lowered is theirs.
    expect(brief([job('a', 'Ahead', { containers: [cpu('a-0', { limitMillis: 700 })] })])).toEqual([]);
  });

  it('an ahead job keeps at least 1/(2·|C|) of the node and its request; a behind job gets at most the node', () => {
    // 2 containers on the node: floor 500m. a is at 520m: it can give only 20m (below the step): nothing.
    expect(brief([job('a', 'Ahead', { containers: [cpu('a-0', { limitMillis: 520, setByUsMillis: 520 })] }), job('b', 'Behind')])).toEqual(
      [],
    );
    // A behind job already at 1950m of a 2000m node gets 50m, not more.
    expect(
      brief([
        job('a', 'Ahead', { containers: [cpu('a-0', { limitMillis: 1900, templateLimitMillis: 1900 })] }),
        job('b', 'Behind', { containers: [cpu('b-0', { limitMillis: 1950, templateLimitMillis: 1950 })] }),
      ]),
    ).toEqual([
      ['a-0', 1900, 1710],
      ['b-0', 1950, 2000],
    ]);
  });
});
