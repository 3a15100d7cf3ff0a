// The pure part of the fault scenarios' invariant monitor: each rule fires on the history that
// breaks it and stays silent on the legitimate histories next to it.
import { describe, expect, it } from 'vitest';
import type { V1Node, V1Pod, V1Service, V1Taint } from '@kubernetes/client-node';
import { InvariantState, summarizeMemory, tolerates, type TFJobLike } from '../../support/invariants.ts';
import { rng } from '../../support/prng.ts';

const JOB_UID = 'job-uid-1';

function job(
  rv: number,
  opts: {
    finished?: 'Succeeded' | 'Failed';
    cleanPodPolicy?: string;
    suspend?: boolean;
    deleting?: boolean;
    workers?: number;
    enqueueTime?: string;
    name?: string;
    uid?: string;
  } = {},
): TFJobLike {
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: {
      name: opts.name ?? 'j',
      namespace: 'ns',
      uid: opts.uid ?? JOB_UID,
      resourceVersion: String(rv),
      ...(opts.deleting === true ? { deletionTimestamp: new Date() } : {}),
    },
    spec: {
      runPolicy: {
        ...(opts.cleanPodPolicy === undefined ? {} : { cleanPodPolicy: opts.cleanPodPolicy }),
        ...(opts.suspend === undefined ? {} : { suspend: opts.suspend }),
      },
      tfReplicaSpecs: { Worker: { replicas: opts.workers ?? 2 } },
    },
    status: {
      conditions: opts.finished === undefined ? [{ type: 'Running', status: 'True' }] : [{ type: opts.finished, status: 'True' }],
      ...(opts.enqueueTime === undefined ? {} : { scheduling: { enqueueTime: opts.enqueueTime } }),
    },
  };
}

function pod(
  name: string,
  rv: number,
  opts: {
    index?: number;
    phase?: string;
    node?: string;
    cpu?: string;
    terminating?: boolean;
    removal?: string;
    ownerUid?: string;
    job?: string;
  } = {},
): V1Pod {
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `${name}-uid`,
      resourceVersion: String(rv),
      labels: {
        'training.kubeflow.org/operator-name': 'tfjob-controller',
        'training.kubeflow.org/job-name': opts.job ?? 'j',
        'training.kubeflow.org/replica-type': 'worker',
        'training.kubeflow.org/replica-index': String(opts.index ?? 0),
      },
      ...(opts.removal === undefined ? {} : { annotations: { 'tfjob-operator.kubeflow.org/removal': opts.removal } }),
      ownerReferences: [
        { apiVersion: 'kubeflow.org/v1', kind: 'TFJob', name: opts.job ?? 'j', uid: opts.ownerUid ?? JOB_UID, controller: true },
      ],
      ...(opts.terminating === true ? { deletionTimestamp: new Date() } : {}),
    },
    spec: {
      ...(opts.node === undefined ? {} : { nodeName: opts.node }),
      containers: [{ name: 'tensorflow', ...(opts.cpu === undefined ? {} : { resources: { requests: { cpu: opts.cpu } } }) }],
    },
    status: { phase: opts.phase ?? 'Running' },
  };
}

function service(name: string, rv: number): V1Service {
  return {
    kind: 'Service',
    metadata: {
      name,
      namespace: 'ns',
      resourceVersion: String(rv),
      labels: {
        'training.kubeflow.org/operator-name': 'tfjob-controller',
        'training.kubeflow.org/replica-type': 'worker',
        'training.kubeflow.org/replica-index': name.split('-').at(-1) ?? '0',
      },
      ownerReferences: [{ apiVersion: 'kubeflow.org/v1', kind: 'TFJob', name: 'j', uid: JOB_UID, controller: true }],
    },
  };
}

function node(name: string, cpu: string): V1Node {
  return { metadata: { name }, status: { allocatable: { cpu, memory: '8Gi', pods: '110' } } };
}

const kinds = (s: InvariantState) => s.violations.map((v) => v.kind);

