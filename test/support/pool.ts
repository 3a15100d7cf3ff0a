// Dedicated node pools for tests of our own placement: tainted so no other test's pods land there,
// labelled so the operator under test (--node-selector) and the jobs (nodeSelector + toleration) use
// only them. Tests in parallel then never compete for capacity.
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { fakeNodes, type FakeNodeSpec } from '../../lab/local-cluster/index.ts';
import { LABEL_NODE_POOL as POOL_LABEL } from '../../src/api/v1/constants.ts';
import { adminKubeConfig, uniqueName } from './kube.ts';
import { createTestNodes, deleteTestNodes } from './nodes.ts';
import type { TestTFJob } from './tfjob.ts';

export interface Pool {
  readonly name: string;
  readonly nodes: string[];
  /** Flags for the operator under test. */
  readonly operatorFlags: string[];
  delete(): Promise<void>;
}

export async function createPool(
  prefix: string,
  count: number,
  capacity: Record<string, string>,
  extra: Partial<FakeNodeSpec> = {},
): Promise<Pool> {
  const name = uniqueName(prefix);
  const specs = fakeNodes(name, count, {
    capacity,
    labels: { [POOL_LABEL]: name, ...extra.labels },
    taints: [{ key: POOL_LABEL, value: name, effect: 'NoSchedule' }, ...(extra.taints ?? [])],
    ...(extra.unschedulable === undefined ? {} : { unschedulable: extra.unschedulable }),
  });
  const nodes = await createTestNodes(specs);
  return {
    name,
    nodes,
    operatorFlags: ['--node-selector', `${POOL_LABEL}=${name}`],
    delete: () => deleteTestNodes(nodes),
  };
}

/**
 * Adds `count` nodes of another shape to the pool (same label and taint), named
 * `<pool>-<suffix>-<i>`; `pool.delete()` removes them too.
 */
export async function addPoolNodes(pool: Pool, suffix: string, count: number, capacity: Record<string, string>): Promise<string[]> {
  const specs = fakeNodes(`${pool.name}-${suffix}`, count, {
    capacity,
    labels: { [POOL_LABEL]: pool.name },
    taints: [{ key: POOL_LABEL, value: pool.name, effect: 'NoSchedule' }],
  });
  const names = await createTestNodes(specs);
  pool.nodes.push(...names);
  return names;
}

/** Puts every replica of the job on the pool (node selector + toleration of the pool's taint). */
export function onPool(job: TestTFJob, pool: Pool): TestTFJob {
  const specs = job.spec.tfReplicaSpecs as Record<string, { template: { spec: Record<string, unknown> } }>;
  for (const r of Object.values(specs)) {
    r.template.spec.nodeSelector = { ...(r.template.spec.nodeSelector as Record<string, string> | undefined), [POOL_LABEL]: pool.name };
    r.template.spec.tolerations = [
      ...((r.template.spec.tolerations as unknown[] | undefined) ?? []),
      { key: POOL_LABEL, operator: 'Equal', value: pool.name, effect: 'NoSchedule' },
    ];
  }
  return job;
}

export async function patchNode(name: string, patch: Record<string, unknown>): Promise<void> {
  await adminKubeConfig()
    .makeApiClient(CoreV1Api)
    .patchNode({ name, body: patch }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
}

export { deleteTestNodes };
