// config/kubeflow on a control plane that runs (a stand-in for) Kubeflow's training-operator v1.8.1
// with its own TFJob CRD: our CRD replaces theirs without losing existing TFJobs, training-operator's
// TFJob controller is disabled through --enable-scheme, its TFJob webhook is skipped, and nothing
// else of Kubeflow's objects changes. A fresh control plane of its own: the test swaps the CRD.
import path from 'node:path';
import {
  ApiextensionsV1Api,
  AppsV1Api,
  CustomObjectsApi,
  AdmissionregistrationV1Api,
  type V1CustomResourceDefinition,
  type V1ManagedFieldsEntry,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_CRD_GENERATED_FROM } from '../../../src/api/v1/constants.ts';
import { LocalCluster, REPO_ROOT } from '../../../lab/local-cluster/index.ts';
import { eventually } from '../../support/kube.ts';
import { CONFIG_DIR, find, kubectl, render, type K8sObject } from './helpers.ts';

const OVERLAY = path.join(CONFIG_DIR, 'kubeflow');
const UPSTREAM_CRD = path.join(REPO_ROOT, 'test', 'fixtures', 'kubeflow.org_tfjobs.v1.8.1.yaml');
const KUBEFLOW = path.join(import.meta.dirname, 'fixtures', 'kubeflow-training-operator.yaml');
const APPLY = ['apply', '--server-side', '--field-manager=tfjob-operator', '--force-conflicts', '-k', OVERLAY];

function tfjob(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name },
    spec: {
      ...extra,
      tfReplicaSpecs: {
        Worker: { replicas: 2, template: { spec: { containers: [{ name: 'tensorflow', image: 'example.invalid/tf:1' }] } } },
      },
    },
  };
}

/** The API server's message from a client-node ApiException. */
function statusMessage(err: unknown): string {
  const body = (err as { body?: unknown }).body;
  return typeof body === 'string' ? ((JSON.parse(body) as { message?: string }).message ?? body) : String(err);
}

/** True when the served schema has our `spec.elasticPolicy` (the upstream one does not). */
function hasOurSchema(crd: V1CustomResourceDefinition): boolean {
  return crd.spec.versions.every((v) => v.schema?.openAPIV3Schema?.properties?.spec?.properties?.elasticPolicy !== undefined);
}