describe('InvariantState: duplicate replicas', () => {
  it('flags two live pods with one job/type/index, not a terminating one and its replacement', () => {
    const s = new InvariantState();
    s.onPod('ADDED', pod('a', 10, { index: 1 }));
    s.onPod('MODIFIED', pod('a', 11, { index: 1, terminating: true, removal: 'scale-in' }));
    s.onPod('ADDED', pod('b', 12, { index: 1 }));
    expect(kinds(s)).toEqual([]);
    s.onPod('ADDED', pod('c', 13, { index: 1 }));
    expect(kinds(s)).toEqual(['duplicate-replica']);
    expect(s.violations[0]?.message).toContain('b, c');
  });

  it('does not count terminated pods as live', () => {
    const s = new InvariantState();
    s.onPod('ADDED', pod('a', 10, { index: 0, phase: 'Succeeded' }));
    s.onPod('ADDED', pod('b', 11, { index: 0 }));
    expect(kinds(s)).toEqual([]);
  });
});

describe('InvariantState: deletions', () => {
  const deleteAt = (s: InvariantState, p: V1Pod, rv: number) => {
    s.onPod('MODIFIED', { ...p, metadata: { ...p.metadata, resourceVersion: String(rv), deletionTimestamp: new Date() } });
    s.onPod('DELETED', { ...p, metadata: { ...p.metadata, resourceVersion: String(rv + 1), deletionTimestamp: new Date() } });
  };

  it('accepts a scale-in or preemption (removal annotation) and a restart of a Failed pod', () => {
    const s = new InvariantState();
    s.onJob('ADDED', job(5));
    deleteAt(s, pod('j-worker-1', 10, { index: 1, removal: 'preemption' }), 20);
    deleteAt(s, pod('j-worker-0', 11, { index: 0, phase: 'Failed' }), 22);
    s.evaluate();
    expect(kinds(s)).toEqual([]);
    expect(s.counts.byReason).toEqual({ 'pod:preemption': 1, 'pod:restart': 1 });
  });

  it('flags a running pod of a running job deleted for no reason, once', () => {
    const s = new InvariantState();
    s.onJob('ADDED', job(5));
    deleteAt(s, pod('j-worker-0', 10), 20);
    s.evaluate();
    s.evaluate();
    expect(kinds(s)).toEqual(['unexpected-pod-deletion']);
    expect(s.violations[0]?.message).toContain('j-worker-0');
  });

  it('attributes to the fake kubelet only an unmarked pod whose deletion the audit log says kwok made', () => {
    const asked: string[] = [];
    // The author of the delete closest to the first sighting of each deletion.
    const deleters: Record<string, string> = {
      'j-worker-1': 'kwok-controller',
      'j-worker-2': 'admin',
      'j-worker-3': 'admin',
      'j-worker-4': 'kwok-controller',
    };
    const s = new InvariantState({
      deleterOf: (kind, name) => {
        asked.push(`${kind}/${name}`);
        return deleters[name];
      },
    });
    s.onJob('ADDED', job(5, { workers: 4 }));
    // Gone at once (no terminating update first), deleted by kwok: its stale delete by name.
    s.onPod('ADDED', pod('j-worker-1', 10, { index: 1 }));
    s.onPod('DELETED', pod('j-worker-1', 11, { index: 1, terminating: true }));
    // Gone at once, deleted by someone else: a violation.
    s.onPod('ADDED', pod('j-worker-2', 12, { index: 2 }));
    s.onPod('DELETED', pod('j-worker-2', 13, { index: 2, terminating: true }));
    // Made terminating by someone else (kwok only finalizing it): a violation.
    s.onPod('ADDED', pod('j-worker-3', 14, { index: 3 }));
    deleteAt(s, pod('j-worker-3', 14, { index: 3 }), 15);
    // Made terminating by kwok's own (graceful) stale delete: the emulation's fault.
    s.onPod('ADDED', pod('j-worker-4', 17, { index: 3 }));
    deleteAt(s, pod('j-worker-4', 17, { index: 3 }), 18);
    s.evaluate();
    expect(s.violations.map((v) => v.message.split(' ')[1])).toEqual(['j-worker-2', 'j-worker-3']);
    expect(s.counts.byReason).toEqual({ 'pod:fake-kubelet-by-name': 2 });
    expect(asked).toEqual(['pod/j-worker-1', 'pod/j-worker-2', 'pod/j-worker-3', 'pod/j-worker-4']);
  });

  it('judges cleanup by the job as of the deletion: finished before it, with a policy that deletes that pod', () => {
    const s = new InvariantState();
    s.onJob('ADDED', job(5, { cleanPodPolicy: 'Running' }));
    s.onJob('MODIFIED', job(30, { cleanPodPolicy: 'Running', finished: 'Succeeded' }));
    deleteAt(s, pod('early', 10), 20); // before the job finished: not cleanup
    deleteAt(s, pod('running', 11), 40); // Running pod after it finished: cleanup
    deleteAt(s, pod('done', 12, { phase: 'Succeeded' }), 42); // policy Running keeps Succeeded pods
    s.evaluate();
    expect(s.violations.map((v) => v.message.split(' ')[1])).toEqual(['early', 'done']);
    expect(s.counts.byReason).toEqual({ 'pod:cleanup': 1 });
  });

  it('judges deletions only once the job events may have arrived (evaluate with a cut-off)', () => {
    const s = new InvariantState();
    s.onJob('ADDED', job(5, { cleanPodPolicy: 'All' }));
    s.onPod('ADDED', pod('p', 10));
    s.onPod('DELETED', pod('p', 40), 1_000);
    s.evaluate(500); // seen after the cut-off: not judged yet
    expect(s.pendingDeletions).toBe(1);
    // The job's Succeeded (rv 30, before the pod's deletion) arrives late, on its own stream.
    s.onJob('MODIFIED', job(30, { cleanPodPolicy: 'All', finished: 'Succeeded' }));
    s.evaluate(1_000);
    expect(kinds(s)).toEqual([]);
    expect(s.counts.byReason).toEqual({ 'pod:cleanup': 1 });
  });

  it('accepts suspension, job deletion, a fixed-size scale-down, injected deletions and lost nodes', () => {
    const s = new InvariantState();
    s.onJob('ADDED', job(5, { workers: 3 }));
    s.onJob('MODIFIED', job(10, { workers: 1 }));
    deleteAt(s, pod('j-worker-2', 6, { index: 2 }), 12); // scale-down 3 → 1
    s.allowDeletion('pod', 'by-hand', 0);
    deleteAt(s, pod('by-hand', 7), 14);
    s.allowNodeLoss('n1');
    deleteAt(s, pod('on-lost-node', 8, { node: 'n1' }), 16);
    s.onJob('MODIFIED', job(20, { workers: 1, suspend: true }));
    deleteAt(s, pod('suspended', 9), 22);
    s.onJob('MODIFIED', job(30, { workers: 1, suspend: false, deleting: true }));
    deleteAt(s, pod('gc', 10), 32);
    s.evaluate();
    expect(kinds(s)).toEqual([]);
    expect(s.counts.byReason).toEqual({
      'pod:scale-down': 1,
      'pod:injected': 1,
      'pod:node-lost': 1,
      'pod:suspend': 1,
      'pod:job-deleted': 1,
    });
    // An allowance is used up by one deletion, and explains none seen before it was given.
    const t = new InvariantState();
    t.onJob('ADDED', job(5));
    t.onPod('DELETED', pod('by-hand', 3), 100); // unexplained, seen before the announcement
    t.allowDeletion('pod', 'by-hand', 200);
    t.onPod('DELETED', pod('by-hand', 8), 300);
    t.onPod('DELETED', pod('by-hand', 12), 400);
    t.evaluate();
    expect(t.violations.map((v) => v.message.split(' ').slice(0, 6).join(' '))).toEqual([
      'pod by-hand deleted at rv 3',
      'pod by-hand deleted at rv 12',
    ]);
    expect(t.counts.byReason).toEqual({ 'pod:injected': 1 });
  });

  it('accepts a service deleted with its scale-in, in either order, but not one deleted after a plain pod restart', () => {
    const s = new InvariantState();
    s.onJob('ADDED', job(5, { workers: 4 }));
    // Scale-in: the operator deletes the pod (marked) and its service concurrently; the service goes first.
    s.onPod('ADDED', pod('j-worker-3', 10, { index: 3 }));
    s.onService('DELETED', service('j-worker-3', 20));
    s.onPod('MODIFIED', pod('j-worker-3', 21, { index: 3, terminating: true, removal: 'scale-in' }));
    // A Failed pod restarted: its service must stay.
    s.onPod('ADDED', pod('j-worker-1', 11, { index: 1 }));
    s.onPod('MODIFIED', pod('j-worker-1', 30, { index: 1, phase: 'Failed', terminating: true }));
    s.onService('DELETED', service('j-worker-1', 31));
    s.evaluate();
    expect(s.violations.map((v) => v.kind)).toEqual(['unexpected-service-deletion']);
    expect(s.violations[0]?.message).toContain('j-worker-1');
    // The report says which pods the job had then (what the operator that deleted it reasoned about).
    expect(s.violations[0]?.message).toContain(
      "the job's pods then: j-worker-1:Failed+deleting j-worker-3:Running+removal=scale-in+deleting)",
    );
    expect(s.counts.byReason).toMatchObject({ 'service:scale-in': 1, 'pod:scale-in': 1, 'pod:restart': 1 });
  });

  it("accepts the service of an elastic job's lost worker going when the job shrinks instead of replacing it", () => {
    const s = new InvariantState();
    const elastic = { ...job(5, { workers: 4 }), spec: { ...job(5).spec, elasticPolicy: { maxReplicas: 4 } } };
    s.onJob('ADDED', elastic);
    s.onPod('ADDED', pod('j-worker-2', 10, { index: 2 }));
    s.allowDeletion('pod', 'j-worker-2', 0);
    s.onPod('DELETED', pod('j-worker-2', 20, { index: 2 }));
    s.onService('DELETED', service('j-worker-2', 25));
    // The same in a fixed-size job is a violation: it replaces the pod and keeps the service.
    const t = new InvariantState();
    t.onJob('ADDED', job(5, { workers: 4 }));
    t.onPod('ADDED', pod('j-worker-2', 10, { index: 2 }));
    t.allowDeletion('pod', 'j-worker-2', 0);
    t.onPod('DELETED', pod('j-worker-2', 20, { index: 2 }));
    t.onService('DELETED', service('j-worker-2', 25));
    s.evaluate();
    t.evaluate();
    expect(kinds(s)).toEqual([]);
    expect(s.counts.byReason).toEqual({ 'pod:injected': 1, 'service:elastic-shrink': 1 });
    expect(kinds(t)).toEqual(['unexpected-service-deletion']);
  });
});

