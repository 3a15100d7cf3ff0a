// What a kubelet that supports in-place resize does and kwok's default stages do not: report each
// running container's resources in its status. The API server (1.35+) refuses a resize of a pod whose
// running containers report none ("Pod running on node without support for resize").
import { eventually } from './kube.ts';
import { coreApi } from './tfjob.ts';

export async function reportResizeSupport(namespace: string, name: string): Promise<void> {
  await eventually(
    async () => {
      const pod = await coreApi().readNamespacedPod({ namespace, name });
      const statuses = pod.status?.containerStatuses ?? [];
      if (statuses.length === 0 || statuses.some((c) => c.state?.running === undefined)) return false;
      for (const c of statuses) c.resources = pod.spec?.containers.find((x) => x.name === c.name)?.resources ?? {};
      await coreApi().replaceNamespacedPodStatus({ namespace, name, body: pod });
      return true;
    },
    { timeoutMs: 30_000, what: `${name} running, with its container resources in its status` },
  );
}
