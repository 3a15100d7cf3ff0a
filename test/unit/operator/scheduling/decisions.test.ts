import { describe, expect, it } from 'vitest';
import { DecisionBook } from '../../../../src/operator/scheduling/decisions/book.ts';
import { PENDING_TTL_MS, pendingAlive, restoreDecision } from '../../../../src/operator/scheduling/decisions/decision.ts';
import { T0, adopt, bookWith, replicaPod } from './fixtures.ts';

const A = 'ns/a';
const NO_UPKEEP = { restored: new Map(), suspended: [], settled: new Map(), attained: new Map(), at: T0 };
const STAMP = new Date(T0).toISOString();

describe('a decision rebuilt from the API', () => {
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

  it('wants worker 0 back when the workers found do not include it (its create lost with the operator that sent it)', () => {
    // operator-kill.test.ts, seed 8001: job-17's creates for workers 0..2 were sent, worker 0's never
    // reached the API, and the successor restored the target as the two workers found: the job ran on
    // workers 1 and 2 without the worker whose completion decides its success, until a scale-out.
    const job = { metadata: { name: 'a' }, status: { scheduling: { queue: 'Running' as const, workers: { current: 0, min: 2, max: 4 } } } };
    const found = [replicaPod('a', 'ps', 0, 'n1'), replicaPod('a', 'worker', 1, 'n1'), replicaPod('a', 'worker', 2, 'n2')];
    expect(restoreDecision(job, found, T0).targetWorkers).toBe(3);
    // Worker 0 there (or still going): the recorded target stands.
    const withZero = [...found, replicaPod('a', 'worker', 0, 'n2', { phase: 'Failed' })];
    expect(restoreDecision(job, withZero, T0).targetWorkers).toBe(0);
  });

  it('wants the worker a SpeCon move left Moving back, though the status counted the job without it', () => {
    // two-nodes.test.ts (real pods): the operator SIGKILLed once the move was Moving; its successor
    // restored the target as the one worker left, and the moved worker was never re-created.
    const moving = { pod: 'a-worker-1', from: 'n1', to: 'n2', time: '2026-11-24T09:59:00Z', state: 'Moving' as const };
    const scheduling = { queue: 'Running' as const, workers: { current: 1, min: 2, max: 2 } };
    const job = { metadata: { name: 'a' }, status: { scheduling, migration: { migrations: 0, last: moving } } };
    const left = [replicaPod('a', 'ps', 0, 'n1'), replicaPod('a', 'worker', 0, 'n1')];
    expect(restoreDecision(job, left, T0).targetWorkers).toBe(2);
    // The replacement already there, or the move settled: the recorded target stands.
    expect(restoreDecision(job, [...left, replicaPod('a', 'worker', 1, 'n2')], T0).targetWorkers).toBe(1);
    const settled = { ...job, status: { scheduling, migration: { migrations: 1, last: { ...moving, state: 'Migrated' as const } } } };
    expect(restoreDecision(settled, left, T0).targetWorkers).toBe(1);
  });
});

