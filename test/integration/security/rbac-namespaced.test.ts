// Namespaced mode under least privilege (what docs/operations.md suggests for a stricter setup than
// the shipped ClusterRole): the operator runs with `--namespace A` as a ServiceAccount whose write
// access (the shipped role's rules) is bound only in A by a RoleBinding, plus cluster-wide reads the
// scheduler needs (all pods' requests, nodes, PriorityClasses). test/integration/install/rbac.test.ts
// covers the shipped ClusterRole cluster-wide; this covers what it does not:
// - it is enough: a job in A runs to completion with zero 401/403 responses;
// - it is confining: the operator cannot touch another namespace B (pods, services, TFJobs, status,
//   events), read any Secret, or list TFJobs cluster-wide, and leaves B's TFJobs alone.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AuthorizationV1Api, CoreV1Api, RbacAuthorizationV1Api, type KubeConfig, type V1PolicyRule } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { REPO_ROOT } from '../../../lab/local-cluster/index.ts';
import {
  adminKubeConfig,
  apiStatus,
  createNamespace,
  deleteNamespace,
  exitPod,
  kubeConfigForToken,
  uniqueName,
} from '../../support/kube.ts';
import { parseMetrics, sumOf } from '../../support/prometheus.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, getTFJob, tfjob, waitForCondition, waitForPods } from '../../support/tfjob.ts';

/** The rules of the shipped ClusterRole (config/rbac/role.yaml), to be bound in one namespace only. */
function shippedRules(): V1PolicyRule[] {
  const role = parse(readFileSync(path.join(REPO_ROOT, 'config', 'rbac', 'role.yaml'), 'utf8')) as { rules: V1PolicyRule[] };
  return role.rules.filter((r) => !(r.resources ?? []).some((res) => res === 'nodes' || res === 'priorityclasses'));
}

