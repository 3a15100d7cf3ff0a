// config/rbac is sufficient and minimal. Sufficient: the operator runs with a token of the shipped
// ServiceAccount bound to the shipped roles (TokenRequest, as in a pod) through whole job lifecycles
// in both scheduling modes — creation, running, restarts, scale-in preemption, scale-out, success,
// cleanup, TTL deletion, events, leader election — without one forbidden request. Minimal: every verb
// the role does not list, and everything else an operator might be tempted to touch, is denied.
import {
  AuthorizationV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  SchedulingV1Api,
  type KubeConfig,
  type V1ResourceAttributes,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import {
  adminKubeConfig,
  apiStatus,
  clusterState,
  createNamespace,
  deleteNamespace,
  eventually,
  exitPod,
  kubeConfigForToken,
  uniqueName,
} from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createTFJob, getTFJob, jobPods, tfjob, waitForCondition, waitForPods, type TestTFJob } from '../../support/tfjob.ts';
import { parseMetrics, sumOf } from '../../support/prometheus.ts';
import { createNodePool, installOperatorRbac, onPool, serviceAccountToken, type NodePool, type OperatorRbac } from './helpers.ts';

const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] as const;

/** What the operator calls, per resource (see the comments in config/rbac/role.yaml). */
const CLUSTER_WIDE: readonly { group: string; resource: string; subresource?: string; namespaced: boolean; verbs: readonly string[] }[] = [
  { group: 'kubeflow.org', resource: 'tfjobs', namespaced: true, verbs: ['get', 'list', 'watch', 'delete'] },
  { group: 'kubeflow.org', resource: 'tfjobs', subresource: 'status', namespaced: true, verbs: ['update'] },
  { group: 'kubeflow.org', resource: 'tfjobs', subresource: 'finalizers', namespaced: true, verbs: ['update'] },
  { group: '', resource: 'pods', namespaced: true, verbs: ['get', 'list', 'watch', 'create', 'delete', 'patch'] },
  { group: '', resource: 'pods', subresource: 'log', namespaced: true, verbs: ['get'] },
  { group: '', resource: 'pods', subresource: 'resize', namespaced: true, verbs: ['patch'] },
  { group: '', resource: 'services', namespaced: true, verbs: ['get', 'list', 'watch', 'create', 'delete'] },
  { group: 'events.k8s.io', resource: 'events', namespaced: true, verbs: ['create', 'patch'] },
  { group: '', resource: 'nodes', namespaced: false, verbs: ['get', 'list', 'watch'] },
  { group: 'scheduling.k8s.io', resource: 'priorityclasses', namespaced: false, verbs: ['get', 'list', 'watch'] },
  { group: 'tfjob-operator.kubeflow.org', resource: 'clusterqueues', namespaced: false, verbs: ['get', 'list', 'watch'] },
  { group: 'tfjob-operator.kubeflow.org', resource: 'clusterqueues', subresource: 'status', namespaced: false, verbs: ['update'] },
  { group: 'tfjob-operator.kubeflow.org', resource: 'localqueues', namespaced: true, verbs: ['get', 'list', 'watch'] },
  { group: 'tfjob-operator.kubeflow.org', resource: 'localqueues', subresource: 'status', namespaced: true, verbs: ['update'] },
  // Labels for ClusterQueue namespaceSelectors, from a cache; never get, create, update or delete.
  { group: '', resource: 'namespaces', namespaced: false, verbs: ['list', 'watch'] },
];
const LEASE_VERBS = ['get', 'create', 'update'];

