// Proves the local control plane is real: each test asserts an effect only a real kube-apiserver,
// kube-controller-manager and kwok together produce.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorizationV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { auditTrail } from '../../support/forensics.ts';
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
import { fakeNodes } from '../../../lab/local-cluster/index.ts';
import { createTestNodes, deleteTestNodes } from '../../support/nodes.ts';

const core = () => adminKubeConfig().makeApiClient(CoreV1Api);

function pod(name: string, nodeName: string, restartPolicy = 'Never', extra: Partial<V1Pod['metadata']> = {}): V1Pod {
  return {
    metadata: { name, ...extra },
    spec: {
      nodeName,
      restartPolicy,
      containers: [{ name: 'tensorflow', image: 'example.invalid/tf:1', resources: { requests: { cpu: '1' } } }],
    },
  };
}

describe('local control plane', () => {
  let ns: string;
  let nodes: string[];

  beforeAll(async () => {
    ns = await createNamespace('cp');
    nodes = await createTestNodes(fakeNodes(uniqueName('cp-node'), 2, { capacity: { cpu: '4', memory: '8Gi' } }));
  });
  afterAll(async () => {
    await deleteNamespace(ns);
    await deleteTestNodes(nodes);
  });

  it('runs a pod bound by spec.nodeName on a kwok node', async () => {
    const node = nodes[0]!;
    await core().createNamespacedPod({ namespace: ns, body: pod('bound', node) });
    const running = await eventually(
      async () => {
        const p = await core().readNamespacedPod({ name: 'bound', namespace: ns });
        return p.status?.phase === 'Running' ? p : false;
      },
      { what: 'pod Running' },
    );
    expect(running.spec?.nodeName).toBe(node);
    expect(running.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
    expect(running.status?.podIP).toMatch(/^10\.244\./);
  });

  it('ends containers on request the way a kubelet would for each restartPolicy', async () => {
    const node = nodes[1]!;
    await core().createNamespacedPod({ namespace: ns, body: pod('never-fails', node, 'Never') });
    await core().createNamespacedPod({ namespace: ns, body: pod('never-succeeds', node, 'Never') });
    await core().createNamespacedPod({ namespace: ns, body: pod('onfailure-restarts', node, 'OnFailure') });
    for (const name of ['never-fails', 'never-succeeds', 'onfailure-restarts']) {
      await eventually(async () => (await core().readNamespacedPod({ name, namespace: ns })).status?.phase === 'Running', {
        what: `${name} Running`,
      });
    }
    await exitPod(ns, 'never-fails', 137, 'OOMKilled');
    await exitPod(ns, 'never-succeeds', 0);
    await exitPod(ns, 'onfailure-restarts', 1);

    const failed = await eventually(
      async () => {
        const p = await core().readNamespacedPod({ name: 'never-fails', namespace: ns });
        return p.status?.phase === 'Failed' ? p : false;
      },
      { what: 'never-fails Failed' },
    );
    expect(failed.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({ exitCode: 137, reason: 'OOMKilled' });

    const succeeded = await eventually(
      async () => {
        const p = await core().readNamespacedPod({ name: 'never-succeeds', namespace: ns });
        return p.status?.phase === 'Succeeded' ? p : false;
      },
      { what: 'never-succeeds Succeeded' },
    );
    expect(succeeded.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(0);

    const restarted = await eventually(
      async () => {
        const p = await core().readNamespacedPod({ name: 'onfailure-restarts', namespace: ns });
        return p.status?.containerStatuses?.[0]?.restartCount === 1 ? p : false;
      },
      { what: 'onfailure-restarts restarted in place' },
    );
    expect(restarted.status?.phase).toBe('Running');
    expect(restarted.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode).toBe(1);
    expect(restarted.metadata?.annotations?.['kwok.tfjob-operator.kubeflow.org/exit-code']).toBeUndefined();
  });

  it('garbage-collects the pods of a deleted namespace', async () => {
    const doomed = await createNamespace('cp-doomed');
    await core().createNamespacedPod({ namespace: doomed, body: pod('victim', nodes[0]!) });
    await core().deleteNamespace({ name: doomed });
    await eventually(
      async () => {
        try {
          await core().readNamespace({ name: doomed });
          return false;
        } catch (err) {
          if (apiStatus(err) === 404) return true;
          throw err;
        }
      },
      { timeoutMs: 60_000, what: 'namespace deletion to finish' },
    );
    const left = await core().listNamespacedPod({ namespace: doomed });
    expect(left.items).toHaveLength(0);
  });

  it('deletes dependents in cascade when their owner is deleted', async () => {
    const owner = await core().createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'owner' }, data: { a: 'b' } } });
    const ownerReferences = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid!, controller: true, blockOwnerDeletion: true },
    ];
    await core().createNamespacedPod({ namespace: ns, body: pod('dependent', nodes[0]!, 'Never', { ownerReferences }) });
    await core().createNamespacedService({
      namespace: ns,
      body: { metadata: { name: 'dependent', ownerReferences }, spec: { clusterIP: 'None', ports: [{ port: 2222 }] } },
    });
    await core().deleteNamespacedConfigMap({ name: 'owner', namespace: ns });
    await eventually(
      async () => {
        const pods = await core().listNamespacedPod({ namespace: ns, fieldSelector: 'metadata.name=dependent' });
        const services = await core().listNamespacedService({ namespace: ns, fieldSelector: 'metadata.name=dependent' });
        return pods.items.length === 0 && services.items.length === 0;
      },
      { timeoutMs: 60_000, what: 'garbage collection of the dependents' },
    );
  });

  it('denies a ServiceAccount without permissions (RBAC is enforced)', async () => {
    await core().createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: 'nobody' } } });
    const tokenRequest = await core().createNamespacedServiceAccountToken({
      name: 'nobody',
      namespace: ns,
      body: { spec: { audiences: [], expirationSeconds: 600 } },
    });
    const token = tokenRequest.status?.token;
    expect(token).toBeTruthy();
    const asNobody = kubeConfigForToken(token!);

    const err = await asNobody
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace: ns })
      .catch((e: unknown) => e);
    expect(apiStatus(err)).toBe(403);

    // The same identity is authenticated (not anonymous): SelfSubjectReview names the ServiceAccount.
    const review = await asNobody.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
      body: { spec: { resourceAttributes: { namespace: ns, verb: 'list', resource: 'pods' } } },
    });
    expect(review.status?.allowed).toBe(false);
  });
  it('records who deleted a pod in the audit log (user and user agent), and nothing it need not', async () => {
    const node = nodes[0]!;
    const name = uniqueName('audited');
    await core().createNamespacedPod({ namespace: ns, body: pod(name, node) });
    await core().patchNamespacedPod(
      { name, namespace: ns, body: { metadata: { annotations: { marked: 'yes' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core().deleteNamespacedPod({ name, namespace: ns });
    const trail = await eventually(
      async () => {
        const t = auditTrail(clusterState().auditLog, 'pods', ns, name);
        return t.some((l) => l.includes(' delete 200 by admin ')) ? t : false;
      },
      { what: 'the delete in the audit log' },
    );
    expect(trail.some((l) => l.includes(' patch 200 by admin '))).toBe(true);
    // Pod creates are audited too (which operator process created a pod on an over-committed node).
    expect(trail.some((l) => l.includes(' create 201 by admin '))).toBe(true);
  });
});
