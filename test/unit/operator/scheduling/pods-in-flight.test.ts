// The over-commit window of a job that leaves the scheduler's view (deleted, suspended, finished)
// while the TFJob controller's pod creates for it are in flight: the pods still land on their nodes,
// so their room must stay taken until the pod cache shows them.
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { DecisionBook } from '../../../../src/operator/scheduling/decisions/book.ts';
import { decide } from '../../../../src/operator/scheduling/pass/decide.ts';
import { JobShapes } from '../../../../src/operator/scheduling/pass/job-shape.ts';
import { takeSnapshot, type SnapshotSources } from '../../../../src/operator/scheduling/pass/snapshot.ts';
import { IN_FLIGHT_TTL_MS, PodsInFlight } from '../../../../src/operator/scheduling/pods-in-flight.ts';
import { DEFAULT_SCHEDULER_CONFIG } from '../../../../src/scheduler/index.ts';
import { NS, OPTIONS, T0, adopt, node, replicaPod, sources, tfjob } from './fixtures.ts';

/** The bodies the controller POSTs for job `a`'s three replicas (1 cpu each), bound to n1. */
function bodiesOfA(): V1Pod[] {
  return [replicaPod('a', 'ps', 0, 'n1'), replicaPod('a', 'worker', 0, 'n1'), replicaPod('a', 'worker', 1, 'n1')].map((p) => ({
    metadata: { name: p.metadata?.name ?? '', labels: p.metadata?.labels ?? {}, ownerReferences: p.metadata?.ownerReferences ?? [] },
    ...(p.spec === undefined ? {} : { spec: p.spec }),
  }));
}

/** cpu (millicores) each node would hold if every pod in flight landed next to the plan's placements. */
function landed(s: SnapshotSources, inFlight: readonly V1Pod[]): Map<string, number> {
  const book = new DecisionBook();
  const { snapshot, facts } = takeSnapshot(s, book, new JobShapes(), OPTIONS, T0 + 2);
  const { plan } = decide('ours', snapshot, facts, DEFAULT_SCHEDULER_CONFIG);
  const cpu = new Map<string, number>();
  const add = (n: string | undefined, m: number) => n !== undefined && cpu.set(n, (cpu.get(n) ?? 0) + m);
  for (const p of inFlight) add(p.spec?.nodeName, 1000);
  for (const a of plan.admit) for (const r of a.replicas) add(r.node, 1000);
  return cpu;
}