describe('decision book: the pass', () => {
  it('applies upkeep: registers restored decisions once, empties suspended ones', () => {
    const book = new DecisionBook();
    const a = restoreDecision({ metadata: { name: 'a' } }, [], T0);
    book.upkeep({ ...NO_UPKEEP, restored: new Map([[A, a]]) });
    book.upkeep({ ...NO_UPKEEP, restored: new Map([[A, restoreDecision({ metadata: { name: 'a' } }, [], T0)]]) });
    expect(book.get(A)).toBe(a);
    book.admit(A, { byName: [['a-ps-0', 'n1']], workerNodes: ['n1'], targetWorkers: 1, starving: false, scaledOut: 0 }, T0);
    book.upkeep({ ...NO_UPKEEP, suspended: [A] });
    expect(a).toMatchObject({ admitted: false, pendingWorkers: [] });
    expect(a.pendingByName.size).toBe(0);
    book.forget(A);
    expect(book.get(A)).toBeUndefined();
  });

  it('applies upkeep: attained service as the snapshot counted it, and when; settled placements', () => {
    const { book, d } = bookWith(A, (d) => {
      d.pendingByName.set('a-ps-0', { node: 'n1', since: T0 });
      d.pendingWorkers = [{ node: 'n1', since: T0 }];
    });
    book.upkeep({ ...NO_UPKEEP, attained: new Map([[A, 90]]), at: T0 + 5 });
    expect(d).toMatchObject({ attainedWorkerSeconds: 90, attainedAt: T0 + 5 });
    book.upkeep({ ...NO_UPKEEP, settled: new Map([[A, { names: ['a-ps-0'], workersAlive: [] }]]) });
    expect(d.pendingByName.size).toBe(0);
    expect(d.pendingWorkers).toEqual([]);
  });

  it('admits: placements by name and by node, the target, starving, and workers beyond the minimum as a scale-out', () => {
    const { book, d } = bookWith(A);
    book.admit(A, { byName: [['a-ps-0', 'n1']], workerNodes: ['n1', 'n2'], targetWorkers: 2, starving: true, scaledOut: 1 }, T0);
    expect(d).toMatchObject({ admitted: true, targetWorkers: 2, starving: true, scaleOuts: 1, lastScaleTime: STAMP });
    expect([...d.pendingByName]).toEqual([['a-ps-0', { node: 'n1', since: T0 }]]);
    expect(d.pendingWorkers.map((p) => p.node)).toEqual(['n1', 'n2']);
    const { book: other, d: plain } = bookWith(A);
    other.admit(A, { byName: [], workerNodes: ['n1'], targetWorkers: 1, starving: false, scaledOut: 0 }, T0);
    expect(plain.scaleOuts).toBe(0);
    expect(plain.lastScaleTime).toBeUndefined();
  });

  it('suspends: back in the queue at its minimum, placements given up, its workers counted as preempted', () => {
    const { book, d } = bookWith(A, (d) => {
      d.admitted = true;
      d.targetWorkers = 3;
      d.pendingWorkers = [{ node: 'n1', since: T0 }];
    });
    book.suspend(A, { minWorkers: 1, preempted: 3, now: T0 });
    expect(d).toMatchObject({
      admitted: false,
      targetWorkers: 1,
      preemptions: 3,
      pendingWorkers: [],
      lastScaleTime: STAMP,
    });
  });

  it('scales in to no less than the minimum, and keeps the size of a job whose workers only move', () => {
    const { book, d } = bookWith(A, (d) => {
      d.targetWorkers = 3;
    });
    book.scaleIn(A, { removed: 1, relocated: true, minWorkers: 1, now: T0 });
    expect(d).toMatchObject({ targetWorkers: 3, preemptions: 1 });
    book.scaleIn(A, { removed: 5, relocated: false, minWorkers: 2, now: T0 });
    expect(d).toMatchObject({ targetWorkers: 2, preemptions: 6, lastScaleTime: STAMP });
  });

  it('scales out to no more than the maximum; workers replacing moved ones do not grow the job', () => {
    const { book, d } = bookWith(A, (d) => {
      d.targetWorkers = 2;
    });
    book.scaleOut(A, { nodes: ['n1', 'n2'], added: 2, moved: 1, maxWorkers: 4, now: T0 });
    expect(d).toMatchObject({ targetWorkers: 3, scaleOuts: 2, lastScaleTime: STAMP });
    expect(d.pendingWorkers.map((p) => p.node)).toEqual(['n1', 'n2']);
    book.scaleOut(A, { nodes: ['n3', 'n3'], added: 2, moved: 0, maxWorkers: 4, now: T0 });
    expect(d.targetWorkers).toBe(4);
  });

  it('repairs by name or by node, shrinks by what cannot be replaced', () => {
    const { book, d } = bookWith(A, (d) => {
      d.targetWorkers = 3;
    });
    book.repair(A, { name: 'a-ps-0', node: 'n1' }, T0);
    book.repair(A, { name: undefined, node: 'n2' }, T0);
    expect([...d.pendingByName.keys()]).toEqual(['a-ps-0']);
    expect(d.pendingWorkers).toEqual([{ node: 'n2', since: T0 }]);
    book.shrink(A, 2);
    expect(d.targetWorkers).toBe(1);
  });

  it('says what happened; a wait, a queue and a weight say whether they are news', () => {
    const { book, d } = bookWith(A);
    book.explain(A, 'Preempted', 'took 1 worker');
    expect(d).toMatchObject({ reason: 'Preempted', message: 'took 1 worker' });
    expect(book.wait(A, { reason: 'Waiting', message: 'needs 4 cpu', starving: false })).toBe(true);
    expect(book.wait(A, { reason: 'Waiting', message: 'needs 4 cpu', starving: false })).toBe(false);
    expect(book.wait(A, { reason: 'Starving', message: 'needs 4 cpu', starving: true })).toBe(true);
    expect(d).toMatchObject({ reason: 'Starving', starving: true });
    expect(book.chargeTo(A, 'team-a')).toBe(true);
    expect(book.chargeTo(A, 'team-a')).toBe(false);
    expect(book.chargeTo(A, undefined)).toBe(true);
    expect(d).not.toHaveProperty('clusterQueue');
    expect(book.weigh(A, 0.12345)).toBe(true);
    expect(book.weigh(A, 0.1234)).toBe(false); // the same at the status's precision
    expect(d.weight).toBe(0.123);
  });

  it('reports attained service: the status catches up with what was counted', () => {
    const { book, d } = bookWith(A);
    book.upkeep({ ...NO_UPKEEP, attained: new Map([[A, 7200.7]]) });
    book.reportAttained(A);
    expect(d.attainedReported).toBe(7200);
  });

  it('changes nothing for a job it does not know', () => {
    const book = new DecisionBook();
    book.admit(A, { byName: [], workerNodes: ['n1'], targetWorkers: 1, starving: false, scaledOut: 0 }, T0);
    book.suspend(A, { minWorkers: 1, preempted: 1, now: T0 });
    book.scaleIn(A, { removed: 1, relocated: false, minWorkers: 1, now: T0 });
    book.scaleOut(A, { nodes: ['n1'], added: 1, moved: 0, maxWorkers: 2, now: T0 });
    book.repair(A, { name: undefined, node: 'n1' }, T0);
    book.explain(A, 'Admitted', 'x');
    expect(book.wait(A, { reason: 'Waiting', message: 'x', starving: false })).toBe(false);
    expect(book.chargeTo(A, 'q')).toBe(false);
    expect(book.weigh(A, 1)).toBe(false);
    expect(book.size).toBe(0);
  });
});

