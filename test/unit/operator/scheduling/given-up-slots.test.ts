// The scheduler and the reconciler agree on a failed elastic worker's slot. Under restartPolicy Never
// the reconciler keeps the failed pod and never replaces it; a scheduler that counted that pod as
// gone kept placing a worker for the job, a placement that expired every 60 s and was made again,
// holding a node's room each time (issue 39, item 2).
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { toTFJobEntry, type TFJobEntry } from '../../../../src/api/v1/parse.ts';
import { DecisionBook } from '../../../../src/operator/scheduling/decisions/book.ts';
import { PENDING_TTL_MS } from '../../../../src/operator/scheduling/decisions/decision.ts';
import { readInput } from '../../../../src/operator/scheduling/decisions/input.ts';
import { decide } from '../../../../src/operator/scheduling/pass/decide.ts';
import { JobShapes } from '../../../../src/operator/scheduling/pass/job-shape.ts';
import { takeSnapshot, type JobFacts } from '../../../../src/operator/scheduling/pass/snapshot.ts';
import { reconcileTFJob } from '../../../../src/reconciler/tfjob/reconcile.ts';
import { DEFAULT_SCHEDULER_CONFIG } from '../../../../src/scheduler/index.ts';
import { NS, OPTIONS, T0, node, replicaPod, sources, tfjobObject } from './fixtures.ts';

const KEY = `${NS}/a`;
const running = { scheduling: { queue: 'Running', enqueueTime: '2026-11-24T09:00:00Z', workers: { current: 3, min: 1, max: 3 } } };

/** Elastic job `a` (1 PS, 1 to 3 workers of 1 cpu) running at 3 workers, under `restartPolicy`. */
function jobA(restartPolicy: string): TFJobEntry {
  const object = tfjobObject('a', { workers: 3, elastic: { min: 1, max: 3 }, status: running });
  const specs = (object.spec as { tfReplicaSpecs: Record<string, Record<string, unknown>> }).tfReplicaSpecs;
  return toTFJobEntry({ ...object, spec: { tfReplicaSpecs: { ...specs, Worker: { ...specs.Worker, restartPolicy } } } });
}

/** PS 0 and workers 0, 1 running on n1; worker 2 exited `exitCode` (phase Failed). */
function podsWithFailedWorker2(exitCode: number): V1Pod[] {
  const failed = replicaPod('a', 'worker', 2, 'n1', { phase: 'Failed' });
  failed.status = {
    phase: 'Failed',
    containerStatuses: [
      { name: 'tensorflow', image: 'tf', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode } } },
    ],
  };
  return [replicaPod('a', 'ps', 0, 'n1'), replicaPod('a', 'worker', 0, 'n1'), replicaPod('a', 'worker', 1, 'n1'), failed];
}

/**
 * Scheduling passes over an unchanging cluster (n1 with room to spare), one past each placement's
 * lifetime: the worker placements each pass makes for job `a`, and what the reconciler then gets.
 */
function passes(job: TFJobEntry, pods: readonly V1Pod[], count: number) {
  const book = new DecisionBook();
  const shapes = new JobShapes();
  const placedPerPass: number[] = [];
  const repairedPerPass: number[] = [];
  const src = sources({ tfjobs: [job], pods, nodes: [node('n1', '8')] });
  let now = T0;
  let facts: JobFacts | undefined;
  for (let i = 0; i < count; i++) {
    const s = takeSnapshot(src, book, shapes, OPTIONS, now);
    book.upkeep(s.upkeep);
    const { plan, repairs } = decide('ours', s.snapshot, s.facts, DEFAULT_SCHEDULER_CONFIG);
    let repaired = 0;
    for (const r of repairs) {
      if (r.replica.job !== KEY) continue;
      book.repair(KEY, { name: r.replica.name, node: r.node }, now);
      repaired += 1;
    }
    const scaledOut = plan.scaleOut.filter((e) => e.job === KEY).reduce((n, e) => n + e.add.length, 0);
    placedPerPass.push(repaired + scaledOut);
    repairedPerPass.push(repaired);
    facts = s.facts.find((f) => f.key === KEY);
    now += PENDING_TTL_MS + 1;
  }
  const f = facts;
  if (f === undefined) throw new Error('job a is not in the snapshot');
  const input = readInput(
    book.get(KEY)!,
    { elastic: f.elastic, bounds: f.bounds, finished: false, liveWorkers: 2, placedBy: 'ours' },
    { pod: () => undefined, onNode: () => [], isPreempted: () => false },
    now - PENDING_TTL_MS - 1,
  );
  return { placedPerPass, repairedPerPass, bounds: f.bounds, input };
}

describe('a failed elastic worker: scheduler and reconciler agree', () => {
  it('Never: no worker is placed for the given-up slot, pass after pass (the 60 s phantom placement)', () => {
    const pods = podsWithFailedWorker2(1);
    const { placedPerPass, bounds, input } = passes(jobA('Never'), pods, 3);
    expect(placedPerPass).toEqual([0, 0, 0]);
    expect(bounds).toEqual({ min: 1, max: 2 });
    expect(input.workerNodes).toEqual([]);
    expect(input.status?.workers).toEqual({ current: 2, min: 1, max: 2 });
    // The reconciler, handed that input, creates nothing either.
    const r = reconcileTFJob({ job: jobA('Never'), pods, services: [], now: new Date(T0), scheduling: input });
    expect(r.actions.filter((a) => a.kind === 'createPod')).toEqual([]);
    expect(r.status.givenUpWorkerSlots).toEqual([2]);
  });

  it('OnFailure: one worker is placed, and the reconciler re-creates worker 2 there once the failed pod is gone', () => {
    const pods = podsWithFailedWorker2(137);
    const { repairedPerPass, bounds, input } = passes(jobA('OnFailure'), pods, 1);
    expect(repairedPerPass).toEqual([1]);
    expect(bounds).toEqual({ min: 1, max: 3 });
    expect(input.workerNodes?.[0]).toBe('n1');
    const first = reconcileTFJob({ job: jobA('OnFailure'), pods, services: [], now: new Date(T0), scheduling: input });
    expect(first.actions.flatMap((a) => (a.kind === 'deletePod' ? [a.name] : []))).toEqual(['a-worker-2']);
    const after = pods.filter((p) => p.metadata?.name !== 'a-worker-2');
    const second = reconcileTFJob({ job: jobA('OnFailure'), pods: after, services: [], now: new Date(T0), scheduling: input });
    const created = second.actions.flatMap((a) => (a.kind === 'createPod' ? [a.pod] : []));
    expect(created.map((p) => [p.metadata?.name, p.spec?.affinity === undefined ? p.spec?.nodeName : 'n1'])).toEqual([
      ['a-worker-2', 'n1'],
    ]);
  });
});