describe('InvariantState: gaps of the monitor itself', () => {
  it('after a relist, treats vanished pods as deleted and counts what it cannot judge as unjudged, not violations', () => {
    const s = new InvariantState();
    s.onJob('ADDED', job(5));
    s.onNode('ADDED', node('n', '2'));
    s.onPod('ADDED', pod('kept', 10, { node: 'n', cpu: '1' }));
    s.onPod('ADDED', pod('vanished', 11, { node: 'n', cpu: '1', index: 1 }));
    // The watch got 410 at rv 11; the relist at rv 50 no longer has "vanished".
    s.resync('pods', new Set(['kept']), 11, 50);
    s.onPod('ADDED', pod('new', 51, { node: 'n', cpu: '1', index: 2 })); // fits only because "vanished" is gone
    s.evaluate();
    expect(kinds(s)).toEqual([]);
    expect(s.counts.unjudged).toBe(1);
    // Outside the gap, the same unexplained deletion is a violation.
    deleteOutside(s);
    expect(kinds(s)).toEqual(['unexpected-pod-deletion']);
  });

  function deleteOutside(s: InvariantState): void {
    s.onPod('DELETED', pod('kept', 60, { node: 'n', cpu: '1' }));
    s.evaluate();
  }
});

describe('InvariantState: cordoned and tainted nodes', () => {
  const tainted = (name: string, taints: V1Taint[], unschedulable = false): V1Node => ({
    metadata: { name },
    spec: { unschedulable, taints },
    status: { allocatable: { cpu: '8', pods: '110' } },
  });

  it('flags a pod created on a node cordoned (or tainted) for longer than the grace period', () => {
    const s = new InvariantState();
    s.onNode('ADDED', tainted('c', [], true), 0);
    s.onNode('ADDED', tainted('t', [{ key: 'fault', value: 'x', effect: 'NoSchedule' }]), 0);
    s.onPod('ADDED', pod('early', 1, { node: 'c' }), 1_000); // within the grace period: the operator's cache may lag
    expect(kinds(s)).toEqual([]);
    s.onPod('ADDED', pod('late', 2, { node: 'c', index: 1 }), 10_000);
    s.onPod('ADDED', pod('untolerated', 3, { node: 't', index: 2 }), 10_000);
    const ok = pod('tolerated', 4, { node: 't', index: 3 });
    ok.spec = { ...ok.spec!, tolerations: [{ key: 'fault', operator: 'Exists' }] };
    s.onPod('ADDED', ok, 10_000);
    expect(s.violations.map((v) => v.message.split(' ').slice(0, 2).join(' '))).toEqual(['pod late', 'pod untolerated']);
  });

  it('does not flag pods that were there before, nor nodes uncordoned again', () => {
    const s = new InvariantState();
    s.onNode('ADDED', tainted('n', []), 0);
    s.onPod('ADDED', pod('before', 1, { node: 'n' }), 0);
    s.onNode('MODIFIED', tainted('n', [], true), 1_000);
    s.onPod('MODIFIED', pod('before', 2, { node: 'n', phase: 'Succeeded' }), 20_000);
    s.onNode('MODIFIED', tainted('n', [], false), 21_000);
    s.onPod('ADDED', pod('after', 3, { node: 'n', index: 1 }), 30_000);
    expect(kinds(s)).toEqual([]);
  });

  it('matches tolerations as Kubernetes does', () => {
    const taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
    expect(tolerates([{ key: 'k', operator: 'Equal', value: 'v' }], taint)).toBe(true);
    expect(tolerates([{ key: 'k', operator: 'Equal', value: 'w' }], taint)).toBe(false);
    expect(tolerates([{ operator: 'Exists' }], taint)).toBe(true);
    expect(tolerates([{ key: 'k', operator: 'Exists', effect: 'NoExecute' }], taint)).toBe(false);
    expect(tolerates(undefined, taint)).toBe(false);
  });
});