describe('security: namespaced mode under least privilege', () => {
  let nsA: string;
  let nsB: string;
  let pool: Pool;
  let asOperator: KubeConfig;
  const prefix = uniqueName('rbac-ns');
  const sa = 'tfjob-operator';

  beforeAll(async () => {
    nsA = await createNamespace('rbac-ns-a');
    nsB = await createNamespace('rbac-ns-b');
    pool = await createPool('rbacns', 1, { cpu: '4', memory: '16Gi' });
    const admin = adminKubeConfig();
    const core = admin.makeApiClient(CoreV1Api);
    const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
    await core.createNamespacedServiceAccount({ namespace: nsA, body: { metadata: { name: sa } } });
    const subject = [{ kind: 'ServiceAccount', name: sa, namespace: nsA }];
    // Writes: the shipped rules, bound in A only (a ClusterRole used through a RoleBinding).
    await rbac.createClusterRole({ body: { metadata: { name: `${prefix}-ns` }, rules: shippedRules() } });
    await rbac.createNamespacedRoleBinding({
      namespace: nsA,
      body: {
        metadata: { name: 'operator' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${prefix}-ns` },
        subjects: subject,
      },
    });
    // Reads the scheduler needs cluster-wide: every pod's requests on a node, nodes, PriorityClasses.
    await rbac.createClusterRole({
      body: {
        metadata: { name: `${prefix}-reads` },
        rules: [
          { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
          { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: ['scheduling.k8s.io'], resources: ['priorityclasses'], verbs: ['get', 'list', 'watch'] },
        ],
      },
    });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: `${prefix}-reads` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${prefix}-reads` },
        subjects: subject,
      },
    });
    // Leader election in A.
    await rbac.createNamespacedRole({
      namespace: nsA,
      body: {
        metadata: { name: 'leases' },
        rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: nsA,
      body: {
        metadata: { name: 'leases' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'leases' },
        subjects: subject,
      },
    });
    const token = await core.createNamespacedServiceAccountToken({
      name: sa,
      namespace: nsA,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    asOperator = kubeConfigForToken(token.status?.token ?? '');
  });
  afterAll(async () => {
    const rbac = adminKubeConfig().makeApiClient(RbacAuthorizationV1Api);
    await rbac.deleteClusterRoleBinding({ name: `${prefix}-reads` }).catch(() => undefined);
    await rbac.deleteClusterRole({ name: `${prefix}-reads` }).catch(() => undefined);
    await rbac.deleteClusterRole({ name: `${prefix}-ns` }).catch(() => undefined);
    await deleteNamespace(nsA);
    await deleteNamespace(nsB);
    await pool.delete();
  });

  it('runs a job in its namespace with zero forbidden requests, and leaves other namespaces alone', async () => {
    let operator: Operator | undefined;
    try {
      operator = await startOperator(
        nsA,
        ['--policy', 'ours', ...pool.operatorFlags, '--leader-elect', '--leader-election-namespace', nsA],
        { kubeConfig: asOperator },
      );
      await createTFJob(nsB, onPool(tfjob('elsewhere', { Worker: 1 }, { resources: { cpu: '1', memory: '1Gi' } }), pool));
      await createTFJob(
        nsA,
        onPool(
          tfjob(
            'mine',
            { PS: 1, Worker: 2 },
            { restartPolicy: 'OnFailure', resources: { cpu: '500m', memory: '512Mi' }, runPolicy: { cleanPodPolicy: 'All' } },
          ),
          pool,
        ),
      );
      await waitForPods(nsA, 'mine', 3);
      await exitPod(nsA, 'mine-worker-0', 0);
      await waitForCondition(nsA, 'mine', 'Succeeded', { timeoutMs: 60_000 });
      await sleep(2_000);
      const samples = parseMetrics(await operator.registry.metrics());
      expect(sumOf(samples, 'rest_client_requests_total')).toBeGreaterThan(0);
      expect(sumOf(samples, 'rest_client_requests_total', { code: '403' })).toBe(0);
      expect(sumOf(samples, 'rest_client_requests_total', { code: '401' })).toBe(0);
      expect(sumOf(samples, 'tfjob_operator_informer_events_total', { event: 'error' })).toBe(0);
      // B's job was never looked at: no status, no pods.
      expect((await getTFJob(nsB, 'elsewhere')).status?.conditions ?? []).toEqual([]);
      expect((await adminKubeConfig().makeApiClient(CoreV1Api).listNamespacedPod({ namespace: nsB })).items).toEqual([]);
    } finally {
      await operator?.stop();
    }
  });

  it('is denied everything outside its namespace, and every Secret', async () => {
    const review = async (verb: string, resource: string, namespace: string, group = '', subresource?: string) => {
      const res = await asOperator.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
        body: {
          spec: { resourceAttributes: { verb, resource, namespace, group, ...(subresource === undefined ? {} : { subresource }) } },
        },
      });
      return res.status?.allowed === true ? 'allowed' : 'denied';
    };
    const what = (verb: string, resource: string, namespace: string, group: string, subresource: string | undefined) =>
      `${verb} ${group === '' ? 'core' : group}/${resource}${subresource === undefined ? '' : `/${subresource}`} in ${namespace === '' ? '<cluster>' : namespace}`;
    const checks = [
      // Allowed in A (the operator's work) ...
      ['create', 'pods', nsA, '', undefined, 'allowed'],
      ['update', 'tfjobs', nsA, 'kubeflow.org', 'status', 'allowed'],
      // ... denied in B, and cluster-wide for namespaced writes.
      ['create', 'pods', nsB, '', undefined, 'denied'],
      ['delete', 'pods', nsB, '', undefined, 'denied'],
      ['patch', 'pods', nsB, '', undefined, 'denied'],
      ['create', 'services', nsB, '', undefined, 'denied'],
      ['delete', 'services', nsB, '', undefined, 'denied'],
      ['list', 'tfjobs', nsB, 'kubeflow.org', undefined, 'denied'],
      ['list', 'tfjobs', '', 'kubeflow.org', undefined, 'denied'],
      ['delete', 'tfjobs', nsB, 'kubeflow.org', undefined, 'denied'],
      ['update', 'tfjobs', nsB, 'kubeflow.org', 'status', 'denied'],
      ['create', 'events', nsB, 'events.k8s.io', undefined, 'denied'],
      ['create', 'leases', nsB, 'coordination.k8s.io', undefined, 'denied'],
      ['create', 'pods', '', '', undefined, 'denied'],
      // Secrets nowhere, not even in A.
      ['get', 'secrets', nsA, '', undefined, 'denied'],
      ['list', 'secrets', nsA, '', undefined, 'denied'],
      ['list', 'secrets', '', '', undefined, 'denied'],
      ['watch', 'secrets', nsB, '', undefined, 'denied'],
    ] as const;
    const got = await Promise.all(
      checks.map(
        async ([verb, resource, ns, group, sub]) =>
          `${what(verb, resource, ns, group, sub)}: ${await review(verb, resource, ns, group, sub)}`,
      ),
    );
    expect(got).toEqual(checks.map(([verb, resource, ns, group, sub, want]) => `${what(verb, resource, ns, group, sub)}: ${want}`));

    // And the API server really refuses: a pod in B, a Secret in A.
    const core = asOperator.makeApiClient(CoreV1Api);
    const refused = async (p: Promise<unknown>) =>
      apiStatus(
        await p.then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
    expect(
      await refused(
        core.createNamespacedPod({
          namespace: nsB,
          body: { metadata: { name: 'sneaky' }, spec: { containers: [{ name: 'c', image: 'x' }] } },
        }),
      ),
    ).toBe(403);
    expect(await refused(core.listNamespacedSecret({ namespace: nsA }))).toBe(403);
  });
});