describe('config/kubeflow (coexistence with training-operator)', () => {
  let cluster: LocalCluster;
  const run = (args: string[]) => kubectl(cluster.state.kubectl, cluster.kubeconfigPath, args);
  const custom = () => cluster.kubeConfig().makeApiClient(CustomObjectsApi);
  const tfjobs = { group: 'kubeflow.org', version: 'v1', plural: 'tfjobs', namespace: 'kubeflow' };
  let legacyUid: string;
  let kubeflowDeployment: string;

  const established = async () => {
    const api = cluster.kubeConfig().makeApiClient(ApiextensionsV1Api);
    await eventually(
      async () => {
        const crd = await api.readCustomResourceDefinition({ name: 'tfjobs.kubeflow.org' });
        return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true ? crd : false;
      },
      { what: 'TFJob CRD Established' },
    );
  };

  beforeAll(async () => {
    // No kube-controller-manager needed: nothing here has to run.
    cluster = await LocalCluster.start({ kwok: false, scheduler: false, controllerManager: false, onProgress: () => undefined });
    // Kubeflow, as its manifests install it: upstream CRD, then training-operator and its webhook.
    expect((await run(['create', 'namespace', 'kubeflow'])).code).toBe(0);
    const crd = await run(['apply', '--server-side', '--force-conflicts', '-f', UPSTREAM_CRD]);
    expect(crd.code, crd.stderr).toBe(0);
    await established();
    // A TFJob submitted under Kubeflow: the upstream schema prunes our elasticPolicy.
    const legacy = await eventually(
      async () =>
        custom().createNamespacedCustomObject({ ...tfjobs, body: tfjob('legacy', { elasticPolicy: { maxReplicas: 4 } }) }) as Promise<{
          metadata: { uid: string };
          spec: Record<string, unknown>;
        }>,
      { what: 'create legacy TFJob' },
    );
    expect(legacy.spec.elasticPolicy).toBeUndefined();
    legacyUid = legacy.metadata.uid;
    const kf = await run(['apply', '--server-side', '--force-conflicts', '-f', KUBEFLOW]);
    expect(kf.code, kf.stderr).toBe(0);
    kubeflowDeployment = JSON.stringify(
      (await cluster.kubeConfig().makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'training-operator', namespace: 'kubeflow' }))
        .spec?.template,
    );
  });
  afterAll(async () => {
    await cluster.stop();
  });

  it('before: the TFJob webhook training-operator no longer serves rejects every TFJob', async () => {
    const err: unknown = await custom()
      .createNamespacedCustomObject({ ...tfjobs, body: tfjob('rejected') })
      .catch((e: unknown) => e);
    expect(statusMessage(err)).toMatch(/failed calling webhook "validator\.tfjob\.training-operator\.kubeflow\.org"/);
  });

  it('needs --force-conflicts for the CRD only, and passes a server-side dry run with it', async () => {
    const polite = await run(['apply', '--server-side', '--field-manager=tfjob-operator', '--dry-run=server', '-k', OVERLAY]);
    expect(polite.code).not.toBe(0);
    expect(polite.stderr).toMatch(/conflict with "kubectl"/);
    const conflicts = polite.stderr.split('\n').filter((l) => /^error: Apply failed/.test(l));
    expect(conflicts).toHaveLength(1);
    // The TFJob CRD (training-operator's) is the conflict; our queue CRDs are new and apply cleanly.
    expect(polite.stdout).not.toMatch(/customresourcedefinition.apiextensions.k8s.io\/tfjobs/);

    const dry = await run([...APPLY.slice(0, 1), '--dry-run=server', ...APPLY.slice(1)]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).not.toMatch(/warning/i);
    const rendered = await render(cluster.state.kubectl, OVERLAY);
    expect(dry.stdout.trim().split('\n')).toHaveLength(rendered.length);
    // Nothing changed yet.
    const crd = await cluster.kubeConfig().makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name: 'tfjobs.kubeflow.org' });
    expect(crd.metadata?.annotations?.[ANNOTATION_CRD_GENERATED_FROM]).toBeUndefined();
  });

  it('replaces the CRD, keeps existing TFJobs and lets new ones (with our extensions) in', async () => {
    const applied = await run(APPLY);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).not.toMatch(/warning/i);
    await established();
    const crd = await cluster.kubeConfig().makeApiClient(ApiextensionsV1Api).readCustomResourceDefinition({ name: 'tfjobs.kubeflow.org' });
    expect(crd.metadata?.annotations?.[ANNOTATION_CRD_GENERATED_FROM]).toMatch(/kubeflow\/training-operator v1\.8\.1/);

    const legacy = (await custom().getNamespacedCustomObject({ ...tfjobs, name: 'legacy' })) as { metadata: { uid: string } };
    expect(legacy.metadata.uid).toBe(legacyUid);
    // The webhook is skipped and our schema keeps elasticPolicy.
    const created = await eventually(
      async () =>
        custom().createNamespacedCustomObject({
          ...tfjobs,
          body: tfjob('elastic', { elasticPolicy: { minReplicas: 1, maxReplicas: 4 } }),
        }) as Promise<{ spec: Record<string, unknown> }>,
      { what: 'create a TFJob after the overlay' },
    );
    expect(created.spec.elasticPolicy).toEqual({ minReplicas: 1, maxReplicas: 4 });
    // And our CEL rules validate instead of the webhook.
    const invalid: unknown = await custom()
      .createNamespacedCustomObject({ ...tfjobs, body: tfjob('bad', { elasticPolicy: { minReplicas: 5, maxReplicas: 4 } }) })
      .catch((e: unknown) => e);
    expect(statusMessage(invalid)).toMatch(/must be greater than or equal to spec\.elasticPolicy\.minReplicas/);
  });

  it("disables only tf-operator's TFJob controller and webhook, leaving the rest of Kubeflow's objects alone", async () => {
    const deploy = await cluster
      .kubeConfig()
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ name: 'training-operator', namespace: 'kubeflow' });
    const container = deploy.spec?.template.spec?.containers[0];
    expect(container?.args).toEqual([
      '--enable-scheme=pytorchjob',
      '--enable-scheme=mxjob',
      '--enable-scheme=xgboostjob',
      '--enable-scheme=mpijob',
      '--enable-scheme=paddlejob',
    ]);
    // Everything else of the pod template is Kubeflow's, unchanged.
    const withoutArgs = (json: string) => {
      const t = JSON.parse(json) as { spec: { containers: { args?: unknown }[] } };
      for (const c of t.spec.containers) delete c.args;
      return t;
    };
    expect(withoutArgs(JSON.stringify(deploy.spec?.template))).toEqual(withoutArgs(kubeflowDeployment));
    // We own exactly the args (and the list key), so Kubeflow's later applies keep their fields.
    const ours = (deploy.metadata?.managedFields ?? []).filter((m: V1ManagedFieldsEntry) => m.manager === 'tfjob-operator');
    expect(ours.map((m): unknown => m.fieldsV1)).toEqual([
      {
        'f:spec': {
          'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"training-operator"}': { '.': {}, 'f:args': {}, 'f:name': {} } } } },
        },
      },
    ]);
    expect(deploy.metadata?.labels).toEqual({ 'control-plane': 'kubeflow-training-operator' });

    const vwc = await cluster
      .kubeConfig()
      .makeApiClient(AdmissionregistrationV1Api)
      .readValidatingWebhookConfiguration({ name: 'validator.training-operator.kubeflow.org' });
    const byName = new Map((vwc.webhooks ?? []).map((w) => [w.name, w]));
    expect(byName.get('validator.tfjob.training-operator.kubeflow.org')?.matchConditions).toEqual([
      { name: 'tfjobs-served-by-tfjob-operator', expression: 'false' },
    ]);
    expect(byName.get('validator.pytorchjob.training-operator.kubeflow.org')?.matchConditions ?? []).toEqual([]);
    expect(byName.get('validator.pytorchjob.training-operator.kubeflow.org')?.failurePolicy).toBe('Fail');
  });

  it('installs this operator in the kubeflow namespace, its RBAC bound to its ServiceAccount there', async () => {
    const rendered = await render(cluster.state.kubectl, OVERLAY);
    const ours = rendered.filter(
      (o) => o.metadata.labels?.['app.kubernetes.io/part-of'] === 'tfjob-operator' && o.kind !== 'CustomResourceDefinition',
    );
    const got = await run([
      'get',
      ...ours.map((o: K8sObject) => `${o.kind.toLowerCase()}/${o.metadata.name}`),
      '-n',
      'kubeflow',
      '-o',
      'name',
    ]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout.trim().split('\n')).toHaveLength(ours.length);
    for (const [kind, name] of [
      ['ClusterRoleBinding', 'tfjob-operator'],
      ['RoleBinding', 'tfjob-operator-leader-election'],
    ] as const) {
      expect(find(rendered, kind, name).subjects).toEqual([{ kind: 'ServiceAccount', name: 'tfjob-operator', namespace: 'kubeflow' }]);
    }
    const deploy = await cluster
      .kubeConfig()
      .makeApiClient(AppsV1Api)
      .readNamespacedDeployment({ name: 'tfjob-operator', namespace: 'kubeflow' });
    expect(deploy.spec?.template.metadata?.annotations).toEqual({ 'sidecar.istio.io/inject': 'false' });
    expect(deploy.spec?.template.spec?.containers[0]?.env?.find((e) => e.name === 'POD_NAMESPACE')?.valueFrom?.fieldRef?.fieldPath).toBe(
      'metadata.namespace',
    );
  });

  it("a later re-apply of Kubeflow's manifests brings their CRD back; re-applying the overlay restores ours", async () => {
    const api = cluster.kubeConfig().makeApiClient(ApiextensionsV1Api);
    expect(hasOurSchema(await api.readCustomResourceDefinition({ name: 'tfjobs.kubeflow.org' }))).toBe(true);
    const kf = await run(['apply', '--server-side', '--force-conflicts', '-f', UPSTREAM_CRD]);
    expect(kf.code, kf.stderr).toBe(0);
    expect(hasOurSchema(await api.readCustomResourceDefinition({ name: 'tfjobs.kubeflow.org' }))).toBe(false);
    const again = await run(APPLY);
    expect(again.code, again.stderr).toBe(0);
    expect(hasOurSchema(await api.readCustomResourceDefinition({ name: 'tfjobs.kubeflow.org' }))).toBe(true);
  });
});
