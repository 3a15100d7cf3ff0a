// How the scheduler removes a pod it decided about (a preempted or scaled-in worker, a replica on a
// lost node): the removal annotation first, so that whoever sees the pod end — this operator after a
// restart included — knows it was no failure, then a delete. Both carry the pod's UID, so a stale
// decision never marks or deletes a replacement of the same name: the API answers 409 for those.
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_REMOVAL } from '../../api/v1/constants.ts';
import { httpStatus } from '../../runtime/http-status.ts';
import type { KubeClients } from '../../runtime/kube-client.ts';
import type { Logger } from '../../runtime/logger.ts';

/**
 * `removed`: our mark went on and the pod is deleted, by our delete or meanwhile by the TFJob controller,
 * which completes any marked removal it sees (the pod watch can deliver the mark before our delete goes
 * out). `gone`: the pod was no longer there when marked (deleted, or replaced by a pod of the same
 * name); nothing was done.
 */
export type Removal = 'removed' | 'gone';

export interface PodRemover {
  /** Marks the pod with `removal` and deletes it; a pod already gone is no error. */
  remove(pod: V1Pod, removal: string, options?: { readonly force?: boolean }): Promise<Removal>;
}

export class KubePodRemover implements PodRemover {
  readonly #core: Pick<CoreV1Api, 'patchNamespacedPod' | 'deleteNamespacedPod'>;
  readonly #log: Logger;

  constructor(clients: Pick<KubeClients, 'api'>, log: Logger) {
    this.#core = clients.api(CoreV1Api);
    this.#log = log;
  }

  async remove(pod: V1Pod, removal: string, options: { readonly force?: boolean } = {}): Promise<Removal> {
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? 'default';
    const uid = pod.metadata?.uid;
    let marked = false;
    try {
      await this.#core.patchNamespacedPod(
        // The UID in the patch is a precondition: a different pod of this name makes the patch fail.
        { name, namespace, body: { metadata: { ...(uid === undefined ? {} : { uid }), annotations: { [ANNOTATION_REMOVAL]: removal } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      marked = true;
      await this.#core.deleteNamespacedPod({
        name,
        namespace,
        // A deleted node's pods are deleted at once: no kubelet will ever confirm their end.
        body: { preconditions: { uid }, ...(options.force === true ? { gracePeriodSeconds: 0 } : {}) },
      });
      this.#log.info({ pod: `${namespace}/${name}`, removal }, 'Removed worker');
      return 'removed';
    } catch (err) {
      const code = httpStatus(err);
      // 404: deleted meanwhile; 409: the UID precondition failed, the name now belongs to another pod.
      if ((code === 404 || code === 409) && marked) {
        this.#log.info({ pod: `${namespace}/${name}`, removal }, 'Removed worker (its marked removal was completed meanwhile)');
        return 'removed';
      }
      if (code === 404 || code === 409) {
        this.#log.debug({ pod: `${namespace}/${name}`, removal, code }, 'Worker to remove is already gone');
        return 'gone';
      }
      throw err;
    }
  }
}
