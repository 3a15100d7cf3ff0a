import { describe, expect, it } from 'vitest';
import { DecisionBook } from '../../../../src/operator/scheduling/decisions/book.ts';
import { placedElsewhereInput, placedElsewhereStatus } from '../../../../src/operator/scheduling/decisions/elsewhere.ts';
import { JobShapes } from '../../../../src/operator/scheduling/pass/job-shape.ts';
import { takeSnapshot } from '../../../../src/operator/scheduling/pass/snapshot.ts';
import { toTFJobEntry } from '../../../../src/api/v1/parse.ts';
import { NS, OPTIONS, T0, node, replicaPod, sources, tfjobObject } from './fixtures.ts';

const named = [
  { replicaType: 'PS', schedulerName: 'default-scheduler' },
  { replicaType: 'Worker', schedulerName: 'volcano' },
];

/** The fixture job (1 PS, 2 workers of 1 cpu) with its workers' template naming `volcano`. */
function volcanoJob(name: string) {
  const job = tfjobObject(name);
  const specs = (job.spec as { tfReplicaSpecs: Record<string, { template: { spec: Record<string, unknown> } }> }).tfReplicaSpecs;
  specs.Worker!.template.spec.schedulerName = 'volcano';
  return toTFJobEntry(job);
}

describe('a job left to the schedulers its templates name', () => {
  it('is not in the core`s jobs; its bound pods are capacity like any other workload`s', () => {
    const pods = [
      replicaPod('v', 'ps', 0, 'n1'),
      replicaPod('v', 'worker', 0, 'n1'),
      replicaPod('v', 'worker', 1, undefined, { phase: 'Pending' }),
    ];
    const s = takeSnapshot(
      sources({ tfjobs: [volcanoJob('v')], pods, nodes: [node('n1')] }),
      new DecisionBook(),
      new JobShapes(),
      OPTIONS,
      T0,
    );
    expect(s.snapshot.jobs).toEqual([]);
    expect(s.facts).toEqual([]);
    expect(s.upkeep.restored.size).toBe(0);
    expect(s.elsewhere.map((e) => [e.key, e.named])).toEqual([[`${NS}/v`, named]]);
    // The two bound pods count on n1; the one no scheduler has bound yet uses no node.
    expect(s.snapshot.otherPods.map((p) => `${p.key}@${p.node}`).sort()).toEqual([`${NS}/v-ps-0@n1`, `${NS}/v-worker-0@n1`]);
  });

  it('gets every pod at once, unplaced, and no worker count of ours unless elastic', () => {
    const input = placedElsewhereInput({ named, pods: [], finished: false, elastic: false, workers: 2 });
    expect(input).toMatchObject({ admitted: true, placements: {}, workerNodes: [], requirePlacement: false });
    expect(input).not.toHaveProperty('workers');
    expect(placedElsewhereInput({ named, pods: [], finished: false, elastic: true, workers: 4 }).workers).toBe(4);
  });

  it('waits, saying which scheduler and how many pods are not bound, until every pod is bound', () => {
    const none = placedElsewhereStatus({ named, pods: [], finished: false, elastic: false, workers: 2 });
    expect(none).toMatchObject({ queue: 'Waiting', reason: 'PlacedByScheduler', workersSummary: '0/2/2' });
    expect(none.message).toMatch(/Worker "volcano"\); this operator does not queue, place, scale or preempt this job; no pods yet$/);
    const some = [
      replicaPod('v', 'ps', 0, 'n1'),
      replicaPod('v', 'worker', 0, 'n1'),
      replicaPod('v', 'worker', 1, undefined, { phase: 'Pending' }),
    ];
    const waiting = placedElsewhereStatus({ named, pods: some, finished: false, elastic: false, workers: 2 });
    expect(waiting).toMatchObject({ queue: 'Waiting', workers: { current: 1, min: 2, max: 2 } });
    expect(waiting.message).toMatch(/; 1 of 3 pods not bound to a node yet$/);
    const all = [...some.slice(0, 2), replicaPod('v', 'worker', 1, 'n1')];
    expect(placedElsewhereStatus({ named, pods: all, finished: false, elastic: false, workers: 2 })).toMatchObject({
      queue: 'Running',
      workersSummary: '2/2/2',
      message: expect.stringMatching(/; 0 of 3 pods not bound to a node yet$/) as unknown,
    });
    expect(placedElsewhereStatus({ named, pods: all, finished: true, elastic: false, workers: 2 }).queue).toBe('Finished');
  });
});
