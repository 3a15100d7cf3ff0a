// A ClusterQueue's namespaceSelector: parsing (every error naming its field), matching with label
// selector semantics, and which jobs the queue directory lets through it.
import { describe, expect, it } from 'vitest';
import { describeSelector, parseNamespaceSelector, selectorMatches } from '../../../../src/api/queues/namespace-selector.ts';
import type { ClusterQueue, LocalQueue } from '../../../../src/api/queues/types.ts';
import { queueDirectory, type QueueLookups } from '../../../../src/operator/scheduling/queues/directory.ts';

const parsed = (raw: unknown) => {
  const { selector, errors } = parseNamespaceSelector(raw);
  if (selector === undefined) throw new Error(`unexpected: ${errors.join('; ')}`);
  return selector;
};

describe('parseNamespaceSelector', () => {
  it('absent is no selector (every namespace); {} is a selector that matches every namespace', () => {
    expect(parseNamespaceSelector(undefined)).toEqual({ errors: [] });
    expect(selectorMatches(parsed({}), {})).toBe(true);
    expect(describeSelector(parsed({}))).toBe('{} (every namespace)');
  });

  it('names every field that is wrong', () => {
    const { selector, errors } = parseNamespaceSelector({
      matchLabels: { team: 1 },
      matchExpressions: [
        { key: 'a', operator: 'Equals' },
        { key: 'b', operator: 'In' },
        { key: 'c', operator: 'Exists', values: ['x'] },
        {},
      ],
    });
    expect(selector).toBeUndefined();
    expect(errors).toEqual([
      'spec.namespaceSelector.matchLabels.team: must be a string',
      'spec.namespaceSelector.matchExpressions[0].operator: "Equals" is not one of In, NotIn, Exists, DoesNotExist',
      'spec.namespaceSelector.matchExpressions[1].values: In needs at least one value',
      'spec.namespaceSelector.matchExpressions[2].values: Exists takes no values',
      'spec.namespaceSelector.matchExpressions[3].key: required',
    ]);
    expect(parseNamespaceSelector('team=a').errors).toEqual([
      'spec.namespaceSelector: must be a label selector (matchLabels, matchExpressions)',
    ]);
  });
});

describe('selectorMatches', () => {
  const s = parsed({
    matchLabels: { team: 'a' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['x', 'y'] },
      { key: 'env', operator: 'NotIn', values: ['prod'] },
      { key: 'research', operator: 'Exists' },
      { key: 'legacy', operator: 'DoesNotExist' },
    ],
  });
  const ok = { team: 'a', tier: 'x', research: '' };

  it('requires every term (labels and expressions are ANDed)', () => {
    expect(selectorMatches(s, ok)).toBe(true);
    expect(selectorMatches(s, { ...ok, env: 'dev' })).toBe(true);
    expect(selectorMatches(s, { ...ok, team: 'b' })).toBe(false);
    expect(selectorMatches(s, { ...ok, tier: 'z' })).toBe(false);
    expect(selectorMatches(s, { team: 'a', research: '' })).toBe(false); // In needs the key
    expect(selectorMatches(s, { ...ok, env: 'prod' })).toBe(false);
    expect(selectorMatches(s, { team: 'a', tier: 'x' })).toBe(false);
    expect(selectorMatches(s, { ...ok, legacy: 'true' })).toBe(false);
  });

  it('reads as kubectl writes selectors', () => {
    expect(describeSelector(s)).toBe('team=a, tier in (x, y), env notin (prod), research, !legacy');
  });
});

describe('queue directory with namespace selectors', () => {
  const cqs: ClusterQueue[] = [
    { metadata: { name: 'team-a' }, spec: { nominalQuota: { cpu: '6' }, namespaceSelector: { matchLabels: { team: 'a' } } } },
    { metadata: { name: 'open' }, spec: { nominalQuota: { cpu: '6' } } },
  ];
  const lqs = new Map<string, LocalQueue>(
    ['ns-a', 'ns-b'].flatMap((ns) => [
      [`${ns}/a`, { metadata: { namespace: ns, name: 'a' }, spec: { clusterQueue: 'team-a' } }],
      [`${ns}/open`, { metadata: { namespace: ns, name: 'open' }, spec: { clusterQueue: 'open' } }],
    ]),
  );
  const labels = new Map([
    ['ns-a', { team: 'a' }],
    ['ns-b', { team: 'b' }],
  ]);
  const lookups: QueueLookups = {
    clusterQueues: () => cqs,
    localQueue: (ns, name) => lqs.get(`${ns}/${name}`),
    namespaceLabels: (ns) => labels.get(ns),
  };
  const label = (q: string) => ({ 'tfjob-operator.kubeflow.org/queue-name': q });

  it('admits a job of a selected namespace through the queue', () => {
    expect(queueDirectory(lookups).resolve('ns-a', label('a'))).toEqual({ queue: 'team-a', localQueue: 'ns-a/a' });
  });

  it('keeps a job of another namespace out of the queue, saying which selector and whose labels', () => {
    expect(queueDirectory(lookups).resolve('ns-b', label('a'))).toEqual({
      inadmissible:
        'ClusterQueue team-a does not admit TFJobs of namespace ns-b: its labels do not match spec.namespaceSelector team=a (LocalQueue ns-b/a)',
      localQueue: 'ns-b/a',
    });
  });

  it('checks at admission only: a job already admitted keeps its queue (and its quota use) when labels change', () => {
    expect(queueDirectory(lookups).resolve('ns-b', label('a'), true)).toEqual({ queue: 'team-a', localQueue: 'ns-b/a' });
  });

  it('a queue without a selector takes every namespace (queues made before the field keep working)', () => {
    expect(queueDirectory(lookups).resolve('ns-b', label('open'))).toEqual({ queue: 'open', localQueue: 'ns-b/open' });
  });

  it('a namespace not seen yet, or namespaces the operator may not read, wait saying so', () => {
    const unseen = queueDirectory({ ...lookups, namespaceLabels: () => undefined }).resolve('ns-a', label('a'));
    expect(unseen.inadmissible).toContain('the labels of namespace ns-a are not known yet');
    const { namespaceLabels: _, ...blind } = lookups;
    expect(queueDirectory(blind).resolve('ns-a', label('a')).inadmissible).toContain(
      'may not read namespaces (grant list/watch on namespaces)',
    );
    expect(queueDirectory(blind).resolve('ns-a', label('open'))).toEqual({ queue: 'open', localQueue: 'ns-a/open' });
  });
});