/** Never needed by the operator: every verb must be denied. */
const FORBIDDEN: readonly { group: string; resource: string; subresource?: string; namespaced: boolean }[] = [
  { group: '', resource: 'secrets', namespaced: true },
  { group: '', resource: 'configmaps', namespaced: true },
  { group: '', resource: 'serviceaccounts', namespaced: true },
  { group: '', resource: 'serviceaccounts', subresource: 'token', namespaced: true },
  { group: '', resource: 'events', namespaced: true },
  { group: '', resource: 'persistentvolumeclaims', namespaced: true },
  { group: '', resource: 'pods', subresource: 'exec', namespaced: true },
  { group: '', resource: 'pods', subresource: 'eviction', namespaced: true },
  { group: '', resource: 'pods', subresource: 'binding', namespaced: true },
  { group: '', resource: 'pods', subresource: 'status', namespaced: true },
  { group: '', resource: 'nodes', subresource: 'status', namespaced: false },
  { group: 'apps', resource: 'deployments', namespaced: true },
  { group: 'batch', resource: 'jobs', namespaced: true },
  { group: 'rbac.authorization.k8s.io', resource: 'roles', namespaced: true },
  { group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings', namespaced: false },
  { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', namespaced: false },
  { group: 'admissionregistration.k8s.io', resource: 'validatingwebhookconfigurations', namespaced: false },
  { group: 'kubeflow.org', resource: 'pytorchjobs', namespaced: true },
];

interface Decision {
  readonly what: string;
  readonly allowed: boolean;
}

async function review(kc: KubeConfig, attrs: V1ResourceAttributes): Promise<Decision> {
  const res = await kc.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: attrs } } });
  const what = `${attrs.verb ?? ''} ${attrs.group === '' ? 'core' : (attrs.group ?? '')}/${attrs.resource ?? ''}${attrs.subresource ? `/${attrs.subresource}` : ''} in ${attrs.namespace === undefined || attrs.namespace === '' ? '<cluster>' : attrs.namespace}`;
  return { what, allowed: res.status?.allowed === true };
}

