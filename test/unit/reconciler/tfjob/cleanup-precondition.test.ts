// A finished job's cleanup under cleanPodPolicy Running deletes pods *because* they were Running: the
// delete carries the pod's resourceVersion, so a worker that Succeeded between the cache's view and
// the delete (seen on the real node: a second worker finishing just after worker 0) is kept. Under
// All, and when suspending, the phase does not matter and no version is sent.
import { describe, expect, it } from 'vitest';
import { toTFJobEntry } from '../../../../src/api/v1/parse.ts';
import type { Pod } from '../../../../src/api/v1/k8s-types.ts';
import { reconcileTFJob } from '../../../../src/reconciler/tfjob/reconcile.ts';
import { at, newPod, newTFJob } from './builders.ts';

const versioned = (pod: Pod, resourceVersion: string): Pod => ({ ...pod, metadata: { ...pod.metadata, resourceVersion } });
const succeeded = { conditions: [{ type: 'Succeeded', status: 'True', reason: 'TFJobSucceeded' }], completionTime: '2024-09-10T10:00:00Z' };

function podDeletes(runPolicy: Record<string, unknown>) {
  const job = newTFJob(2, 1, { runPolicy, status: succeeded });
  const pods = [
    versioned(newPod('Worker', 0, { phase: 'Succeeded' }), '10'),
    versioned(newPod('Worker', 1, { phase: 'Running' }), '11'),
    versioned(newPod('PS', 0, { phase: 'Running' }), '12'),
  ];
  const plan = reconcileTFJob({ job: toTFJobEntry(job), pods, services: [], now: at(0) });
  return plan.actions.flatMap((a) => (a.kind === 'deletePod' ? [{ name: a.name, resourceVersion: a.resourceVersion }] : []));
}

describe('cleanup deletes carry the version of the pod they judged Running', () => {
  it('cleanPodPolicy Running: each delete carries the resourceVersion seen', () => {
    expect(podDeletes({ cleanPodPolicy: 'Running' })).toEqual([
      { name: 'test-tfjob-worker-1', resourceVersion: '11' },
      { name: 'test-tfjob-ps-0', resourceVersion: '12' },
    ]);
  });

  it('cleanPodPolicy All: every pod goes whatever its phase, no version', () => {
    const deletes = podDeletes({ cleanPodPolicy: 'All' });
    expect(deletes.map((d) => d.name).sort()).toEqual(['test-tfjob-ps-0', 'test-tfjob-worker-0', 'test-tfjob-worker-1']);
    expect(deletes.every((d) => d.resourceVersion === undefined)).toBe(true);
  });
});