describe('InvariantState: removals that never complete', () => {
  it('flags a pod marked for removal that is not being deleted by the deadline, not one deleted in time', () => {
    const s = new InvariantState();
    s.onPod('ADDED', pod('slow', 1, { index: 1 }), 0);
    s.onPod('MODIFIED', pod('slow', 2, { index: 1, removal: 'preemption' }), 1_000);
    s.onPod('ADDED', pod('quick', 3, { index: 2 }), 0);
    s.onPod('MODIFIED', pod('quick', 4, { index: 2, removal: 'scale-in' }), 1_000);
    s.onPod('MODIFIED', pod('quick', 5, { index: 2, removal: 'scale-in', terminating: true }), 1_500);
    s.checkStuckRemovals(500);
    expect(kinds(s)).toEqual([]);
    s.checkStuckRemovals(2_000);
    s.checkStuckRemovals(3_000);
    expect(s.violations.map((v) => v.message.replace(/ \(.*$/, ''))).toEqual([
      'pod slow was marked for removal but is still not being deleted',
    ]);
    // What decides its cause in a report: the mark, the phase, the job's state and its pods.
    expect(s.violations[0]?.message).toMatch(
      /removal=preemption first seen at .*, phase Running; .*; its pods: quick:Running\+removal=scale-in\+deleting slow:Running\+removal=preemption\)$/,
    );
  });
});