describe('decision book: between passes', () => {
  it('restarts the wait of placements handed to the reconciler, so none expires between its create and the cache showing the pod', () => {
    const { book, d } = bookWith(A, (d) => {
      d.pendingByName.set('a-ps-0', { node: 'n1', since: T0 });
      d.pendingByName.set('a-chief-0', { node: 'n1', since: T0 });
      d.pendingWorkers = [
        { node: 'n1', since: T0 },
        { node: 'n1', since: T0 },
        { node: 'n2', since: T0 },
      ];
    });
    // Handed out just before the TTL: the pods are created now, the cache shows them a little later.
    const handout = T0 + PENDING_TTL_MS - 1_000;
    book.handedOut(A, ['a-ps-0'], ['n1'], handout);
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

  it('settles a pending placement when its pod appears: by name, or by node for an elastic worker', () => {
    const { book, d } = bookWith(A, (d) => {
      d.pendingByName.set('a-ps-0', { node: 'n1', since: T0 });
      d.pendingWorkers = [
        { node: 'n1', since: T0 },
        { node: 'n2', since: T0 },
      ];
    });
    book.podCreated(A, { name: 'a-ps-0', node: 'n1', worker: false });
    expect(d.pendingByName.size).toBe(0);
    expect(d.pendingWorkers).toHaveLength(2);
    book.podCreated(A, { name: 'a-worker-3', node: 'n2', worker: true });
    expect(d.pendingWorkers.map((p) => p.node)).toEqual(['n1']);
    book.podCreated('ns/unknown', { name: 'x', node: 'n1', worker: true });
  });

  it('unblocks a preemptor when its last victim is gone, and a job with placements on a node when a pod there is gone', () => {
    const book = new DecisionBook();
    const preemptor = adopt(book, 'ns/big');
    book.preempting('ns/big', { key: 'ns/small-worker-1', uid: 'u1' });
    book.preempting('ns/big', { key: 'ns/small-worker-2', uid: 'u2' });
    adopt(book, 'ns/other', (d) => {
      d.pendingWorkers = [{ node: 'n3', since: T0 }];
    });
    expect(book.isPreempted('ns/small-worker-1', 'u1')).toBe(true);
    expect(book.podGone({ key: 'ns/small-worker-1', uid: 'u1', node: 'n1' })).toEqual([]);
    expect(book.isPreempted('ns/small-worker-1', 'u1')).toBe(false);
    expect(book.podGone({ key: 'ns/small-worker-2', uid: 'u2', node: 'n1' })).toEqual(['ns/big']);
    expect(preemptor.victims.size).toBe(0);
    expect(book.podGone({ key: 'ns/whatever', uid: 'u9', node: 'n3' })).toEqual(['ns/other']);
    expect(book.podGone({ key: 'ns/whatever', uid: 'u9', node: 'n4' })).toEqual([]);
  });

  it('tells a victim from a later pod of the same name', () => {
    const book = new DecisionBook();
    const preemptor = adopt(book, 'ns/big');
    book.preempting('ns/big', { key: 'ns/small-worker-1', uid: 'old' });
    // A replacement of the same name is not the victim: it is not preempted, and its end frees nobody.
    expect(book.isPreempted('ns/small-worker-1', 'new')).toBe(false);
    expect(book.podGone({ key: 'ns/small-worker-1', uid: 'new', node: undefined })).toEqual([]);
    expect(preemptor.victims.size).toBe(1);
    // The cache holding only the replacement means the victim is gone (its delete event was missed).
    book.pruneVictims(() => ({ uid: 'new' }));
    expect(preemptor.victims.size).toBe(0);
    expect(book.isPreempted('ns/small-worker-1', 'old')).toBe(false);
  });

  it('keeps a victim still cached under its UID, and drops it once the cache has none', () => {
    const book = new DecisionBook();
    const preemptor = adopt(book, 'ns/big');
    book.preempting('ns/big', { key: 'ns/small-worker-1', uid: 'u1' });
    book.pruneVictims(() => ({ uid: 'u1' }));
    expect(preemptor.victims.size).toBe(1);
    book.pruneVictims(() => undefined);
    expect(preemptor.victims.size).toBe(0);
    expect(book.isPreempted('ns/small-worker-1', 'u1')).toBe(false);
  });

  it('forgets the victims of a job it forgets', () => {
    const book = new DecisionBook();
    adopt(book, 'ns/big');
    book.preempting('ns/big', { key: 'ns/small-worker-1', uid: 'u1' });
    book.forget('ns/big');
    expect(book.isPreempted('ns/small-worker-1', 'u1')).toBe(false);
  });
});
