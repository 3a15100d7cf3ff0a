// config/default as an admin installs it: rendered by the pinned kubectl's kustomize, a server-side
// dry run, then a real server-side apply on a fresh control plane of its own (cluster-scoped objects
// such as the CRD and ClusterRoles must not disturb the shared test cluster). The Deployment cannot
// run here (no image, no kubelet), but its ReplicaSet's pods must be admitted by the namespace's
// `restricted` Pod Security level, which proves the hardening is real.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { LocalCluster, REPO_ROOT } from '../../../lab/local-cluster/index.ts';
import { loadConfig } from '../../../src/operator/config.ts';
import { apiStatus, eventually } from '../../support/kube.ts';
import { CONFIG_DIR, find, kubectl, render, type K8sObject } from './helpers.ts';

const NS = 'tfjob-operator-system';
const DEFAULT = path.join(CONFIG_DIR, 'default');

interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: Record<string, unknown>;
}

interface PodSpec {
  serviceAccountName?: string;
  securityContext?: Record<string, unknown>;
  containers: Container[];
  affinity?: {
    podAntiAffinity?: {
      preferredDuringSchedulingIgnoredDuringExecution?: {
        podAffinityTerm: { labelSelector: { matchLabels: Record<string, string> }; topologyKey: string };
      }[];
    };
  };
}

