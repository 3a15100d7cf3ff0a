// After a kubelet refused a replica's pod: the replica comes back by name on the room there is (no
// phantom growth of a fixed-size job takes it), and the refusing node is avoided for the job.
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULER_CONFIG, type ClusterSnapshot, type NodeInfo } from '../../../../src/scheduler/index.ts';
import { jobSpec } from '../../../../src/operator/scheduling/convert.ts';
import { decide, fixedJobsNotGrown } from '../../../../src/operator/scheduling/pass/decide.ts';
import { DecisionBook } from '../../../../src/operator/scheduling/decisions/book.ts';
import { restoreDecision } from '../../../../src/operator/scheduling/decisions/decision.ts';
import { schedulingStatus } from '../../../../src/operator/scheduling/decisions/input.ts';
import { avoidNodesThatRefuse, newlyRejectedAt, REASON_REJECTED_BY_KUBELET } from '../../../../src/operator/scheduling/refused-nodes.ts';
import { silentLogger } from '../../../../src/runtime/logger.ts';

const node = (name: string, cpu: number): NodeInfo => ({
  name,
  allocatable: { cpu, memory: 16 * 2 ** 30, pods: 110 },
  labels: {},
  taints: [],
  unschedulable: false,
  ready: true,
});

/** A running job whose one Worker (3 CPUs) lost its pod; `workerBounds` makes it elastic. */
function jobMissingItsWorker(elastic: boolean) {
  const spec = jobSpec({
    key: 'ns/j',
    priority: 0,
    submittedAt: 0,
    groups: [
      { type: 'Worker', replicas: 1, template: { spec: { containers: [{ name: 'tensorflow', resources: { requests: { cpu: '3' } } }] } } },
    ],
    ...(elastic ? { workerBounds: { min: 1, max: 2 } } : {}),
    defaults: { cpu: 100, memory: 2 ** 20 },
  });
  const snapshot: ClusterSnapshot = {
    now: 0,
    nodes: [node('only', 4000)],
    otherPods: [],
    jobs: [{ spec, phase: 'running', replicas: [] }],
  };
  const missing = elastic ? [{ job: 'ns/j', group: spec.workers! }] : [{ job: 'ns/j', group: spec.workers!, name: 'j-worker-0' }];
  return { snapshot, facts: [{ key: 'ns/j', elastic, missing }] };
}

describe('a fixed-size job that lost its worker pod', () => {
  it('gets the worker back by name on the one slot there is (no scale-out takes the room first)', () => {
    const { snapshot, facts } = jobMissingItsWorker(false);
    const decided = decide('ours', snapshot, facts, DEFAULT_SCHEDULER_CONFIG);
    expect(decided.plan.scaleOut).toEqual([]);
    expect(decided.repairs.map((r) => [r.replica.name, r.node])).toEqual([['j-worker-0', 'only']]);
  });

  it('an elastic job still grows by scale-out', () => {
    const { snapshot, facts } = jobMissingItsWorker(true);
    const decided = decide('ours', snapshot, facts, DEFAULT_SCHEDULER_CONFIG);
    expect(decided.plan.scaleOut.map((e) => [e.job, e.add.length])).toEqual([['ns/j', 1]]);
  });

  it('fixedJobsNotGrown keeps the plan as is when every growth is elastic', () => {
    const plan = { suspend: [], admit: [], scaleIn: [], scaleOut: [{ job: 'ns/e', add: [] }], bind: [], waiting: [], weights: {} };
    expect(fixedJobsNotGrown(plan, [{ key: 'ns/e', elastic: true }])).toBe(plan);
    expect(fixedJobsNotGrown(plan, [{ key: 'ns/e', elastic: false }]).scaleOut).toEqual([]);
  });
});