describe('InvariantState: nodes and queue state', () => {
  it('flags a node whose bound, non-terminated pods request more than its allocatable', () => {
    const s = new InvariantState({ nodeFilter: (n) => n.startsWith('pool-') });
    s.onNode('ADDED', node('pool-0', '2'));
    s.onNode('ADDED', node('other', '1'));
    s.onPod('ADDED', pod('a', 1, { node: 'pool-0', cpu: '1500m' }));
    s.onPod('MODIFIED', pod('a', 2, { node: 'pool-0', cpu: '1500m', phase: 'Succeeded' }));
    s.onPod('ADDED', pod('b', 3, { node: 'pool-0', cpu: '1', index: 1 }));
    s.onPod('ADDED', pod('c', 4, { node: 'other', cpu: '4', index: 2 })); // not in the pool: not checked
    expect(kinds(s)).toEqual([]);
    s.onPod('ADDED', pod('d', 5, { node: 'pool-0', cpu: '1500m', index: 3 }));
    expect(kinds(s)).toEqual(['overcommitted-node']);
    expect(s.violations[0]?.message).toContain('cpu 2500 > 2000');
  });

  it('flags a changed first-enqueue time, per job UID', () => {
    const s = new InvariantState();
    s.onJob('ADDED', job(1, { enqueueTime: '2026-01-01T00:00:00Z' }));
    s.onJob('MODIFIED', job(2, { enqueueTime: '2026-01-01T00:00:00Z' }));
    s.onJob('ADDED', job(3, { enqueueTime: '2026-01-01T00:05:00Z', uid: 'other-uid' })); // a recreated job
    expect(kinds(s)).toEqual([]);
    s.onJob('MODIFIED', job(4, { enqueueTime: '2026-01-01T00:01:00Z' }));
    expect(kinds(s)).toEqual(['enqueue-time-changed']);
  });

  it('finds orphans and unfinished jobs at the end', () => {
    const s = new InvariantState();
    const end = s.checkEnd({
      jobs: [job(1, { finished: 'Succeeded' }), job(2, { uid: 'u2', name: 'slow' })],
      pods: [
        { ...pod('ok', 1), kind: 'Pod' },
        { ...pod('orphan', 2, { ownerUid: 'gone' }), kind: 'Pod' },
        { metadata: { name: 'not-ours' } },
      ],
      services: [service('svc-ok', 3)],
    });
    expect(end.map((v) => `${v.kind}: ${v.message.split(' ').slice(0, 2).join(' ')}`)).toEqual([
      'orphan: Pod orphan',
      'not-terminal: slow is',
    ]);
    expect(s.checkEnd({ jobs: [job(2, { uid: 'u2', name: 'slow' })], pods: [], services: [] }, { expectFinished: () => false })).toEqual(
      [],
    );
  });
});

