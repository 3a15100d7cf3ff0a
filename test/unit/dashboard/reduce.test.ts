// What the dashboard keeps of each object (pods, nodes, events) and the jobs view's row, including
// TFJobs whose status is missing, half-written or of the wrong types.
import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { jobRow, reduceEvent, reduceNode, reducePod } from '../../../src/dashboard/reduce.ts';

const OPERATOR_LABELS = {
  'training.kubeflow.org/operator-name': 'tfjob-controller',
  'training.kubeflow.org/job-name': 'mnist',
  'training.kubeflow.org/replica-type': 'Worker',
  'training.kubeflow.org/replica-index': '1',
};

function pod(labels: Record<string, string>, containers: unknown[], extra: Record<string, unknown> = {}): KubernetesObject {
  return {
    metadata: { name: 'mnist-worker-1', namespace: 'ml', labels },
    spec: { nodeName: 'n1', containers },
    ...extra,
  } as unknown as KubernetesObject;
}

describe('reducePod', () => {
  it("sums its containers' requests and limits, a limit alone counting as the request", () => {
    const p = reducePod(
      pod(OPERATOR_LABELS, [
        { resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1' } } },
        { resources: { limits: { cpu: '2', 'nvidia.com/gpu': '1' } } },
      ]),
    );
    expect(p.view.requests).toEqual({ cpu: 2.5, memory: 2 ** 30, gpu: 1 });
    expect(p.view.limits).toEqual({ cpu: 3, memory: 0, gpu: 1 });
  });

  it("names the job and replica of the operator's pods and keeps their TF_CONFIG", () => {
    const p = reducePod(
      pod(OPERATOR_LABELS, [{ env: [{ name: 'TF_CONFIG', value: '{"cluster":{}}' }] }], { status: { phase: 'Running' } }),
    );
    expect(p.view).toMatchObject({ job: 'ml/mnist', replicaType: 'worker-1', node: 'n1', phase: 'Running', deleting: false });
    expect(p.tfConfig).toBe('{"cluster":{}}');
  });

  it('claims no job for a pod the operator did not make, nor reads its environment', () => {
    const p = reducePod(pod({ 'training.kubeflow.org/job-name': 'mnist' }, [{ env: [{ name: 'TF_CONFIG', value: 'x' }] }]));
    expect(p.view.job).toBeUndefined();
    expect(p.tfConfig).toBeUndefined();
    expect(p.view.phase).toBe('Unknown');
  });

  it('keeps only the view, not the spec', () => {
    const p = reducePod(pod(OPERATOR_LABELS, [{ image: 'tf', env: [] }]));
    expect(Object.keys(p).sort()).toEqual(['metadata', 'tfConfig', 'view']);
  });

  it('survives a pod with nothing in it', () => {
    const p = reducePod({ metadata: { name: 'bare' } });
    expect(p.view).toMatchObject({ name: 'bare', namespace: '', node: undefined, requests: { cpu: 0, memory: 0, gpu: 0 } });
  });

  it('marks a pod being deleted', () => {
    const p = reducePod({
      metadata: { name: 'x', namespace: 'ml', deletionTimestamp: '2026-01-01T00:00:00Z' },
    } as unknown as KubernetesObject);
    expect(p.view.deleting).toBe(true);
  });
});

describe('reduceNode', () => {
  it('reads readiness, cordon and allocatable', () => {
    const n = reduceNode({
      metadata: { name: 'n1' },
      spec: { unschedulable: true },
      status: { conditions: [{ type: 'Ready', status: 'True' }], allocatable: { cpu: '8', memory: '16Gi', 'nvidia.com/gpu': '2' } },
    } as unknown as KubernetesObject);
    expect(n).toMatchObject({ name: 'n1', ready: true, unschedulable: true, allocatable: { cpu: 8, memory: 16 * 2 ** 30, gpu: 2 } });
  });

  it('is not ready without a true Ready condition', () => {
    expect(reduceNode({ metadata: { name: 'n' }, status: { conditions: 'odd' } } as unknown as KubernetesObject).ready).toBe(false);
  });
});

describe('reduceEvent', () => {
  it('belongs to the TFJob it is about, at its latest time', () => {
    const e = reduceEvent({
      metadata: { name: 'e1', namespace: 'ml' },
      involvedObject: { kind: 'TFJob', name: 'mnist', namespace: 'ml' },
      reason: 'Preempted',
      message: 'for a heavier job',
      type: 'Warning',
      count: 3,
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:05:00Z',
    } as unknown as KubernetesObject);
    expect(e.job).toBe('ml/mnist');
    expect(e.view).toEqual({ time: '2026-01-01T00:05:00Z', type: 'Warning', reason: 'Preempted', message: 'for a heavier job', count: 3 });
  });

  it('falls back to eventTime, then the creation time, for events.k8s.io-style events', () => {
    const e = reduceEvent({
      metadata: { name: 'e1', namespace: 'ml', creationTimestamp: '2026-01-01T00:00:09Z' },
      involvedObject: { name: 'mnist' },
    } as unknown as KubernetesObject);
    expect(e.view).toEqual({ time: '2026-01-01T00:00:09Z', type: 'Normal', reason: '', message: '', count: 1 });
    expect(e.job).toBe('ml/mnist');
  });
});

describe('jobRow', () => {
  const base = { metadata: { name: 'mnist', namespace: 'ml', creationTimestamp: '2026-01-01T00:00:00Z' } };

  it("shows the operator's status: state, queue, weight, workers, progress and QoE", () => {
    const row = jobRow(
      {
        ...base,
        status: {
          conditions: [
            { type: 'Created', status: 'True' },
            { type: 'Running', status: 'True' },
          ],
          scheduling: { queue: 'Running', clusterQueue: 'team-a', weight: '0.5', workers: { current: 3, min: 1, max: 4 } },
          progress: {
            phase: 'Progressing',
            metricName: 'accuracy',
            latest: '0.91',
            step: 1200,
            fractionDone: 0.4,
            eta: '2026-01-01T01:00:00Z',
          },
          qoe: { class: 'deadline', target: '2h', requiredStepsPerSecond: '3.2', measuredStepsPerSecond: '4.1' },
        },
      } as unknown as KubernetesObject,
      2,
    );
    expect(row).toMatchObject({
      state: 'Running',
      queue: 'Running',
      clusterQueue: 'team-a',
      position: 2,
      weight: '0.5',
      workers: { current: 3, min: 1, max: 4 },
      phase: 'Progressing',
      metric: '0.91',
      step: 1200,
      fractionDone: 0.4,
      qoeClass: 'deadline',
      measuredRate: '4.1',
      created: '2026-01-01T00:00:00Z',
    });
  });

  it('shows a job without status as Unknown, its worker bounds from its elastic policy', () => {
    const row = jobRow({ ...base, spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 5 } } } as unknown as KubernetesObject, undefined);
    expect(row.state).toBe('Unknown');
    expect(row.workers).toEqual({ current: undefined, min: 1, max: 5 });
    expect(row.queue).toBeUndefined();
  });

  it('shows Pending when no condition is true yet', () => {
    expect(
      jobRow({ ...base, status: { conditions: [{ type: 'Created', status: 'False' }] } } as unknown as KubernetesObject, undefined).state,
    ).toBe('Pending');
  });

  it('ignores fields of the wrong type instead of breaking', () => {
    const odd = {
      ...base,
      spec: 'not an object',
      status: {
        conditions: 'Running',
        scheduling: ['queue'],
        progress: { step: 'NaN', fractionDone: Number.POSITIVE_INFINITY, latest: { v: 1 }, eta: 12 },
        qoe: null,
      },
    };
    const row = jobRow(odd as unknown as KubernetesObject, undefined);
    expect(row).toMatchObject({
      state: 'Unknown',
      queue: undefined,
      weight: undefined,
      workers: { current: undefined, min: undefined, max: undefined },
      step: undefined,
      fractionDone: undefined,
      metric: undefined,
      eta: '12',
      qoeClass: undefined,
    });
  });

  it('reads numbers written as strings', () => {
    const row = jobRow(
      { ...base, status: { scheduling: { workers: { current: '2', min: ' ', max: '4' } } } } as unknown as KubernetesObject,
      undefined,
    );
    expect(row.workers).toEqual({ current: 2, min: undefined, max: 4 });
  });
});
