// How the scheduler removes a pod it decided about (a preempted or scaled-in worker, a replica on a
// lost node): the removal annotation first, so that whoever sees the pod end — this operator after a
// restart included — knows it was no failure, then a delete guarded by the pod's UID, so a stale
// decision never deletes a replacement of the same name.
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_REMOVAL } from '../../api/v1/constants.ts';
import type { KubeClients } from '../../runtime/kube-client.ts';
import type { Logger } from '../../runtime/logger.ts';

export interface PodRemover {
  /** Marks the pod with `removal` and deletes it; a pod already gone is no error. */
  remove(pod: V1Pod, removal: string, options?: { readonly force?: boolean }): Promise<void>;
}

export class KubePodRemover implements PodRemover {
  readonly #core: CoreV1Api;
  readonly #log: Logger;

  constructor(clients: KubeClients, log: Logger) {
    this.#core = clients.api(CoreV1Api);
    this.#log = log;
  }

  async remove(pod: V1Pod, removal: string, options: { readonly force?: boolean } = {}): Promise<void> {
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? 'default';
    try {
      await this.#core.patchNamespacedPod(
        { name, namespace, body: { metadata: { annotations: { [ANNOTATION_REMOVAL]: removal } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await this.#core.deleteNamespacedPod({
        name,
        namespace,
        // A deleted node's pods are deleted at once: no kubelet will ever confirm their end.
        body: { preconditions: { uid: pod.metadata?.uid }, ...(options.force === true ? { gracePeriodSeconds: 0 } : {}) },
      });
      this.#log.info({ pod: `${namespace}/${name}`, removal }, 'Removed worker');
    } catch (err) {
      if ((err as { code?: number }).code === 404) return;
      throw err;
    }
  }
}