function ourPod(status: V1Pod['status']): V1Pod {
  return {
    metadata: {
      name: 'j-worker-0',
      namespace: 'ns',
      ownerReferences: [{ apiVersion: 'kubeflow.org/v1', kind: 'TFJob', name: 'j', uid: 'u', controller: true }],
    },
    spec: { nodeName: 'n1', containers: [{ name: 'tensorflow' }] },
    status,
  };
}
const pending = ourPod({ phase: 'Pending' });
const refused = ourPod({ phase: 'Failed', reason: 'OutOfcpu', message: 'Pod was rejected' });

describe('newlyRejectedAt: the node a kubelet just refused our pod on', () => {
  it('names the job and the node on the update that brings the refusal, and on an add that shows it', () => {
    const rejection = { job: 'ns/j', pod: 'j-worker-0', node: 'n1', reason: 'OutOfcpu' };
    expect(newlyRejectedAt(refused, pending)).toEqual(rejection);
    expect(newlyRejectedAt(refused, undefined)).toEqual(rejection);
  });

  it('nothing for a later update of the same refused pod, a pod that failed running, or a pod not ours', () => {
    expect(newlyRejectedAt(refused, refused)).toBeUndefined();
    expect(newlyRejectedAt(ourPod({ phase: 'Failed', reason: 'Evicted' }), pending)).toBeUndefined();
    const crashed = ourPod({
      phase: 'Failed',
      reason: 'OutOfcpu',
      containerStatuses: [{ name: 'tensorflow', image: 'i', imageID: '', ready: false, restartCount: 1 }],
    });
    expect(newlyRejectedAt(crashed, pending)).toBeUndefined();
    expect(newlyRejectedAt({ ...refused, metadata: { ...refused.metadata, ownerReferences: [] } }, pending)).toBeUndefined();
  });
});

describe('avoidNodesThatRefuse: the pod informer handler', () => {
  it('keeps the job off the refusing node for the given time, once per refusal, and wakes the job', () => {
    const avoided: [string, string, number][] = [];
    const explained: [string, string][] = [];
    const woken: string[] = [];
    const book = {
      avoid: (job: string, node: string, until: number) => avoided.push([job, node, until]),
      explain: (job: string, reason: string) => explained.push([job, reason]),
    };
    const handler = avoidNodesThatRefuse(book, silentLogger(), 60_000, (job) => woken.push(job));
    const before = Date.now();
    handler('update', refused, pending);
    handler('update', refused, refused);
    handler('delete', refused, undefined);
    handler('update', pending, pending);
    expect(avoided.map(([job, node]) => [job, node])).toEqual([['ns/j', 'n1']]);
    expect(avoided[0]![2]).toBeGreaterThanOrEqual(before + 60_000);
    expect(explained).toEqual([['ns/j', REASON_REJECTED_BY_KUBELET]]);
    expect(woken).toEqual(['ns/j']);
  });

  it("gives a running job's status the refusal and how long the node is avoided, until the next placement says otherwise", () => {
    const book = new DecisionBook();
    const job = {
      metadata: { name: 'j', creationTimestamp: '2026-11-29T00:00:00Z' },
      status: { scheduling: { queue: 'Running' as const } },
    };
    const restored = new Map([['ns/j', restoreDecision(job, [], 0)]]);
    book.upkeep({ restored, suspended: [], settled: new Map(), attained: new Map(), at: 0 });
    avoidNodesThatRefuse(book, silentLogger(), 90_000, () => undefined)('update', refused, pending);
    const facts = { bounds: { min: 1, max: 1 }, finished: false, liveWorkers: 0 };
    const status = schedulingStatus(book.get('ns/j')!, facts);
    expect(status.queue).toBe('Running');
    expect(status.reason).toBe('PodRejectedByKubelet');
    expect(status.message).toBe(
      'The kubelet of n1 refused j-worker-0 (OutOfcpu), counting what the API does not show there; the replica waits to be placed again on another node, or on n1 after 90s (avoided for this job until then)',
    );
    expect([...book.get('ns/j')!.avoidNodes.keys()]).toEqual(['n1']);
    book.explain('ns/j', 'Placed', 'Placed j-worker-0 on n2');
    expect(schedulingStatus(book.get('ns/j')!, facts).reason).toBe('Placed');
  });
});
