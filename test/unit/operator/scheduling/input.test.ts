import { describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { DecisionBook } from '../../../../src/operator/scheduling/decisions/book.ts';
import { PENDING_TTL_MS, restoreDecision } from '../../../../src/operator/scheduling/decisions/decision.ts';
import {
  heldPlacementNodes,
  holdsNode,
  readInput,
  schedulingInput,
  type InputCache,
  type InputFacts,
} from '../../../../src/operator/scheduling/decisions/input.ts';
import { NS, T0, adopt, replicaPod } from './fixtures.ts';

const FACTS: InputFacts = {
  elastic: true,
  bounds: { min: 1, max: 4 },
  finished: false,
  liveWorkers: 1,
  placedBy: 'ours',
  victimsPresent: false,
  heldNodes: new Set(),
  now: T0,
};

/** An admitted elastic job's decision, as a value (no book). */
function admitted() {
  const d = restoreDecision({ metadata: { name: 'a', creationTimestamp: '2026-11-24T09:00:00Z' } }, [], T0);
  d.admitted = true;
  d.targetWorkers = 3;
  d.weight = 0.75;
  d.pendingByName.set('a-ps-0', { node: 'n1', since: T0 });
  d.pendingWorkers = [
    { node: 'n1', since: T0 },
    { node: 'n2', since: T0 },
  ];
  return d;
}

describe('the scheduling input of one job', () => {
  it('gives the placements to create now and the status to write', () => {
    const input = schedulingInput(admitted(), FACTS);
    expect(input).toMatchObject({
      admitted: true,
      workers: 3,
      placements: { 'a-ps-0': { nodeName: 'n1', placedBy: 'ours' } },
      workerNodes: ['n1', 'n2'],
      requirePlacement: true,
      status: {
        queue: 'Running',
        reason: 'Admitted',
        weight: '0.750',
        enqueueTime: '2026-11-24T09:00:00.000Z',
        workers: { current: 1, min: 1, max: 4 },
        starving: false,
      },
    });
  });

  it('creates nothing while the victims of a preemption are still there', () => {
    expect(schedulingInput(admitted(), { ...FACTS, victimsPresent: true })).toMatchObject({
      admitted: true,
      placements: {},
      workerNodes: [],
    });
  });

  it('a node is held by a preempted pod terminating in the cache, or by one the book knows it just preempted', () => {
    const live = replicaPod('b', 'worker', 1, 'n1');
    const terminating = replicaPod('b', 'worker', 2, 'n1', { deleting: true, removal: 'preemption' });
    const scaledIn = replicaPod('b', 'worker', 3, 'n1', { deleting: true, removal: 'scale-in' });
    const book = new DecisionBook();
    const isPreempted = (key: string, uid: string | undefined) => book.isPreempted(key, uid);
    expect(holdsNode([live, scaledIn], isPreempted)).toBe(false);
    expect(holdsNode([live, terminating], isPreempted)).toBe(true);
    // The delete was sent but the cache still shows the pod live and unmarked.
    adopt(book, `${NS}/a`);
    book.preempting(`${NS}/a`, { key: `${NS}/b-worker-1`, uid: live.metadata?.uid });
    expect(holdsNode([live], isPreempted)).toBe(true);
  });

  it('holds placements on a node where a preempted pod still terminates, and drops expired ones', () => {
    const d = admitted();
    const held = heldPlacementNodes(d, T0, (n) => n === 'n1');
    expect([...held]).toEqual(['n1']);
    expect(schedulingInput(d, { ...FACTS, heldNodes: held })).toMatchObject({ placements: {}, workerNodes: ['n2'] });
    expect(schedulingInput(d, { ...FACTS, now: T0 + PENDING_TTL_MS })).toMatchObject({ placements: {}, workerNodes: [] });
  });

  it('reports a waiting job with its reason and no workers, and a finished one as Finished', () => {
    const d = admitted();
    d.admitted = false;
    d.reason = 'Starving';
    d.message = 'needs 4 cpu';
    d.starving = true;
    const fixed = { ...FACTS, elastic: false };
    const input = schedulingInput(d, fixed);
    expect(input.workers).toBeUndefined();
    expect(input.status).toMatchObject({
      queue: 'Waiting',
      reason: 'Starving',
      message: 'needs 4 cpu',
      starving: true,
      workers: { current: 0 },
    });
    expect(schedulingInput(d, { ...fixed, finished: true }).status).toMatchObject({ queue: 'Finished', starving: false });
  });

  it('tells a running job what the scheduler last did to it, and keeps it marked as starving if it was', () => {
    const d = admitted();
    d.reason = 'Preempted';
    d.message = 'Scaled in by 1 worker(s) to admit ns/b (weight 0.90 vs 0.30); now 2 worker(s), minimum 1';
    d.starving = true;
    expect(schedulingInput(d, FACTS).status).toMatchObject({ queue: 'Running', reason: 'Preempted', message: d.message, starving: true });
    // A waiting reason left from before the admission (e.g. restored after a restart) reads as Admitted.
    d.reason = 'Waiting';
    d.message = 'needs 4 cpu';
    const status = schedulingInput(d, FACTS).status;
    expect(status).toMatchObject({ queue: 'Running', reason: 'Admitted' });
    expect(status?.message).toBeUndefined();
  });

  it('keeps the enqueue time to the millisecond (the queue orders by it)', () => {
    const d = restoreDecision({ metadata: { name: 'a', creationTimestamp: '2026-11-24T09:00:00.123Z' } }, [], T0);
    expect(schedulingInput(d, FACTS).status?.enqueueTime).toBe('2026-11-24T09:00:00.123Z');
  });
});

/** Caches over plain pods, for readInput. */
function cacheOf(pods: readonly V1Pod[], book: DecisionBook): InputCache {
  const key = (p: V1Pod) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;
  return {
    pod: (k) => pods.find((p) => key(p) === k),
    onNode: (node) => pods.filter((p) => p.spec?.nodeName === node),
    isPreempted: (k, uid) => book.isPreempted(k, uid),
  };
}

describe('reading the input between passes', () => {
  const A = `${NS}/a`;
  const JOB = { elastic: true, bounds: { min: 1, max: 4 }, finished: false, liveWorkers: 1, placedBy: 'ours' };

  /** A's placements on n1 and n2, and a victim of A (b-worker-1, on n1). */
  function preempting() {
    const book = new DecisionBook();
    adopt(book, A, (d) => {
      d.admitted = true;
      d.pendingWorkers = [
        { node: 'n1', since: T0 },
        { node: 'n2', since: T0 },
      ];
    });
    const victim = replicaPod('b', 'worker', 1, 'n1');
    book.preempting(A, { key: `${NS}/b-worker-1`, uid: victim.metadata?.uid });
    return { book, victim };
  }

  it('waits while a victim is still cached under its UID, and not once the cache has none or a later pod of its name', () => {
    const { book, victim } = preempting();
    const read = (pods: V1Pod[]) => readInput(book.get(A)!, JOB, cacheOf(pods, book), T0).workerNodes;
    expect(read([victim])).toEqual([]);
    // A replacement of the same name is not the victim; n1 is held only while the victim was known preempted.
    const later = { ...victim, metadata: { ...victim.metadata, uid: 'uid-later' } };
    expect(read([later])).toEqual(['n1', 'n2']);
    expect(read([])).toEqual(['n1', 'n2']);
  });

  it('holds placements on a node where a pod preempted for another job still terminates', () => {
    const { book } = preempting();
    const other = replicaPod('c', 'worker', 0, 'n2', { deleting: true, removal: 'preemption' });
    expect(readInput(book.get(A)!, JOB, cacheOf([other], book), T0).workerNodes).toEqual(['n1']);
  });

  it('changes nothing in the book: not for a job it does not know, nor for victims gone, nor the placements’ wait', () => {
    const { book } = preempting();
    const before = structuredClone([...book.entries()]);
    readInput(book.get(A)!, JOB, cacheOf([], book), T0 + PENDING_TTL_MS - 1);
    expect([...book.entries()]).toEqual(before);
    expect(book.isPreempted(`${NS}/b-worker-1`, 'uid-b-worker-1')).toBe(true);
    expect(book.get(`${NS}/new`)).toBeUndefined();
  });
});
