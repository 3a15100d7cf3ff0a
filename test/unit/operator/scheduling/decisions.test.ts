import { describe, expect, it } from 'vitest';
import { DecisionBook, PENDING_TTL_MS, handedOut, pendingAlive, restoreDecision } from '../../../../src/operator/scheduling/decisions/book.ts';
import { T0, replicaPod } from './fixtures.ts';

describe('decision book', () => {
  it('restarts the wait of placements handed to the reconciler, so none expires between its create and the cache showing the pod', () => {
    const d = restoreDecision({ metadata: { name: 'a', creationTimestamp: '2026-11-24T09:00:00Z' } }, [], T0);
    d.pendingByName.set('a-ps-0', { node: 'n1', since: T0 });
    d.pendingByName.set('a-chief-0', { node: 'n1', since: T0 });
    d.pendingWorkers = [
      { node: 'n1', since: T0 },
      { node: 'n1', since: T0 },
      { node: 'n2', since: T0 },
    ];
    // Handed out just before the TTL: the pods are created now, the cache shows them a little later.
    const handout = T0 + PENDING_TTL_MS - 1_000;
    handedOut(d, ['a-ps-0'], ['n1'], handout);
    const later = T0 + PENDING_TTL_MS + 1_000;
    expect(pendingAlive(d.pendingByName.get('a-ps-0')!, later)).toBe(true);
    expect(pendingAlive(d.pendingByName.get('a-chief-0')!, later)).toBe(false);
    // One worker placement per node handed out.
    expect(d.pendingWorkers.map((p) => [p.node, pendingAlive(p, later)])).toEqual([
      ['n1', true],
      ['n1', false],
      ['n2', false],
    ]);
    // Still bounded: a placement handed out once and never seen expires a TTL after that.
    expect(pendingAlive(d.pendingByName.get('a-ps-0')!, handout + PENDING_TTL_MS)).toBe(false);
  });

  it('rebuilds a decision from status.scheduling after a restart', () => {
    const d = restoreDecision(
      {
        metadata: { name: 'a', creationTimestamp: '2026-11-24T09:00:00Z' },
        status: {
          scheduling: {
            queue: 'Running',
            enqueueTime: '2026-11-24T09:30:00Z',
            weight: '0.731',
            workers: { current: 3, min: 1, max: 4 },
            preemptions: 2,
            scaleOuts: 5,
            starving: false,
            attainedWorkerSeconds: 7200,
          },
        },
      },
      [],
      T0,
    );
    expect(d).toMatchObject({ admitted: true, targetWorkers: 3, enqueueTime: Date.parse('2026-11-24T09:30:00Z'), weight: 0.731 });
    expect(d).toMatchObject({ preemptions: 2, scaleOuts: 5, attainedWorkerSeconds: 7200 });
    expect(d.attainedAt).toBeUndefined();
  });

  it('counts a job with live pods as admitted even without status, and waits it from its creation', () => {
    const d = restoreDecision(
      { metadata: { name: 'a', creationTimestamp: '2026-11-24T09:00:00Z' } },
      [replicaPod('a', 'worker', 0, 'n1')],
      T0,
    );
    expect(d).toMatchObject({ admitted: true, targetWorkers: 1, enqueueTime: Date.parse('2026-11-24T09:00:00Z') });
    const waiting = restoreDecision({ metadata: { name: 'b' } }, [replicaPod('b', 'worker', 0, 'n1', { phase: 'Succeeded' })], T0);
    expect(waiting).toMatchObject({ admitted: false, targetWorkers: 0, enqueueTime: T0 });
  });

  it('settles a pending placement when its pod appears: by name, or by node for an elastic worker', () => {
    const book = new DecisionBook();
    const d = book.ensure('ns/a', { metadata: { name: 'a' } }, [], T0);
    d.pendingByName.set('a-ps-0', { node: 'n1', since: T0 });
    d.pendingWorkers = [
      { node: 'n1', since: T0 },
      { node: 'n2', since: T0 },
    ];
    book.podCreated('ns/a', { name: 'a-ps-0', node: 'n1', worker: false });
    expect(d.pendingByName.size).toBe(0);
    expect(d.pendingWorkers).toHaveLength(2);
    book.podCreated('ns/a', { name: 'a-worker-3', node: 'n2', worker: true });
    expect(d.pendingWorkers.map((p) => p.node)).toEqual(['n1']);
    book.podCreated('ns/unknown', { name: 'x', node: 'n1', worker: true });
  });

  it('unblocks a preemptor when its last victim is gone, and a job held on a node when that node frees up', () => {
    const book = new DecisionBook();
    const preemptor = book.ensure('ns/big', { metadata: { name: 'big' } }, [], T0);
    book.preempting('ns/big', { key: 'ns/small-worker-1', uid: 'u1' });
    book.preempting('ns/big', { key: 'ns/small-worker-2', uid: 'u2' });
    const held = book.ensure('ns/other', { metadata: { name: 'other' } }, [], T0);
    held.heldOnNodes.add('n3');
    expect(book.isPreempted('ns/small-worker-1', 'u1')).toBe(true);
    expect(book.podGone({ key: 'ns/small-worker-1', uid: 'u1', node: 'n1' })).toEqual([]);
    expect(book.isPreempted('ns/small-worker-1', 'u1')).toBe(false);
    expect(book.podGone({ key: 'ns/small-worker-2', uid: 'u2', node: 'n1' })).toEqual(['ns/big']);
    expect(preemptor.victims.size).toBe(0);
    expect(book.podGone({ key: 'ns/whatever', uid: 'u9', node: 'n3' })).toEqual(['ns/other']);
    expect(held.heldOnNodes.size).toBe(0);
  });

  it('tells a victim from a later pod of the same name', () => {
    const book = new DecisionBook();
    const preemptor = book.ensure('ns/big', { metadata: { name: 'big' } }, [], T0);
    book.preempting('ns/big', { key: 'ns/small-worker-1', uid: 'old' });
    // A replacement of the same name is not the victim: it is not preempted, and its end frees nobody.
    expect(book.isPreempted('ns/small-worker-1', 'new')).toBe(false);
    expect(book.podGone({ key: 'ns/small-worker-1', uid: 'new', node: undefined })).toEqual([]);
    expect(preemptor.victims.size).toBe(1);
    // The cache holding only the replacement means the victim is gone (its delete event was missed).
    book.pruneVictims('ns/big', () => ({ uid: 'new' }));
    expect(preemptor.victims.size).toBe(0);
    expect(book.isPreempted('ns/small-worker-1', 'old')).toBe(false);
  });

  it('keeps a victim still cached under its UID, and drops it once the cache has none', () => {
    const book = new DecisionBook();
    const preemptor = book.ensure('ns/big', { metadata: { name: 'big' } }, [], T0);
    book.preempting('ns/big', { key: 'ns/small-worker-1', uid: 'u1' });
    book.pruneVictims('ns/big', () => ({ uid: 'u1' }));
    expect(preemptor.victims.size).toBe(1);
    book.pruneVictims('ns/big', () => undefined);
    expect(preemptor.victims.size).toBe(0);
    expect(book.isPreempted('ns/small-worker-1', 'u1')).toBe(false);
  });

  it('forgets the victims of a job it forgets', () => {
    const book = new DecisionBook();
    book.ensure('ns/big', { metadata: { name: 'big' } }, [], T0);
    book.preempting('ns/big', { key: 'ns/small-worker-1', uid: 'u1' });
    book.forget('ns/big');
    expect(book.isPreempted('ns/small-worker-1', 'u1')).toBe(false);
  });

  it('applies upkeep: registers restored decisions once, empties suspended ones', () => {
    const book = new DecisionBook();
    const a = restoreDecision({ metadata: { name: 'a' } }, [], T0);
    book.upkeep({ restored: new Map([['ns/a', a]]), suspended: [], settled: new Map(), attained: new Map(), at: T0 });
    const again = restoreDecision({ metadata: { name: 'a' } }, [], T0);
    book.upkeep({ restored: new Map([['ns/a', again]]), suspended: [], settled: new Map(), attained: new Map(), at: T0 });
    expect(book.get('ns/a')).toBe(a);
    a.admitted = true;
    a.pendingByName.set('a-ps-0', { node: 'n1', since: T0 });
    a.pendingWorkers = [{ node: 'n1', since: T0 }];
    book.upkeep({ restored: new Map(), suspended: ['ns/a'], settled: new Map(), attained: new Map(), at: T0 });
    expect(a).toMatchObject({ admitted: false, pendingWorkers: [] });
    expect(a.pendingByName.size).toBe(0);
    book.forget('ns/a');
    expect(book.get('ns/a')).toBeUndefined();
  });

  it('applies upkeep: attained service as the snapshot counted it, and when', () => {
    const book = new DecisionBook();
    const a = restoreDecision({ metadata: { name: 'a' } }, [], T0);
    book.upkeep({ restored: new Map([['ns/a', a]]), suspended: [], settled: new Map(), attained: new Map([['ns/a', 90]]), at: T0 + 5 });
    expect(a).toMatchObject({ attainedWorkerSeconds: 90, attainedAt: T0 + 5 });
  });
});