describe('pod creates in flight for a job the scheduler no longer sees', () => {
  it('a job deleted while its creates are in flight: its pods keep their room until the cache shows them', () => {
    // Pass 1 admitted `a` on n1 (3 cpu); the controller took the placements and sent the creates.
    const book = new DecisionBook();
    adopt(book, `${NS}/a`, (d) => {
      d.admitted = true;
      for (const name of ['a-ps-0', 'a-worker-0', 'a-worker-1']) d.pendingByName.set(name, { node: 'n1', since: T0 });
    });
    const inFlight = new PodsInFlight();
    inFlight.sending(NS, bodiesOfA(), T0);
    // `a` is deleted: the TFJob cache drops it, its reconcile forgets its decision (and its
    // expectations); the API server still creates the pods (GC removes them only later).
    book.forget(`${NS}/a`);
    const world = (podsInFlight: boolean) => ({
      ...sources({ tfjobs: [tfjob('b')], nodes: [node('n1', '3')] }),
      ...(podsInFlight ? { podsInFlight: inFlight.current(T0 + 2) } : {}),
    });

    // Without the in-flight pods the pass admits `b` (3 cpu) on n1 as well: 6 cpu on a 3 cpu node.
    expect(landed(world(false), bodiesOfA()).get('n1')).toBe(6000);
    // With them, `b` waits: n1 never holds more than it has.
    expect(landed(world(true), bodiesOfA()).get('n1')).toBe(3000);

    // Once the cache shows the pods they are counted as pods, and the in-flight record is dropped.
    const cached = bodiesOfA().map((p) => ({ ...p, metadata: { ...p.metadata, namespace: NS } }));
    const seen = sources({ tfjobs: [tfjob('b')], otherPods: cached, nodes: [node('n1', '3')] });
    const { snapshot } = takeSnapshot({ ...seen, podsInFlight: inFlight.current(T0 + 2) }, book, new JobShapes(), OPTIONS, T0 + 2);
    expect(snapshot.otherPods.filter((p) => p.node === 'n1')).toHaveLength(3);
    for (const p of cached) inFlight.observed(`${NS}/${p.metadata.name}`);
    expect(inFlight.current(T0 + 3)).toEqual([]);
  });

  it('a job suspended after an answer was lost: the create it may have made keeps its room', () => {
    // The create's answer was a 500 (the API server may have applied it): the expectation is gone, so
    // the snapshot suspends the job and its placements leave the book; the pod may still come.
    const inFlight = new PodsInFlight();
    inFlight.sending(NS, bodiesOfA(), T0);
    const s = {
      ...sources({ tfjobs: [tfjob('a', { suspend: true }), tfjob('b')], nodes: [node('n1', '3')] }),
      podsInFlight: inFlight.current(T0 + 2),
    };
    const snap = takeSnapshot(s, new DecisionBook(), new JobShapes(), OPTIONS, T0 + 2);
    expect(snap.upkeep.suspended).toEqual([`${NS}/a`]);
    expect(snap.snapshot.otherPods.map((p) => `${p.key}@${p.node}:${p.requests.cpu}`).sort()).toEqual([
      `${NS}/a-ps-0@n1:1000`,
      `${NS}/a-worker-0@n1:1000`,
      `${NS}/a-worker-1@n1:1000`,
    ]);
  });

  it('a job the snapshot still counts is counted once, by its placements', () => {
    const book = new DecisionBook();
    adopt(book, `${NS}/a`, (d) => {
      d.admitted = true;
      for (const name of ['a-ps-0', 'a-worker-0', 'a-worker-1']) d.pendingByName.set(name, { node: 'n1', since: T0 });
    });
    const inFlight = new PodsInFlight();
    inFlight.sending(NS, bodiesOfA(), T0);
    const running = { scheduling: { queue: 'Running', workers: { current: 0, min: 2, max: 2 } } };
    const s = {
      ...sources({ tfjobs: [tfjob('a', { status: running })], nodes: [node('n1', '3')] }),
      podsInFlight: inFlight.current(T0 + 1),
    };
    const { snapshot } = takeSnapshot(s, book, new JobShapes(), OPTIONS, T0 + 1);
    expect(snapshot.otherPods).toEqual([]);
    expect(snapshot.jobs[0]!.replicas.filter((r) => r.pending === true)).toHaveLength(3);
  });

  it('forgets a create that was refused at once, and one never seen after the TTL; keeps one whose answer was lost', () => {
    const inFlight = new PodsInFlight();
    const [ps, w0, w1] = bodiesOfA();
    const unbound: V1Pod = { metadata: { name: 'a-evaluator-0' }, spec: { containers: [] } };
    inFlight.sending(NS, [ps!, w0!, unbound], T0);
    expect(inFlight.current(T0).map((p) => p.key)).toEqual([`${NS}/a-ps-0`, `${NS}/a-worker-0`]);
    expect(inFlight.current(T0)[0]!.ownerUid).toBe('uid-a');
    inFlight.refused(`${NS}/a-ps-0`);
    expect(inFlight.current(T0).map((p) => p.key)).toEqual([`${NS}/a-worker-0`]);
    inFlight.sending(NS, [w1!], T0 + IN_FLIGHT_TTL_MS);
    expect(inFlight.current(T0 + IN_FLIGHT_TTL_MS + 1).map((p) => p.key)).toEqual([`${NS}/a-worker-1`]);
  });
});