interface Deployment extends K8sObject {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

function matches(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

describe('config/default', () => {
  let cluster: LocalCluster;
  let objects: K8sObject[];
  const run = (args: string[]) => kubectl(cluster.state.kubectl, cluster.kubeconfigPath, args);

  beforeAll(async () => {
    cluster = await LocalCluster.start({
      kwok: false,
      scheduler: false,
      // As on OpenShift: setting blockOwnerDeletion needs update on the owner's finalizers.
      extraApiserverArgs: ['--enable-admission-plugins=OwnerReferencesPermissionEnforcement'],
      onProgress: () => undefined,
    });
    objects = await render(cluster.state.kubectl, DEFAULT);
  });
  afterAll(async () => {
    await cluster.stop();
  });

  it('renders the namespace, CRDs, RBAC, Deployment, PDB and metrics Service', () => {
    const names = objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();
    expect(names).toEqual([
      'ClusterRole//tfjob-operator',
      'ClusterRole//tfjob-operator-tfjob-editor',
      'ClusterRole//tfjob-operator-tfjob-viewer',
      'ClusterRoleBinding//tfjob-operator',
      'CustomResourceDefinition//clusterqueues.tfjob-operator.kubeflow.org',
      'CustomResourceDefinition//localqueues.tfjob-operator.kubeflow.org',
      'CustomResourceDefinition//tfjobs.kubeflow.org',
      `Deployment/${NS}/tfjob-operator`,
      'Namespace//tfjob-operator-system',
      `PodDisruptionBudget/${NS}/tfjob-operator`,
      `Role/${NS}/tfjob-operator-leader-election`,
      `RoleBinding/${NS}/tfjob-operator-leader-election`,
      `Service/${NS}/tfjob-operator-metrics`,
      `ServiceAccount/${NS}/tfjob-operator`,
    ]);
    // The CRD is the generated one, unchanged (kustomize only adds our labels).
    const crd = find(objects, 'CustomResourceDefinition', 'tfjobs.kubeflow.org');
    const generated = parse(readFileSync(path.join(REPO_ROOT, 'crds', 'kubeflow.org_tfjobs.yaml'), 'utf8')) as K8sObject;
    expect(crd.spec).toEqual(generated.spec);
    expect(crd.metadata.annotations).toEqual(generated.metadata.annotations);
    // Both bindings name the ServiceAccount in the operator's namespace.
    for (const [kind, name] of [
      ['ClusterRoleBinding', 'tfjob-operator'],
      ['RoleBinding', 'tfjob-operator-leader-election'],
    ] as const) {
      expect(find(objects, kind, name).subjects).toEqual([{ kind: 'ServiceAccount', name: 'tfjob-operator', namespace: NS }]);
    }
  });

  it('runs two hardened replicas whose flags, ports and probes agree with the operator', () => {
    const deploy = find(objects, 'Deployment', 'tfjob-operator') as Deployment;
    const pod = deploy.spec.template;
    const [manager] = pod.spec.containers;
    expect(deploy.spec.replicas).toBe(2);
    expect(pod.spec.serviceAccountName).toBe('tfjob-operator');
    expect(matches(deploy.spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
    // Non-root with a numeric UID (runAsNonRoot cannot verify a named user), seccomp, no privileges.
    expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } });
    expect(manager?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      privileged: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(Object.keys(manager?.resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
    expect(Object.keys(manager?.resources?.limits ?? {}).sort()).toEqual(['cpu', 'memory']);
    expect(manager?.image).toBe('tfjob-operator:0.1.0');
    const anti = pod.spec.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.[0]?.podAffinityTerm;
    expect(anti?.topologyKey).toBe('kubernetes.io/hostname');
    expect(matches(anti?.labelSelector.matchLabels ?? { none: 'x' }, pod.metadata.labels)).toBe(true);

    // The args and the downward-API env parse with the operator's own configuration schema.
    const env: Record<string, string> = {};
    for (const e of manager?.env ?? []) {
      const field = e.valueFrom?.fieldRef?.fieldPath;
      env[e.name] = e.value ?? (field === 'metadata.name' ? 'tfjob-operator-7d9c-x2' : field === 'metadata.namespace' ? NS : '');
    }
    const { config } = loadConfig({ argv: manager?.args ?? [], env });
    expect(config).toMatchObject({ leaderElect: true, leaderElectionNamespace: NS, identity: 'tfjob-operator-7d9c-x2', namespace: [] });
    const port = (name: string) => manager?.ports?.find((p) => p.name === name)?.containerPort;
    expect(config.metricsBindAddress).toBe(`:${port('metrics')}`);
    expect(config.healthProbeBindAddress).toBe(`:${port('health')}`);
    expect(manager?.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'health' });
    expect(manager?.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'health' });

    const svc = find(objects, 'Service', 'tfjob-operator-metrics') as K8sObject & {
      spec: { selector: Record<string, string>; ports: { targetPort: string }[] };
    };
    expect(matches(svc.spec.selector, pod.metadata.labels)).toBe(true);
    expect(svc.spec.ports.map((p) => p.targetPort)).toEqual(['metrics']);
    const pdb = find(objects, 'PodDisruptionBudget', 'tfjob-operator') as K8sObject & {
      spec: { minAvailable: number; selector: { matchLabels: Record<string, string> } };
    };
    expect(pdb.spec.minAvailable).toBe(1);
    expect(matches(pdb.spec.selector.matchLabels, pod.metadata.labels)).toBe(true);
  });

  it('passes a server-side dry run without creating anything, then applies cleanly', async () => {
    // A dry run cannot create the namespace the other objects go into, so it comes first.
    const ns = await run(['apply', '--server-side', '-f', path.join(DEFAULT, 'namespace.yaml')]);
    expect(ns.code, ns.stderr).toBe(0);

    const dry = await run(['apply', '--server-side', '--dry-run=server', '-k', DEFAULT]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).not.toMatch(/warning/i);
    const dryLines = dry.stdout.trim().split('\n');
    expect(dryLines).toHaveLength(objects.length);
    for (const line of dryLines) expect(line).toMatch(/serverside-applied \(server dry run\)$/);
    const crds = cluster.kubeConfig().makeApiClient(ApiextensionsV1Api);
    expect(apiStatus(await crds.readCustomResourceDefinition({ name: 'tfjobs.kubeflow.org' }).catch((e: unknown) => e))).toBe(404);

    // The real apply: no warning either (the namespace warns on any Pod Security violation).
    const applied = await run(['apply', '--server-side', '-k', DEFAULT]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).not.toMatch(/warning/i);
    const got = await run(['get', '-k', DEFAULT, '-o', 'name']);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout.trim().split('\n')).toHaveLength(objects.length);

    // Applying again changes nothing (what an upgrade with unchanged manifests does).
    const diff = await run(['diff', '--server-side', '-k', DEFAULT]);
    expect(diff.code, `${diff.stdout}\n${diff.stderr}`).toBe(0);
  });

  it('serves the CRD with our extensions', async () => {
    const crds = cluster.kubeConfig().makeApiClient(ApiextensionsV1Api);
    await eventually(
      async () => {
        const crd = await crds.readCustomResourceDefinition({ name: 'tfjobs.kubeflow.org' });
        return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
      },
      { what: 'CRD Established' },
    );
    const custom = cluster.kubeConfig().makeApiClient(CustomObjectsApi);
    const job = (await custom.createNamespacedCustomObject({
      group: 'kubeflow.org',
      version: 'v1',
      plural: 'tfjobs',
      namespace: 'default',
      body: {
        apiVersion: 'kubeflow.org/v1',
        kind: 'TFJob',
        metadata: { name: 'elastic' },
        spec: {
          elasticPolicy: { minReplicas: 1, maxReplicas: 4 },
          tfReplicaSpecs: {
            Worker: { replicas: 2, template: { spec: { containers: [{ name: 'tensorflow', image: 'example.invalid/tf:1' }] } } },
          },
        },
      },
    })) as { spec: { elasticPolicy?: unknown } };
    expect(job.spec.elasticPolicy).toEqual({ minReplicas: 1, maxReplicas: 4 });
  });

  it('has replicas admitted by the `restricted` Pod Security level', async () => {
    const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
    // The ReplicaSet controller creates the pods; a Pod Security violation would leave none (FailedCreate).
    const pods = await eventually(
      async () => {
        const list = await core.listNamespacedPod({ namespace: NS, labelSelector: 'app.kubernetes.io/name=tfjob-operator' });
        return list.items.length === 2 ? list.items : false;
      },
      { timeoutMs: 60_000, what: 'two operator pods created' },
    );
    for (const p of pods) expect(p.spec?.containers[0]?.securityContext?.readOnlyRootFilesystem).toBe(true);
    const namespace = await core.readNamespace({ name: NS });
    expect(namespace.metadata?.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });

  it('grants tfjobs/finalizers, which setting blockOwnerDeletion needs under OwnerReferencesPermissionEnforcement', async () => {
    const custom = cluster.kubeConfig().makeApiClient(CustomObjectsApi);
    const job = (await custom.createNamespacedCustomObject({
      group: 'kubeflow.org',
      version: 'v1',
      plural: 'tfjobs',
      namespace: NS,
      body: {
        apiVersion: 'kubeflow.org/v1',
        kind: 'TFJob',
        metadata: { name: 'owner' },
        spec: {
          tfReplicaSpecs: {
            Worker: { replicas: 1, template: { spec: { containers: [{ name: 'tensorflow', image: 'example.invalid/tf:1' }] } } },
          },
        },
      },
    })) as { metadata: { uid: string } };
    // A pod exactly as the operator creates it: controller owner reference, blockOwnerDeletion.
    const pod = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'owner-worker-0',
        namespace: NS,
        ownerReferences: [
          {
            apiVersion: 'kubeflow.org/v1',
            kind: 'TFJob',
            name: 'owner',
            uid: job.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
        containers: [
          {
            name: 'tensorflow',
            image: 'example.invalid/tf:1',
            securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
          },
        ],
      },
    });
    const asOperator = ['--as', `system:serviceaccount:${NS}:tfjob-operator`];
    // The admission plugin maps kinds with a discovery cache that learns a new CRD after a while.
    const allowed = await eventually(
      async () => {
        const r = await kubectl(
          cluster.state.kubectl,
          cluster.kubeconfigPath,
          ['create', '--dry-run=server', '-f', '-', ...asOperator],
          pod,
        );
        return /cannot find RESTMapping/.test(r.stderr) ? false : r;
      },
      { timeoutMs: 90_000, intervalMs: 1_000, what: 'the API server to map kind TFJob' },
    );
    expect(allowed.code, allowed.stderr).toBe(0);

    // Without the finalizers rule the same create is forbidden.
    const role = find(objects, 'ClusterRole', 'tfjob-operator') as K8sObject & { rules: { resources: string[] }[] };
    const reduced = { ...role, rules: role.rules.filter((r) => !r.resources.includes('tfjobs/finalizers')) };
    expect(reduced.rules.length).toBe(role.rules.length - 1);
    const put = await kubectl(cluster.state.kubectl, cluster.kubeconfigPath, ['replace', '-f', '-'], JSON.stringify(reduced));
    expect(put.code, put.stderr).toBe(0);
    const denied = await eventually(
      async () => {
        const r = await kubectl(
          cluster.state.kubectl,
          cluster.kubeconfigPath,
          ['create', '--dry-run=server', '-f', '-', ...asOperator],
          pod,
        );
        return r.code !== 0 ? r : false;
      },
      { what: 'create denied without tfjobs/finalizers' },
    );
    expect(denied.stderr).toMatch(/cannot set blockOwnerDeletion/);

    // Re-applying the manifests restores the role.
    const restored = await run(['apply', '--server-side', '--force-conflicts', '-k', DEFAULT]);
    expect(restored.code, restored.stderr).toBe(0);
    await eventually(
      async () => {
        const r = await kubectl(
          cluster.state.kubectl,
          cluster.kubeconfigPath,
          ['create', '--dry-run=server', '-f', '-', ...asOperator],
          pod,
        );
        return r.code === 0;
      },
      { what: 'create allowed again' },
    );
  });
});
