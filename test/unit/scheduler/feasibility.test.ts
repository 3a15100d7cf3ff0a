import { describe, expect, it } from 'vitest';
import {
  constraintsKey,
  firstBlockingTaint,
  nodeFeasibility,
  nodeSelectorMatches,
  nodeSelectorTermMatches,
  nodeSelectorTermsMatch,
  toleratesTaint,
} from '../../../src/scheduler/model/feasibility.ts';
import type { NodeInfo, NodeSelectorRequirement, Taint } from '../../../src/scheduler/types.ts';
import { node, taint } from './helpers/builders.ts';

const n = (labels: Record<string, string>, extra: Partial<NodeInfo> = {}): NodeInfo => node('node-a', { cpu: 1000 }, { labels, ...extra });
const term = (...exprs: NodeSelectorRequirement[]) => ({ matchExpressions: exprs });

describe('tolerations (core/v1 ToleratesTaint)', () => {
  const t: Taint = taint('dedicated', 'NoSchedule', 'gpu');

  it('Equal matches key, value and effect', () => {
    expect(toleratesTaint({ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }, t)).toBe(true);
    expect(toleratesTaint({ key: 'dedicated', operator: 'Equal', value: 'cpu', effect: 'NoSchedule' }, t)).toBe(false);
    expect(toleratesTaint({ key: 'other', operator: 'Equal', value: 'gpu' }, t)).toBe(false);
  });

  it('operator defaults to Equal and an absent value is the empty string', () => {
    expect(toleratesTaint({ key: 'dedicated', value: 'gpu' }, t)).toBe(true);
    expect(toleratesTaint({ key: 'dedicated' }, t)).toBe(false);
    expect(toleratesTaint({ key: 'dedicated' }, taint('dedicated', 'NoSchedule'))).toBe(true);
  });

  it('an empty effect matches every effect, a set one only its own', () => {
    expect(toleratesTaint({ key: 'dedicated', operator: 'Exists' }, taint('dedicated', 'NoExecute'))).toBe(true);
    expect(toleratesTaint({ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, t)).toBe(false);
  });

  it('an empty key with Exists tolerates every taint', () => {
    expect(toleratesTaint({ operator: 'Exists' }, t)).toBe(true);
    expect(toleratesTaint({ key: '', operator: 'Exists' }, taint('x', 'NoExecute', 'y'))).toBe(true);
  });

  it('an empty key with Equal matches any key whose value equals', () => {
    expect(toleratesTaint({ operator: 'Equal', value: 'gpu' }, t)).toBe(true);
    expect(toleratesTaint({ operator: 'Equal', value: 'cpu' }, t)).toBe(false);
  });

  it('NoSchedule and NoExecute block unless tolerated; PreferNoSchedule never blocks', () => {
    expect(firstBlockingTaint([taint('a', 'PreferNoSchedule')], undefined)).toBeUndefined();
    expect(firstBlockingTaint([taint('a', 'NoExecute')], undefined)?.key).toBe('a');
    expect(firstBlockingTaint([taint('a', 'NoExecute'), taint('b', 'NoSchedule')], [{ key: 'a', operator: 'Exists' }])?.key).toBe('b');
    expect(firstBlockingTaint([taint('a', 'NoExecute'), taint('b', 'NoSchedule')], [{ operator: 'Exists' }])).toBeUndefined();
  });
});

describe('nodeSelector', () => {
  it('requires every key with an equal value', () => {
    expect(nodeSelectorMatches({ zone: 'a', gpu: 'v100' }, { zone: 'a', gpu: 'v100', x: '1' })).toBe(true);
    expect(nodeSelectorMatches({ zone: 'a' }, { zone: 'b' })).toBe(false);
    expect(nodeSelectorMatches({ zone: '' }, {})).toBe(false);
    expect(nodeSelectorMatches(undefined, {})).toBe(true);
    expect(nodeSelectorMatches({}, {})).toBe(true);
  });
});

describe('required node affinity (component-helpers nodeaffinity)', () => {
  const labels = { zone: 'a', cores: '16', name: 'x' };

  it('In, NotIn, Exists, DoesNotExist', () => {
    expect(nodeSelectorTermMatches(term({ key: 'zone', operator: 'In', values: ['a', 'b'] }), n(labels))).toBe(true);
    expect(nodeSelectorTermMatches(term({ key: 'zone', operator: 'In', values: ['b'] }), n(labels))).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: 'missing', operator: 'In', values: ['a'] }), n(labels))).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: 'zone', operator: 'NotIn', values: ['b'] }), n(labels))).toBe(true);
    expect(nodeSelectorTermMatches(term({ key: 'missing', operator: 'NotIn', values: ['b'] }), n(labels))).toBe(true);
    expect(nodeSelectorTermMatches(term({ key: 'zone', operator: 'NotIn', values: ['a'] }), n(labels))).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: 'zone', operator: 'Exists' }), n(labels))).toBe(true);
    expect(nodeSelectorTermMatches(term({ key: 'missing', operator: 'DoesNotExist' }), n(labels))).toBe(true);
    expect(nodeSelectorTermMatches(term({ key: 'zone', operator: 'DoesNotExist' }), n(labels))).toBe(false);
  });

  it('Gt and Lt compare the label as a 64-bit integer; a non-integer never matches', () => {
    expect(nodeSelectorTermMatches(term({ key: 'cores', operator: 'Gt', values: ['8'] }), n(labels))).toBe(true);
    expect(nodeSelectorTermMatches(term({ key: 'cores', operator: 'Gt', values: ['16'] }), n(labels))).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: 'cores', operator: 'Lt', values: ['+17'] }), n(labels))).toBe(true);
    expect(nodeSelectorTermMatches(term({ key: 'cores', operator: 'Lt', values: ['-1'] }), n(labels))).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: 'name', operator: 'Gt', values: ['1'] }), n(labels))).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: 'missing', operator: 'Lt', values: ['1'] }), n(labels))).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: 'cores', operator: 'Gt', values: ['9223372036854775808'] }), n(labels))).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: 'cores', operator: 'Gt', values: ['-9223372036854775808'] }), n(labels))).toBe(true);
  });

  it('a requirement Kubernetes would reject invalidates its whole term', () => {
    expect(nodeSelectorTermMatches(term({ key: 'zone', operator: 'In', values: [] }), n(labels))).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: 'missing', operator: 'NotIn', values: [] }), n(labels))).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: 'zone', operator: 'Exists', values: ['a'] }), n(labels))).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: 'cores', operator: 'Gt', values: ['1', '2'] }), n(labels))).toBe(false);
    expect(nodeSelectorTermMatches(term({ key: 'cores', operator: 'Gt', values: ['x'] }), n(labels))).toBe(false);
    // An invalid requirement spoils the term even when the others match.
    expect(
      nodeSelectorTermMatches(
        term({ key: 'zone', operator: 'In', values: ['a'] }, { key: 'zone', operator: 'Exists', values: ['a'] }),
        n(labels),
      ),
    ).toBe(false);
  });

  it('matchFields supports metadata.name with In/NotIn and exactly one value', () => {
    const named = node('node-7', { cpu: 1 });
    expect(nodeSelectorTermMatches({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-7'] }] }, named)).toBe(true);
    expect(nodeSelectorTermMatches({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-8'] }] }, named)).toBe(false);
    expect(nodeSelectorTermMatches({ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['node-8'] }] }, named)).toBe(true);
    expect(nodeSelectorTermMatches({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-7', 'node-8'] }] }, named)).toBe(
      false,
    );
    expect(nodeSelectorTermMatches({ matchFields: [{ key: 'metadata.name', operator: 'Exists' }] }, named)).toBe(false);
  });

  it('expressions and fields of one term are ANDed, terms are ORed, empty terms match nothing', () => {
    const named = node('node-7', { cpu: 1 }, { labels: { zone: 'a' } });
    const both = {
      matchExpressions: [{ key: 'zone', operator: 'In' as const, values: ['a'] }],
      matchFields: [{ key: 'metadata.name', operator: 'In' as const, values: ['node-8'] }],
    };
    expect(nodeSelectorTermMatches(both, named)).toBe(false);
    expect(nodeSelectorTermsMatch([both, term({ key: 'zone', operator: 'Exists' })], named)).toBe(true);
    expect(nodeSelectorTermMatches({}, named)).toBe(false);
    expect(nodeSelectorTermsMatch([{}, { matchExpressions: [] }], named)).toBe(false);
    expect(nodeSelectorTermsMatch([], named)).toBe(false);
  });
});

describe('node feasibility', () => {
  it('never places on NotReady nodes, even with a catch-all toleration', () => {
    expect(nodeFeasibility(n({}, { ready: false }), { tolerations: [{ operator: 'Exists' }] })).toBe('NotReady');
  });

  it('a cordoned node only takes pods tolerating node.kubernetes.io/unschedulable:NoSchedule', () => {
    const cordoned = n({}, { unschedulable: true });
    expect(nodeFeasibility(cordoned, {})).toBe('unschedulable');
    expect(
      nodeFeasibility(cordoned, { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }),
    ).toBeUndefined();
    expect(
      nodeFeasibility(cordoned, { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' }] }),
    ).toBe('unschedulable');
  });

  it('reports the first failing rule', () => {
    const tainted = n({ zone: 'a' }, { taints: [taint('gpu', 'NoSchedule')] });
    expect(nodeFeasibility(tainted, {})).toBe('taint');
    expect(nodeFeasibility(tainted, { tolerations: [{ key: 'gpu', operator: 'Exists' }], nodeSelector: { zone: 'b' } })).toBe(
      'nodeSelector',
    );
    expect(
      nodeFeasibility(tainted, {
        tolerations: [{ key: 'gpu', operator: 'Exists' }],
        requiredNodeAffinity: [term({ key: 'zone', operator: 'NotIn', values: ['a'] })],
      }),
    ).toBe('nodeAffinity');
    expect(nodeFeasibility(tainted, { tolerations: [{ key: 'gpu', operator: 'Exists' }], nodeSelector: { zone: 'a' } })).toBeUndefined();
    expect(nodeFeasibility(n({}, { taints: [taint('soft', 'PreferNoSchedule')] }), {})).toBeUndefined();
  });

  it('gives equal constraint sets one key whatever their order', () => {
    const a = constraintsKey({
      nodeSelector: { b: '2', a: '1' },
      tolerations: [
        { key: 'x', operator: 'Exists' },
        { key: 'y', value: 'v' },
      ],
    });
    const b = constraintsKey({
      nodeSelector: { a: '1', b: '2' },
      tolerations: [
        { key: 'y', operator: 'Equal', value: 'v' },
        { key: 'x', operator: 'Exists' },
      ],
    });
    expect(a).toBe(b);
    expect(constraintsKey({ nodeSelector: { a: '1' } })).not.toBe(constraintsKey({ nodeSelector: { a: '2' } }));
  });
});
