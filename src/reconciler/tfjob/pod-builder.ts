// Pod construction (tf-operator's `createNewPod` + `GetPodFromTemplate`): a deep copy of the replica
// template, operator labels over template labels, template annotations and finalizers, the job as
// controller owner, TF_CONFIG appended to the `tensorflow` container, the replica restart policy.

import { ANNOTATION_PLACED_BY, ANNOTATION_PLACED_NODE, DEFAULT_CONTAINER_NAME, ENV_TF_CONFIG } from '../../api/v1/constants.ts';
import type { DefaultedReplicaSpec } from '../../api/v1/defaults.ts';
import type { Container, Pod, PodTemplateSpec } from '../../api/v1/k8s-types.ts';
import { RESTART_POLICY_EXIT_CODE, RESTART_POLICY_NEVER } from '../../api/v1/policies.ts';
import { pinnedToNode, schedulerOnlyConstraint } from './binding.ts';
import type { JobEvent } from './events.ts';
import { EVENT_SET_POD_TEMPLATE_RESTART_POLICY, messages, warning } from './events.ts';
import type { PodLabelOptions, OwnerIdentity } from './identity.ts';
import { podLabels, replicaName, ownerReference } from './identity.ts';

export interface PodIdentity extends OwnerIdentity {
  readonly namespace: string;
}

/**
 * Where our scheduler put the replica: `spec.nodeName`, which bypasses kube-scheduler, or for a
 * template with constraints only kube-scheduler evaluates, a required node affinity on that node
 * (binding.ts).
 */
export interface Placement {
  readonly nodeName: string;
  /** Recorded in the placed-by annotation (e.g. the scheduling policy), so a restarted operator can audit it. */
  readonly placedBy: string;
}

export interface PodBuildOptions extends PodLabelOptions {
  /** TF_CONFIG value, or undefined for a non-distributed job (no variable at all). */
  readonly tfConfig?: string;
  readonly placement?: Placement;
  /** Without a placement: drop the template's `nodeName` (the pod is left to its named scheduler). */
  readonly unpinned?: boolean;
}

export interface BuiltPod {
  readonly pod: Pod;
  /** Warnings to record on the job (e.g. SetPodTemplateRestartPolicy). */
  readonly events: readonly JobEvent[];
}

/** The pod restart policy for a replica restart policy: ExitCode is implemented by the operator, so Never. */
export function podRestartPolicy(replicaRestartPolicy: string): string {
  return replicaRestartPolicy === RESTART_POLICY_EXIT_CODE ? RESTART_POLICY_NEVER : replicaRestartPolicy;
}

/** Appends TF_CONFIG after the user's variables of the first `tensorflow` container (a user TF_CONFIG stays). */
function withTfConfig(containers: Container[], tfConfig: string): Container[] {
  const index = containers.findIndex((c) => c.name === DEFAULT_CONTAINER_NAME);
  if (index === -1) return containers;
  return containers.map((c, i) => (i === index ? { ...c, env: [...(c.env ?? []), { name: ENV_TF_CONFIG, value: tfConfig }] } : c));
}

export function buildPod(
  job: PodIdentity,
  replicaTypes: Iterable<string>,
  replicaType: string,
  index: number,
  spec: DefaultedReplicaSpec,
  options: PodBuildOptions = {},
): BuiltPod {
  const template: PodTemplateSpec = structuredClone(spec.template);
  const events: JobEvent[] = [];
  const podSpec = template.spec ?? { containers: [] };
  if (podSpec.restartPolicy) events.push(warning(EVENT_SET_POD_TEMPLATE_RESTART_POLICY, messages.podTemplateRestartPolicy()));

  const labels = { ...(template.metadata?.labels ?? {}), ...podLabels(job.name, replicaTypes, replicaType, index, options) };
  const annotations = { ...(template.metadata?.annotations ?? {}) };
  const finalizers = template.metadata?.finalizers;

  let placed = podSpec;
  const placement = options.placement;
  if (placement === undefined && options.unpinned === true && podSpec.nodeName !== undefined) {
    placed = { ...podSpec };
    delete placed.nodeName;
  }
  if (placement !== undefined) {
    annotations[ANNOTATION_PLACED_BY] = placement.placedBy;
    if (schedulerOnlyConstraint(podSpec) === undefined) placed = { ...podSpec, nodeName: placement.nodeName };
    else {
      placed = pinnedToNode(podSpec, placement.nodeName);
      annotations[ANNOTATION_PLACED_NODE] = placement.nodeName;
    }
  }
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: replicaName(job.name, replicaType, index),
      namespace: job.namespace,
      labels,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(finalizers && finalizers.length > 0 ? { finalizers: [...finalizers] } : {}),
      ownerReferences: [ownerReference(job)],
    },
    spec: {
      ...placed,
      containers: options.tfConfig === undefined ? podSpec.containers : withTfConfig(podSpec.containers, options.tfConfig),
      restartPolicy: podRestartPolicy(spec.restartPolicy),
    },
  };
  return { pod, events };
}
