// Installs a CRD from a YAML file the way `kubectl create/replace` would (raw JSON: client-node's
// typed CRD model would drop every `x-kubernetes-*` key) and waits until it is served.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiextensionsV1Api, type KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { KubeClients } from '../../src/runtime/kube-client.ts';
import { REPO_ROOT } from './binaries.ts';
import { httpStatus } from '../../src/runtime/http-status.ts';

export const TFJOB_CRD_FILE = path.join(REPO_ROOT, 'crds', 'kubeflow.org_tfjobs.yaml');
/** The queue CRDs (ClusterQueue, LocalQueue; docs/queues.md). */
export const QUEUE_CRD_FILES = ['clusterqueues', 'localqueues'].map((p) =>
  path.join(REPO_ROOT, 'crds', `tfjob-operator.kubeflow.org_${p}.yaml`),
);

/** Every CRD the operator serves: TFJobs and the queues. */
export async function installCrds(kc: KubeConfig): Promise<void> {
  for (const file of [TFJOB_CRD_FILE, ...QUEUE_CRD_FILES]) await installCrd(kc, file);
}

export async function installCrd(kc: KubeConfig, file = TFJOB_CRD_FILE): Promise<void> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const raw = new KubeClients(kc, { rateLimit: { qps: 0, burst: 1 } });
  const crd = parse(readFileSync(file, 'utf8')) as V1CustomResourceDefinition;
  const name = crd.metadata?.name ?? '';
  const collection = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  try {
    await raw.request('POST', collection, crd);
  } catch (err) {
    if (httpStatus(err) !== 409) throw err;
    const current = await api.readCustomResourceDefinition({ name });
    await raw.request('PUT', `${collection}/${name}`, {
      ...crd,
      metadata: { ...crd.metadata, resourceVersion: current.metadata?.resourceVersion },
    });
  }
  const deadline = Date.now() + 30_000;
  for (;;) {
    const current = await api.readCustomResourceDefinition({ name });
    if (current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after 30 s`);
    await sleep(100);
  }
}
