import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiextensionsV1Api, type KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../src/local-cluster/index.ts';
import { KubeClients } from '../../src/runtime/kube-client.ts';

export const CRD_FILE = path.join(REPO_ROOT, 'crds', 'kubeflow.org_tfjobs.yaml');

/** Creates (or replaces) the TFJob CRD and waits until the API server serves it. */
export async function installCrd(kc: KubeConfig, file = CRD_FILE): Promise<void> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  // Raw JSON, as kubectl sends it: the typed client would drop every `x-kubernetes-*` key.
  const raw = new KubeClients(kc, { rateLimit: { qps: 0, burst: 1 } });
  const crd = parse(readFileSync(file, 'utf8')) as V1CustomResourceDefinition;
  const name = crd.metadata?.name ?? '';
  const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  try {
    await raw.request('POST', path, crd);
  } catch (err) {
    if ((err as { code?: number }).code !== 409) throw err;
    const current = await api.readCustomResourceDefinition({ name });
    await raw.request('PUT', `${path}/${name}`, { ...crd, metadata: { ...crd.metadata, resourceVersion: current.metadata?.resourceVersion } });
  }
  const deadline = Date.now() + 30_000;
  for (;;) {
    const current = await api.readCustomResourceDefinition({ name });
    if (current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) throw new Error(`CRD ${name} not Established after 30 s`);
    await sleep(100);
  }
}