describe('memory summary and seeded randomness', () => {
  it('reports the peak and the late/middle growth ratio', () => {
    const flat = Array.from({ length: 30 }, (_, i) => ({ t: i, pid: 1, bytes: 100 + (i % 3) }));
    expect(summarizeMemory(flat)).toMatchObject({ samples: 30, maxBytes: 102 });
    expect(summarizeMemory(flat).lateOverMiddle).toBeCloseTo(1, 1);
    const leak = Array.from({ length: 30 }, (_, i) => ({ t: i, pid: 1, bytes: 100 * (i + 1) }));
    expect(summarizeMemory(leak).lateOverMiddle).toBeGreaterThan(1.4);
    expect(summarizeMemory([])).toEqual({ samples: 0, maxBytes: 0, lateOverMiddle: 1 });
    // Several processes (restarts): the peak of all, the growth of the longest-lived one.
    const restarted = [...Array.from({ length: 4 }, (_, i) => ({ t: i, pid: 2, bytes: 900 })), ...flat];
    expect(summarizeMemory(restarted)).toMatchObject({ samples: 34, maxBytes: 900 });
    expect(summarizeMemory(restarted).lateOverMiddle).toBeCloseTo(1, 1);
  });

  it('replays the same sequence for the same seed', () => {
    const a = rng(42);
    const b = rng(42);
    const xs = Array.from({ length: 5 }, () => a.int(0, 1000));
    expect(Array.from({ length: 5 }, () => b.int(0, 1000))).toEqual(xs);
    expect(Array.from({ length: 5 }, () => rng(43).int(0, 1000))).not.toEqual(xs);
  });
});
