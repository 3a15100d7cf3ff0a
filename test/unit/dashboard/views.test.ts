// The snapshot and job detail built from the caches: nodes with their pods and requests, queue
// positions on the jobs' rows, one job's events, pods, TF_CONFIG and history.
import type { KubernetesObject } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { JobHistories } from '../../../src/dashboard/history.ts';
import { HistoryRecorder } from '../../../src/dashboard/recorder.ts';
import { reduceEvent, reduceNode, reducePod } from '../../../src/dashboard/reduce.ts';
import type { Access } from '../../../src/dashboard/types.ts';
import { buildDetail, buildSnapshot } from '../../../src/dashboard/views.ts';
import { memoryCaches } from './memory-caches.ts';

const ACCESS: Access = { tfjobs: { scope: 'cluster' } };

function raw(o: object): KubernetesObject {
  return o;
}

function workerPod(job: string, index: number, node: string | undefined, phase = 'Running', cpu = '1') {
  return reducePod(
    raw({
      metadata: {
        name: `${job}-worker-${index}`,
        namespace: 'ml',
        labels: {
          'training.kubeflow.org/operator-name': 'tfjob-controller',
          'training.kubeflow.org/job-name': job,
          'training.kubeflow.org/replica-type': 'Worker',
          'training.kubeflow.org/replica-index': String(index),
        },
      },
      spec: {
        ...(node === undefined ? {} : { nodeName: node }),
        containers: [{ resources: { requests: { cpu } }, env: [{ name: 'TF_CONFIG', value: `{"task":${index}}` }] }],
      },
      status: { phase },
    }),
  );
}

function node(name: string, cpu: string) {
  return reduceNode(raw({ metadata: { name }, status: { allocatable: { cpu }, conditions: [{ type: 'Ready', status: 'True' }] } }));
}

function tfjob(name: string, status: object = {}) {
  return raw({ metadata: { name, namespace: 'ml' }, status });
}

function setUp() {
  const m = memoryCaches();
  m.nodes.put(node('n2', '4'));
  m.nodes.put(node('n1', '8'));
  m.tfjobs.put(tfjob('b'));
  m.tfjobs.put(tfjob('a', { scheduling: { queue: 'Waiting' } }));
  m.clusterqueues.put(
    raw({
      metadata: { name: 'team' },
      spec: { cohort: 'all', nominalQuota: { cpu: '10' } },
      status: { usage: { cpu: 3 }, heads: [{ position: 1, namespace: 'ml', name: 'a', reason: 'no room' }], pendingJobs: 1 },
    }),
  );
  return m;
}

describe('buildSnapshot', () => {
  it('draws each node with its unfinished pods and their requests; unbound pods apart', () => {
    const m = setUp();
    m.pods.put(workerPod('b', 0, 'n1', 'Running', '2'));
    m.pods.put(workerPod('b', 1, 'n1', 'Succeeded', '2'));
    m.pods.put(workerPod('b', 2, undefined, 'Pending'));
    const s = buildSnapshot(m.caches, ACCESS, 'alice', 0);
    expect(s.nodes.map((n) => n.name)).toEqual(['n1', 'n2']);
    const n1 = s.nodes[0]!;
    expect(n1.pods.map((p) => p.name)).toEqual(['b-worker-0']);
    expect(n1.requested.cpu).toBe(2);
    expect(n1.allocatable.cpu).toBe(8);
    expect(s.unscheduled.map((p) => p.name)).toEqual(['b-worker-2']);
    expect(s.user).toBe('alice');
    expect(s.generatedAt).toBe('1970-01-01T00:00:00.000Z');
  });

  it("puts each waiting job's position in its ClusterQueue on its row, rows sorted by name", () => {
    const s = buildSnapshot(setUp().caches, ACCESS, 'alice', 0);
    expect(s.jobs.map((j) => [j.name, j.position])).toEqual([
      ['a', 1],
      ['b', undefined],
    ]);
    expect(s.clusterQueues[0]).toMatchObject({ name: 'team', cohort: 'all', quota: { cpu: '10' }, usage: { cpu: '3' }, pending: 1 });
    expect(s.clusterQueues[0]?.heads).toEqual([{ position: 1, job: 'ml/a', reason: 'no room' }]);
  });

  it('is empty, not broken, when nothing may be seen', () => {
    const s = buildSnapshot(memoryCaches().caches, {}, 'nobody', 0);
    expect([s.nodes, s.jobs, s.clusterQueues, s.localQueues, s.unscheduled]).toEqual([[], [], [], [], []]);
  });
});

describe('buildDetail', () => {
  it("gathers one job's events in time order, its pods, each replica's TF_CONFIG and its samples", () => {
    const m = setUp();
    const histories = new JobHistories(10);
    const recorder = new HistoryRecorder(m.caches, histories, () => 1000);
    recorder.attach(() => undefined);
    m.pods.put(workerPod('b', 0, 'n1'));
    m.pods.put(workerPod('a', 0, 'n2'));
    for (const [name, time, reason, job] of [
      ['e2', '2026-01-01T00:02:00Z', 'Preempted', 'b'],
      ['e1', '2026-01-01T00:01:00Z', 'Admitted', 'b'],
      ['e3', '2026-01-01T00:00:00Z', 'Admitted', 'a'],
    ] as const)
      m.events.put(reduceEvent(raw({ metadata: { name, namespace: 'ml' }, involvedObject: { name: job }, lastTimestamp: time, reason })));
    const d = buildDetail(m.caches, histories, (k) => recorder.podsOf(k), 'ml/b');
    expect(d?.events.map((e) => e.reason)).toEqual(['Admitted', 'Preempted']);
    expect(d?.pods.map((p) => p.name)).toEqual(['b-worker-0']);
    expect(d?.tfConfig).toEqual({ 'worker-0': '{"task":0}' });
    expect(d?.samples.map((s) => s.workers)).toEqual([1]);
    expect(d?.status).toEqual({});
  });

  it('is undefined for a job not in the caches (deleted, or not visible to this user)', () => {
    const m = setUp();
    expect(buildDetail(m.caches, new JobHistories(1), () => [], 'other/b')).toBeUndefined();
  });

  it('gives a job without status a null status and its queue position', () => {
    const m = setUp();
    m.tfjobs.put(raw({ metadata: { name: 'a', namespace: 'ml' } }));
    const d = buildDetail(m.caches, new JobHistories(1), () => [], 'ml/a');
    expect(d?.status).toBeNull();
    expect(d?.row.position).toBe(1);
    expect(d?.row.state).toBe('Unknown');
  });
});
