import { CoreV1Api } from '@kubernetes/client-node';
import { fakeNode, type FakeNodeSpec } from '../../lab/local-cluster/index.ts';
import { adminKubeConfig, eventually } from './kube.ts';

/** Creates fake nodes in the shared cluster and waits until kwok reports them Ready. */
export async function createTestNodes(specs: readonly FakeNodeSpec[]): Promise<string[]> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  for (const spec of specs) await core.createNode({ body: fakeNode(spec) });
  const names = specs.map((s) => s.name);
  await eventually(
    async () => {
      for (const name of names) {
        const node = await core.readNode({ name });
        if (!node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return false;
      }
      return true;
    },
    { what: `nodes ${names.join(', ')} Ready` },
  );
  return names;
}

export async function deleteTestNodes(names: readonly string[]): Promise<void> {
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  await Promise.all(names.map((name) => core.deleteNode({ name }).catch(() => undefined)));
}