describe('config/rbac: the operator as its ServiceAccount', () => {
  let ns: string;
  let rbac: OperatorRbac;
  let asOperator: KubeConfig;
  let pool: NodePool;
  const highClass = uniqueName('rbac-high');

  beforeAll(async () => {
    ns = await createNamespace('rbac');
    const cluster = clusterState();
    rbac = await installOperatorRbac({
      kubectlPath: cluster.kubectl,
      kubeconfig: cluster.kubeconfig,
      admin: adminKubeConfig(),
      namespace: ns,
      prefix: uniqueName('rbac'),
    });
    asOperator = kubeConfigForToken(await serviceAccountToken(adminKubeConfig(), ns, rbac.serviceAccount));
    pool = await createNodePool('rbac', 1, { cpu: '4', memory: '16Gi' });
    await adminKubeConfig()
      .makeApiClient(SchedulingV1Api)
      .createPriorityClass({ body: { metadata: { name: highClass }, value: 1000, description: 'test: high' } });
  });
  afterAll(async () => {
    await deleteNamespace(ns);
    await rbac.cleanup();
    await pool.delete();
    await adminKubeConfig()
      .makeApiClient(SchedulingV1Api)
      .deletePriorityClass({ name: highClass })
      .catch(() => undefined);
  });

  /** No request of the operator was refused, and every informer synced without an error. */
  async function expectNoForbidden(operator: Operator): Promise<void> {
    const samples = parseMetrics(await operator.registry.metrics());
    const byCode = samples
      .filter((s) => s.name === 'rest_client_requests_total')
      .map((s) => `${s.labels.method ?? ''} ${s.labels.code ?? ''}`);
    expect(byCode.length).toBeGreaterThan(0);
    expect(sumOf(samples, 'rest_client_requests_total', { code: '403' }), byCode.join(', ')).toBe(0);
    expect(sumOf(samples, 'rest_client_requests_total', { code: '401' })).toBe(0);
    expect(sumOf(samples, 'tfjob_operator_informer_events_total', { event: 'error' })).toBe(0);
  }

  async function ourEvents(job: string): Promise<{ reason: string; instance: string }[]> {
    const list = await adminKubeConfig()
      .makeApiClient(EventsV1Api)
      .listNamespacedEvent({ namespace: ns, fieldSelector: `regarding.name=${job}` });
    return list.items
      .filter((e) => e.reportingController === 'tfjob-controller')
      .map((e) => ({ reason: e.reason ?? '', instance: e.reportingInstance ?? '' }));
  }

  async function waitGone(name: string): Promise<void> {
    await eventually(
      async () => {
        try {
          await getTFJob(ns, name);
          return false;
        } catch (err) {
          return apiStatus(err) === 404;
        }
      },
      { timeoutMs: 60_000, what: `${name} deleted after ttlSecondsAfterFinished` },
    );
  }

  it('tf-operator mode: create, run, restart, succeed, clean up and TTL-delete a job, leading on a Lease', async () => {
    const operator = await startOperator(
      ns,
      ['--policy', 'tf-operator', '--leader-elect', '--leader-election-namespace', ns, '--identity', 'rbac-tfop'],
      { kubeConfig: asOperator },
    );
    try {
      const lease = await eventually(
        async () => {
          const l = await adminKubeConfig()
            .makeApiClient(CoordinationV1Api)
            .readNamespacedLease({ name: 'tfjob-operator.kubeflow.org', namespace: ns });
          return l.spec?.holderIdentity === 'rbac-tfop' ? l : false;
        },
        { what: 'lease held by the operator' },
      );
      expect(lease.spec?.leaseDurationSeconds).toBe(15);

      await createTFJob(
        ns,
        tfjob(
          'tfop',
          { PS: 1, Worker: 2 },
          { restartPolicy: 'ExitCode', runPolicy: { cleanPodPolicy: 'All', ttlSecondsAfterFinished: 5 } },
        ),
      );
      const pods = await waitForPods(ns, 'tfop', 3);
      await waitForCondition(ns, 'tfop', 'Running');
      // A retryable exit code: the operator deletes the pod and creates it again.
      const uid = pods.find((p) => p.metadata?.name === 'tfop-worker-1')?.metadata?.uid;
      await exitPod(ns, 'tfop-worker-1', 137);
      await eventually(
        async () => {
          const p = (await jobPods(ns, 'tfop')).find((x) => x.metadata?.name === 'tfop-worker-1');
          return p !== undefined && p.metadata?.uid !== uid && p.status?.phase === 'Running';
        },
        { what: 'tfop-worker-1 recreated' },
      );
      await exitPod(ns, 'tfop-worker-0', 0);
      await waitForCondition(ns, 'tfop', 'Succeeded');
      await waitGone('tfop');
      const events = await eventually(
        async () => {
          const es = await ourEvents('tfop');
          const reasons = es.map((e) => e.reason);
          return ['SuccessfulCreatePod', 'SuccessfulCreateService', 'SuccessfulDeletePod', 'TFJobSucceeded'].every((r) =>
            reasons.includes(r),
          )
            ? es
            : false;
        },
        { what: 'tfop lifecycle events' },
      );
      expect(new Set(events.map((e) => e.instance))).toEqual(new Set(['rbac-tfop']));
      await expectNoForbidden(operator);
    } finally {
      await operator.stop();
    }
    // A graceful stop released the lease (an update with an empty holder).
    const released = await adminKubeConfig()
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ name: 'tfjob-operator.kubeflow.org', namespace: ns });
    expect(released.spec?.holderIdentity ?? '').toBe('');
  });

  it('ours mode: admission, scale-in preemption, scale-out, success, cleanup and TTL on dedicated nodes', async () => {
    const operator = await startOperator(
      ns,
      ['--policy', 'ours', ...pool.operatorFlags, '--leader-elect', '--leader-election-namespace', ns, '--identity', 'rbac-ours'],
      { kubeConfig: asOperator },
    );
    try {
      const requests = { cpu: '1', memory: '1Gi' };
      const light = onPool(
        tfjob('light', { Worker: 4 }, { resources: requests, restartPolicy: 'OnFailure', runPolicy: { ttlSecondsAfterFinished: 5 } }),
        pool,
      );
      light.spec.elasticPolicy = { minReplicas: 1, maxReplicas: 4 };
      await createTFJob(ns, light);
      await waitForPods(ns, 'light', 4);
      await waitForCondition(ns, 'light', 'Running');

      // The pool has 4 cpu: a higher-priority job of 2 workers preempts 2 of light's.
      const heavy: TestTFJob = onPool(
        tfjob(
          'heavy',
          { Worker: 2 },
          {
            resources: requests,
            runPolicy: { cleanPodPolicy: 'Running', ttlSecondsAfterFinished: 5, schedulingPolicy: { priorityClass: highClass } },
          },
        ),
        pool,
      );
      await createTFJob(ns, heavy);
      await waitForPods(ns, 'heavy', 2);
      await waitForCondition(ns, 'heavy', 'Running');
      await eventually(async () => (await jobPods(ns, 'light')).filter((p) => p.metadata?.deletionTimestamp === undefined).length === 2, {
        what: 'light scaled in to 2 workers',
      });
      expect((await getTFJob(ns, 'light')).status?.scheduling).toMatchObject({ preemptions: 2 });

      // heavy succeeds; its running pods are deleted (cleanPodPolicy Running) and light grows back.
      await exitPod(ns, 'heavy-worker-0', 0);
      await waitForCondition(ns, 'heavy', 'Succeeded');
      await eventually(
        async () => {
          const live = (await jobPods(ns, 'light')).filter(
            (p) => p.metadata?.deletionTimestamp === undefined && p.status?.phase === 'Running',
          );
          return live.length === 4;
        },
        { timeoutMs: 60_000, what: 'light scaled out to 4 workers' },
      );
      await waitGone('heavy');
      await exitPod(ns, 'light-worker-0', 0);
      await waitForCondition(ns, 'light', 'Succeeded');
      await waitGone('light');

      await eventually(
        async () => {
          const reasons = (await ourEvents('light')).map((e) => e.reason);
          return ['Admitted', 'Preempted', 'ScaledOut', 'SuccessfulCreatePod'].every((r) => reasons.includes(r));
        },
        { what: 'light scheduling events' },
      );
      await expectNoForbidden(operator);
    } finally {
      await operator.stop();
    }
  });

  it('may do exactly what the operator does, cluster-wide, and nothing else', async () => {
    const decisions: Decision[] = [];
    const expected: Decision[] = [];
    for (const r of CLUSTER_WIDE) {
      // Namespaced resources are checked in a job namespace and at cluster scope (--namespace unset).
      for (const namespace of r.namespaced ? [ns, ''] : ['']) {
        for (const verb of VERBS) {
          const d = await review(asOperator, { group: r.group, resource: r.resource, subresource: r.subresource, verb, namespace });
          decisions.push(d);
          expected.push({ what: d.what, allowed: r.verbs.includes(verb) });
        }
      }
    }
    for (const r of FORBIDDEN) {
      for (const verb of VERBS) {
        const d = await review(asOperator, {
          group: r.group,
          resource: r.resource,
          subresource: r.subresource,
          verb,
          namespace: r.namespaced ? ns : '',
        });
        decisions.push(d);
        expected.push({ what: d.what, allowed: false });
      }
    }
    // Leases: only get/create/update, only in the operator's own namespace.
    for (const namespace of [ns, 'default', 'kube-system', 'kube-node-lease']) {
      for (const verb of VERBS) {
        const d = await review(asOperator, { group: 'coordination.k8s.io', resource: 'leases', verb, namespace });
        decisions.push(d);
        expected.push({ what: d.what, allowed: namespace === ns && LEASE_VERBS.includes(verb) });
      }
    }
    expect(decisions).toEqual(expected);
  });

  it('is refused when it actually tries something else', async () => {
    const core = asOperator.makeApiClient(CoreV1Api);
    const refused = async (p: Promise<unknown>) =>
      apiStatus(
        await p.then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
    expect(await refused(core.listNamespacedSecret({ namespace: ns }))).toBe(403);
    expect(await refused(core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'x' } } }))).toBe(403);
    expect(await refused(core.deleteNode({ name: pool.nodes[0]! }))).toBe(403);
    expect(await refused(core.patchNode({ name: pool.nodes[0]!, body: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }] }))).toBe(
      403,
    );
    expect(
      await refused(
        asOperator
          .makeApiClient(CoordinationV1Api)
          .createNamespacedLease({ namespace: 'default', body: { metadata: { name: uniqueName('stolen') } } }),
      ),
    ).toBe(403);
    expect(
      await refused(
        asOperator.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
          group: 'kubeflow.org',
          version: 'v1',
          plural: 'tfjobs',
          namespace: ns,
          body: tfjob('sneaky', { Worker: 1 }),
        }),
      ),
    ).toBe(403);
    // The node is still there.
    expect((await adminKubeConfig().makeApiClient(CoreV1Api).readNode({ name: pool.nodes[0]! })).metadata?.name).toBe(pool.nodes[0]);
  });
});
