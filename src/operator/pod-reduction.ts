// The forms pods are cached in. A pod of a TFJob this operator manages keeps what the TFJob
// controller and the scheduler read of it (`reduceOwnedPod`); any other pod only what the scheduler
// counts on its node (`reduceForeignPod`). The rest of a pod is never read, and with 50,000 pods it
// dominated the operator's memory (docs/benchmarks.md, memory).
import type { V1Pod } from '@kubernetes/client-node';
import {
  ANNOTATION_PLACED_NODE,
  ANNOTATION_REMOVAL,
  LABEL_JOB_NAME,
  LABEL_OPERATOR_NAME,
  LABEL_REPLICA_INDEX,
  LABEL_REPLICA_TYPE,
} from '../api/v1/constants.ts';
import { stripForCache } from '../runtime/informer.ts';

type Status = NonNullable<V1Pod['status']>;
type ContainerStatus = NonNullable<Status['containerStatuses']>[number];
type Container = NonNullable<V1Pod['spec']>['containers'][number];

/** A container as the caches keep it: its name, requests/limits and restart policy (sidecars). */
function reduceContainer(c: Container): Container {
  return {
    name: c.name,
    ...(c.resources === undefined
      ? {}
      : {
          resources: {
            ...(c.resources.requests ? { requests: c.resources.requests } : {}),
            ...(c.resources.limits ? { limits: c.resources.limits } : {}),
          },
        }),
    ...(c.restartPolicy === undefined ? {} : { restartPolicy: c.restartPolicy }),
  };
}

function reduceContainerStatus(s: ContainerStatus): ContainerStatus {
  return {
    name: s.name,
    restartCount: s.restartCount,
    ready: s.ready,
    // Required by the type, never read: not worth a copy of every image name per pod.
    image: '',
    imageID: '',
    ...(s.started === undefined ? {} : { started: s.started }),
    ...(s.state === undefined ? {} : { state: s.state }),
    // The limits the kubelet applied: the vertical stage reports an in-place resize Applied from them.
    ...(s.resources === undefined ? {} : { resources: s.resources }),
  };
}

/**
 * An owned pod as the TFJob controller and the scheduling loop read it: its whole metadata (but
 * managedFields and kubectl's last-applied copy), its node, restart policy and container requests,
 * and the status fields tf-operator's logic uses — phase, reason, conditions, container states and
 * restart counts — and the containers' applied resources (the vertical stage's resize state). The
 * rest of the spec (env with TF_CONFIG, volumes, mounts, ports, tolerations) and
 * of the status (IPs, images, QoS) is never read, and was most of a cached pod: with 50,000 pods it
 * dominated the operator's memory (docs/benchmarks.md §2.3). Writes never start from a cached pod (pods are built from
 * the job's template), so nothing dropped here can be written back by mistake.
 */
export function reduceOwnedPod(pod: V1Pod): V1Pod {
  const stripped = stripForCache(pod);
  const spec = pod.spec;
  const status = pod.status;
  return {
    ...(pod.apiVersion === undefined ? {} : { apiVersion: pod.apiVersion }),
    ...(pod.kind === undefined ? {} : { kind: pod.kind }),
    metadata: stripped.metadata,
    spec: {
      ...(spec?.nodeName === undefined ? {} : { nodeName: spec.nodeName }),
      ...(spec?.restartPolicy === undefined ? {} : { restartPolicy: spec.restartPolicy }),
      ...(spec?.schedulerName === undefined ? {} : { schedulerName: spec.schedulerName }),
      ...(spec?.priority === undefined ? {} : { priority: spec.priority }),
      containers: (spec?.containers ?? []).map(reduceContainer),
      ...(spec?.initContainers ? { initContainers: spec.initContainers.map(reduceContainer) } : {}),
      ...(spec?.overhead ? { overhead: spec.overhead } : {}),
    },
    ...(status === undefined
      ? {}
      : {
          status: {
            ...(status.phase === undefined ? {} : { phase: status.phase }),
            ...(status.reason === undefined ? {} : { reason: status.reason }),
            ...(status.message === undefined ? {} : { message: status.message }),
            ...(status.startTime === undefined ? {} : { startTime: status.startTime }),
            ...(status.conditions ? { conditions: status.conditions } : {}),
            ...(status.containerStatuses ? { containerStatuses: status.containerStatuses.map(reduceContainerStatus) } : {}),
            ...(status.initContainerStatuses ? { initContainerStatuses: status.initContainerStatuses.map(reduceContainerStatus) } : {}),
          },
        }),
  };
}

const KEPT_LABELS = [LABEL_OPERATOR_NAME, LABEL_JOB_NAME, LABEL_REPLICA_TYPE, LABEL_REPLICA_INDEX];
const KEPT_ANNOTATIONS = [ANNOTATION_REMOVAL, ANNOTATION_PLACED_NODE];

/**
 * Another workload's pod (or one of ours outside the managed namespaces), as the scheduler reads it:
 * its node, requests, owner and phase. It only takes capacity, and 50,000 full pods would dominate memory.
 */
export function reduceForeignPod(pod: V1Pod): V1Pod {
  const m = pod.metadata ?? {};
  const labels: Record<string, string> = {};
  for (const k of KEPT_LABELS) {
    const v = m.labels?.[k];
    if (v !== undefined) labels[k] = v;
  }
  const annotations: Record<string, string> = {};
  for (const k of KEPT_ANNOTATIONS) {
    const v = m.annotations?.[k];
    if (v !== undefined) annotations[k] = v;
  }
  const controller = m.ownerReferences?.filter((r) => r.controller === true);
  return {
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      ...(m.creationTimestamp === undefined ? {} : { creationTimestamp: m.creationTimestamp }),
      ...(m.deletionTimestamp === undefined ? {} : { deletionTimestamp: m.deletionTimestamp }),
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(controller && controller.length > 0 ? { ownerReferences: controller } : {}),
    },
    spec: {
      ...(pod.spec?.nodeName === undefined ? {} : { nodeName: pod.spec.nodeName }),
      containers: (pod.spec?.containers ?? []).map(reduceContainer),
      ...(pod.spec?.initContainers ? { initContainers: pod.spec.initContainers.map(reduceContainer) } : {}),
      ...(pod.spec?.overhead ? { overhead: pod.spec.overhead } : {}),
    },
    status: { phase: pod.status?.phase },
  };
}
