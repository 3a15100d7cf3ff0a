// A control plane of a test file's own, for faults that would break the shared one (restarting
// kube-apiserver, compacting etcd under the operator's watches): the TFJob CRD installed, helpers
// for namespaces, node pools and etcd compaction against it.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { LABEL_NODE_POOL } from '../../src/api/v1/constants.ts';
import { installCrds } from '../../lab/local-cluster/crd.ts';
import { LocalCluster, fakeNodes } from '../../lab/local-cluster/index.ts';
import { eventually, uniqueName } from './kube.ts';
import type { Pool } from './pool.ts';

export async function startDedicatedCluster(
  opts: { extraApiserverArgs?: readonly string[]; noRateLimits?: boolean } = {},
): Promise<LocalCluster> {
  const cluster = await LocalCluster.start({
    ...(opts.extraApiserverArgs === undefined ? {} : { extraApiserverArgs: opts.extraApiserverArgs }),
    ...(opts.noRateLimits === undefined ? {} : { noRateLimits: opts.noRateLimits }),
    onProgress: (line) => {
      if (process.env.TEST_LOG_LEVEL !== undefined) process.stderr.write(`${line}\n`);
    },
  });
  try {
    await installCrds(cluster.kubeConfig());
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

export async function namespaceIn(kc: KubeConfig, prefix: string): Promise<string> {
  const core = kc.makeApiClient(CoreV1Api);
  const name = uniqueName(prefix);
  await core.createNamespace({ body: { metadata: { name } } });
  await eventually(
    async () => {
      await core.readNamespacedServiceAccount({ name: 'default', namespace: name });
    },
    { timeoutMs: 60_000, what: `default ServiceAccount in ${name}` },
  );
  return name;
}

/** A pool like test/support/pool.ts's, on the given cluster. */
export async function poolIn(
  cluster: LocalCluster,
  prefix: string,
  count: number,
  capacity: Record<string, string>,
  readyTimeoutMs = 120_000,
): Promise<Pool> {
  const name = uniqueName(prefix);
  const specs = fakeNodes(name, count, {
    capacity,
    labels: { [LABEL_NODE_POOL]: name },
    taints: [{ key: LABEL_NODE_POOL, value: name, effect: 'NoSchedule' }],
  });
  await cluster.createNodes(specs, { timeoutMs: readyTimeoutMs });
  const core = cluster.kubeConfig().makeApiClient(CoreV1Api);
  return {
    name,
    nodes: specs.map((s) => s.name),
    operatorFlags: ['--node-selector', `${LABEL_NODE_POOL}=${name}`],
    delete: async () => {
      await Promise.all(specs.map((s) => core.deleteNode({ name: s.name }).catch(() => undefined)));
    },
  };
}

/** Compacts etcd at its current revision (every watch resuming from an older one gets 410 Gone). */
export async function compactEtcdAt(endpoint: string): Promise<number> {
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
