// Helpers for tests that talk to the real local control plane.
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, KubeConfig, setHeaderOptions, PatchStrategy, type V1Pod } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { renderKubeconfig } from '../../lab/local-cluster/kubeconfig.ts';
import { POD_EXIT_CODE_ANNOTATION, POD_EXIT_REASON_ANNOTATION, type ClusterState } from '../../lab/local-cluster/index.ts';

export function clusterState(): ClusterState {
  return inject('cluster');
}

export function adminKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(clusterState().kubeconfig);
  return kc;
}

export function kubeConfigForToken(token: string): KubeConfig {
  const s = clusterState();
  const kc = new KubeConfig();
  kc.loadFromString(renderKubeconfig({ server: s.server, caFile: s.caFile, user: { name: 'test-token', token } }));
  return kc;
}

let counter = 0;
/** A unique, DNS-safe name for this test run. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid.toString(36)}-${Date.now().toString(36).slice(-4)}${counter}`.toLowerCase();
}

/** Creates a fresh namespace and waits until its default ServiceAccount exists (pods need it). */
export async function createNamespace(prefix: string): Promise<string> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const name = uniqueName(prefix);
  await core.createNamespace({ body: { metadata: { name } } });
  await eventually(
    async () => {
      await core.readNamespacedServiceAccount({ name: 'default', namespace: name });
    },
    { timeoutMs: 30_000, what: `default ServiceAccount in ${name}` },
  );
  return name;
}

export async function deleteNamespace(name: string): Promise<void> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  await core.deleteNamespace({ name }).catch(() => undefined);
}

/** Retries `check` until it stops throwing (or returns true), or fails with the last error. */
export async function eventually<T>(
  check: () => Promise<T | false>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  let lastError: unknown;
  for (;;) {
    try {
      const result = await check();
      if (result !== false) return result;
      lastError = new Error('condition returned false');
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const msg = lastError instanceof Error ? lastError.message : String(lastError);
      throw new Error(`timed out waiting for ${opts.what ?? 'condition'}: ${msg}`, { cause: lastError });
    }
    await sleep(opts.intervalMs ?? 200);
  }
}

/** HTTP status of a client-node ApiException (undefined for other errors). */
export { httpStatus as apiStatus } from '../../src/runtime/http-status.ts';

/** Asks kwok to end the pod's containers with `exitCode` (see lab/local-cluster/kwok-stages.yaml). */
export async function exitPod(namespace: string, name: string, exitCode: number, reason?: string): Promise<V1Pod> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  const annotations: Record<string, string> = { [POD_EXIT_CODE_ANNOTATION]: String(exitCode) };
  if (reason !== undefined) annotations[POD_EXIT_REASON_ANNOTATION] = reason;
  return core.patchNamespacedPod(
    { name, namespace, body: { metadata: { annotations } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/**
 * A pod of some other workload, bound to `node` by `nodeName` (tolerating every taint): it uses the
 * node's capacity, and the operator only counts it.
 */
export async function createForeignPod(
  namespace: string,
  name: string,
  node: string,
  opts: { readonly cpu: string; readonly labels?: Record<string, string> },
): Promise<V1Pod> {
  return adminKubeConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedPod({
      namespace,
      body: {
        metadata: { name, ...(opts.labels === undefined ? {} : { labels: opts.labels }) },
        spec: {
          nodeName: node,
          tolerations: [{ operator: 'Exists' }],
          containers: [{ name: 'c', image: 'example.invalid/other', resources: { requests: { cpu: opts.cpu, memory: '1Gi' } } }],
        },
      },
    });
}

/**
 * Compacts etcd up to its current revision, so every watch from an older resourceVersion ends with
 * 410 Gone (etcd's gRPC gateway, no etcdctl needed).
 */
export async function compactEtcd(): Promise<number> {
  const endpoint = clusterState().etcdEndpoint;
  const range = await fetch(`${endpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: Buffer.from('/').toString('base64') }),
  });
  const { header } = (await range.json()) as { header: { revision: string } };
  const revision = Number(header.revision);
  const res = await fetch(`${endpoint}/v3/kv/compaction`, { method: 'POST', body: JSON.stringify({ revision, physical: true }) });
  if (!res.ok) throw new Error(`etcd compaction failed: ${res.status} ${await res.text()}`);
  return revision;
}
