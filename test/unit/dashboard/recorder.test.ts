// The recorder turns watch events into each job's history: a sample when its live workers, CPU, step
// or metric change, nothing when they do not, and the history dropped with the job.
import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { JobHistories } from '../../../src/dashboard/history.ts';
import { HistoryRecorder } from '../../../src/dashboard/recorder.ts';
import { reducePod } from '../../../src/dashboard/reduce.ts';
import { memoryCaches } from './memory-caches.ts';

function pod(name: string, type: 'PS' | 'Worker', index: number, extra: { limit?: string; deleting?: boolean; phase?: string } = {}) {
  return reducePod({
    metadata: {
      name,
      namespace: 'ml',
      labels: {
        'training.kubeflow.org/operator-name': 'tfjob-controller',
        'training.kubeflow.org/job-name': 'mnist',
        'training.kubeflow.org/replica-type': type,
        'training.kubeflow.org/replica-index': String(index),
      },
      ...(extra.deleting === true ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    spec: {
      containers: [{ resources: { requests: { cpu: '1' }, ...(extra.limit === undefined ? {} : { limits: { cpu: extra.limit } }) } }],
    },
    status: { phase: extra.phase ?? 'Running' },
  } as unknown as KubernetesObject);
}

function setUp() {
  const m = memoryCaches();
  const histories = new JobHistories(100);
  let clock = 0;
  let recorded = 0;
  const recorder = new HistoryRecorder(m.caches, histories, () => (clock += 1000));
  recorder.attach(() => (recorded += 1));
  m.tfjobs.put({ metadata: { name: 'mnist', namespace: 'ml' } });
  const samples = () => histories.samples('ml/mnist').samples.map((s) => ({ workers: s.workers, cpu: s.cpu, step: s.step }));
  return { m, histories, recorder, samples, recorded: () => recorded };
}

describe('HistoryRecorder', () => {
  it('samples the live workers and the CPU limits (requests where none) of the job as pods come and go', () => {
    const { m, samples } = setUp();
    m.pods.put(pod('mnist-ps-0', 'PS', 0));
    m.pods.put(pod('mnist-worker-0', 'Worker', 0, { limit: '2' }));
    m.pods.put(pod('mnist-worker-1', 'Worker', 1, { limit: '2' }));
    m.pods.put(pod('mnist-worker-1', 'Worker', 1, { limit: '2', deleting: true }));
    m.pods.remove('ml/mnist-worker-1');
    expect(samples()).toEqual([
      { workers: 0, cpu: 0, step: undefined },
      { workers: 0, cpu: 1, step: undefined },
      { workers: 1, cpu: 3, step: undefined },
      { workers: 2, cpu: 5, step: undefined },
      { workers: 1, cpu: 3, step: undefined },
    ]);
  });

  it('does not count finished pods', () => {
    const { m, samples } = setUp();
    m.pods.put(pod('mnist-worker-0', 'Worker', 0));
    m.pods.put(pod('mnist-worker-0', 'Worker', 0, { phase: 'Succeeded' }));
    expect(samples().map((s) => s.workers)).toEqual([0, 1, 0]);
  });

  it("samples the job's progress, and only when something changed", () => {
    const { m, samples, recorded } = setUp();
    const before = recorded();
    m.tfjobs.put({ metadata: { name: 'mnist', namespace: 'ml' }, status: { progress: { step: 10 } } } as KubernetesObject);
    m.tfjobs.put({ metadata: { name: 'mnist', namespace: 'ml' }, status: { progress: { step: 10 } } } as KubernetesObject);
    m.tfjobs.put({ metadata: { name: 'mnist', namespace: 'ml' }, status: { progress: { step: 30 } } } as KubernetesObject);
    expect(samples().map((s) => s.step)).toEqual([undefined, 10, 30]);
    expect(recorded() - before).toBe(2);
  });

  it('ignores pods of no TFJob and forgets a deleted job', () => {
    const { m, histories, recorder } = setUp();
    m.pods.put(reducePod({ metadata: { name: 'web', namespace: 'ml' } }));
    expect(histories.jobs).toBe(1);
    m.pods.put(pod('mnist-worker-0', 'Worker', 0));
    expect(recorder.podsOf('ml/mnist').map((p) => p.view.name)).toEqual(['mnist-worker-0']);
    m.tfjobs.remove('ml/mnist');
    expect(histories.jobs).toBe(0);
  });

  it('keeps no sample for a pod whose TFJob is not in the cache (yet)', () => {
    const { m, histories } = setUp();
    m.tfjobs.remove('ml/mnist');
    m.pods.put(pod('mnist-worker-0', 'Worker', 0));
    expect(histories.jobs).toBe(0);
  });
});
