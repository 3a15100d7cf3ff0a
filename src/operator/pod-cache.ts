// The operator's one pod cache when it places pods itself (a placing policy): one informer over every
// pod in the cluster, read two ways. The TFJob controller (and the progress loop) read the pods of the
// TFJobs it manages, in every phase, indexed by job (`owned`); the scheduler reads every pod still
// using capacity, whoever owns it, indexed by node (`active`). Each pod is cached once, in the form
// its readers need (pod-reduction.ts); other workloads' finished pods are not kept.
//
// Without a placing policy (`tf-operator`) the operator reads only its own pods, per managed namespace
// (informers.ts): no cluster-wide pod read is needed then.
import { CoreV1Api, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { CONTROLLER_NAME, LABEL_OPERATOR_NAME } from '../api/v1/constants.ts';
import { Informer, type InformerEvent, type InformerHandler } from '../runtime/informer.ts';
import type { KubeClients } from '../runtime/kube-client.ts';
import type { Logger } from '../runtime/logger.ts';
import type { RuntimeMetrics } from '../runtime/metrics.ts';
import { BY_JOB, controllingJobKey, type OwnedPods } from './informers.ts';
import { reduceForeignPod, reduceOwnedPod } from './pod-reduction.ts';
import { podNode } from './scheduling/pod-facts.ts';

export const BY_NODE = 'node';

/** Every pod still using capacity (not Succeeded or Failed), as the scheduler reads them. */
export interface ActivePods {
  get(key: string): V1Pod | undefined;
  onNode(node: string): V1Pod[];
  list(): V1Pod[];
  readonly hasSynced: boolean;
  /** A pod that terminates is `delete`d here, as if it left a field selector on its phase. */
  on(handler: InformerHandler<V1Pod>): void;
}

/** Bound or not, a pod uses capacity until it is Succeeded or Failed. */
export function usesCapacity(pod: V1Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
}

/** The one pod cache, as its two kinds of reader see it. */
export interface AllPodsCache {
  readonly owned: OwnedPods;
  readonly active: ActivePods;
}

/**
 * One informer over every pod. `namespaces` are the managed ones (empty: all): an owned pod outside
 * them belongs to another operator's TFJob and is only capacity here.
 */
export function createAllPodsCache(deps: {
  readonly kc: KubeConfig;
  readonly clients: KubeClients;
  readonly namespaces: readonly string[];
  readonly logger: Logger;
  readonly metrics?: RuntimeMetrics;
}): AllPodsCache {
  const core = deps.clients.api(CoreV1Api);
  const managed = managedBy(deps.namespaces);
  const informer = new Informer<V1Pod>(
    deps.kc,
    {
      list: ({ limit, continueToken }) => core.listPodForAllNamespaces({ limit, _continue: continueToken }),
      watchPath: '/api/v1/pods',
    },
    {
      name: 'pods',
      logger: deps.logger,
      transform: (pod) => (managed(pod) ? reduceOwnedPod(pod) : reduceForeignPod(pod)),
      keep: (pod) => managed(pod) || usesCapacity(pod),
      indexers: {
        [BY_JOB]: (pod) => {
          const key = managed(pod) ? controllingJobKey(pod) : undefined;
          return key === undefined ? [] : [key];
        },
        [BY_NODE]: (pod) => {
          const node = usesCapacity(pod) ? podNode(pod) : undefined;
          return node === undefined ? [] : [node];
        },
      },
      onWatchEvent: (event) => deps.metrics?.informerEvents.inc({ informer: 'pods', event }),
    },
  );
  return { owned: ownedView(informer, managed), active: activeView(informer) };
}

function ownedView(informer: Informer<V1Pod>, managed: (pod: V1Pod) => boolean): OwnedPods {
  const { store } = informer;
  return {
    get: (key) => {
      const pod = store.get(key);
      return pod !== undefined && managed(pod) ? pod : undefined;
    },
    byIndex: (index, value) => store.byIndex(index, value),
    get size() {
      return store.list().filter(managed).length;
    },
    on: (handler) => {
      informer.on((type, pod, old) => {
        if (managed(pod) || (old !== undefined && managed(old))) handler(type, pod, old);
      });
    },
    start: () => {
      informer.start();
    },
    stop: () => {
      informer.stop();
    },
    get hasSynced() {
      return informer.hasSynced;
    },
    waitForSync: () => informer.waitForSync(),
    resync: () => informer.resync(),
  };
}

function activeView(informer: Informer<V1Pod>): ActivePods {
  const { store } = informer;
  return {
    get: (key) => {
      const pod = store.get(key);
      return pod !== undefined && usesCapacity(pod) ? pod : undefined;
    },
    onNode: (node) => store.byIndex(BY_NODE, node),
    list: () => store.list().filter(usesCapacity),
    get hasSynced() {
      return informer.hasSynced;
    },
    on: (handler) => {
      informer.on((type, pod, old) => {
        const seen = activeEvent(type, pod, old);
        if (seen !== undefined) handler(seen, pod, old);
      });
    },
  };
}

/**
 * An event of the one pod cache as the active view tells it: a pod that terminates is deleted there
 * (as from an informer selecting on its phase), and a terminated pod's later events are none.
 */
export function activeEvent(type: InformerEvent, pod: V1Pod, old: V1Pod | undefined): InformerEvent | undefined {
  const was = type !== 'add' && usesCapacity(old ?? pod);
  const is = type !== 'delete' && usesCapacity(pod);
  if (was && is) return 'update';
  if (is) return 'add';
  return was ? 'delete' : undefined;
}

/** Whether a pod is one of a TFJob this operator manages: its label, in a managed namespace (none: all). */
export function managedBy(namespaces: readonly string[]): (pod: V1Pod) => boolean {
  return (pod) =>
    pod.metadata?.labels?.[LABEL_OPERATOR_NAME] === CONTROLLER_NAME &&
    (namespaces.length === 0 || namespaces.includes(pod.metadata.namespace ?? ''));
}
