// Which pods the operator may bind itself (`spec.nodeName`) and which it must leave to kube-scheduler.
//
// Setting `nodeName` skips every kube-scheduler filter. The scheduling core evaluates the ones about
// the node alone (resources incl. extended ones and the pod count, node selector and required node
// affinity, taints, cordons, readiness), so a pod whose template asks for nothing else is bound
// directly: no latency, nothing else involved. A template with a constraint that depends on other
// objects — PersistentVolumeClaims (existence, binding, WaitForFirstConsumer provisioning, a PV's
// node affinity), inter-pod (anti-)affinity, topology spread, host ports, dynamic resource claims — is
// not bound by us: the pod keeps the operator's choice as a required node affinity on that one node
// and kube-scheduler binds it only if all its filters pass. Such a pod never runs where
// kube-scheduler would refuse it; when it refuses, the pod stays Pending and its Unschedulable
// condition (echoed on the TFJob as a warning) names the constraint. A refusal tied to the chosen
// node that lasts (--replace-refused-after) makes the scheduling pass place the pod again elsewhere
// (operator/scheduling/pass/apply.ts).

import type { Pod } from '../../api/v1/k8s-types.ts';

type PodSpec = NonNullable<Pod['spec']>;
type NodeSelectorTerm = NonNullable<
  NonNullable<NonNullable<PodSpec['affinity']>['nodeAffinity']>['requiredDuringSchedulingIgnoredDuringExecution']
>['nodeSelectorTerms'][number];

/** The first constraint of the pod spec that only kube-scheduler evaluates, in words; undefined if none. */
export function schedulerOnlyConstraint(spec: PodSpec | undefined): string | undefined {
  if (spec === undefined) return undefined;
  const claim = spec.volumes?.find((v) => v.persistentVolumeClaim !== undefined || v.ephemeral !== undefined);
  if (claim !== undefined) return `volume ${claim.name} (a PersistentVolumeClaim)`;
  if (spec.affinity?.podAffinity !== undefined) return 'pod affinity';
  if (spec.affinity?.podAntiAffinity !== undefined) return 'pod anti-affinity';
  if ((spec.topologySpreadConstraints ?? []).length > 0) return 'topology spread constraints';
  const all = [...(spec.initContainers ?? []), ...spec.containers];
  const port = all.flatMap((c) => c.ports ?? []).find((p) => p.hostPort !== undefined && p.hostPort !== 0);
  if (port !== undefined) return `host port ${port.hostPort}`;
  if ((spec.resourceClaims ?? []).length > 0) return 'resource claims';
  return undefined;
}

/**
 * The spec with a required node affinity on `node` alone (by `metadata.name`, as the DaemonSet
 * controller pins its pods), ANDed into each of the template's own required terms so that they still
 * apply. Everything else is kept.
 */
export function pinnedToNode(spec: PodSpec, node: string): PodSpec {
  const pin = { key: 'metadata.name', operator: 'In', values: [node] };
  const affinity = spec.affinity ?? {};
  const required = affinity.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const terms: NodeSelectorTerm[] =
    required === undefined || required.nodeSelectorTerms.length === 0
      ? [{ matchFields: [pin] }]
      : required.nodeSelectorTerms.map((t) => ({ ...t, matchFields: [...(t.matchFields ?? []), pin] }));
  return {
    ...spec,
    affinity: {
      ...affinity,
      nodeAffinity: { ...affinity.nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } },
    },
  };
}

/** The name the API server gives a pod that names no scheduler: kube-scheduler's. */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

/** The scheduler a replica type's template names (`default-scheduler` when it names none). */
export interface ReplicaScheduler {
  readonly replicaType: string;
  readonly schedulerName: string;
}

/**
 * Each replica type's scheduler when at least one template names a scheduler other than
 * kube-scheduler, in replica-type order; undefined when every template leaves it to kube-scheduler.
 * Such a job is not ours to place: a user who chose a scheduler gets it, for every replica (each
 * pod keeps its own template's name, as under tf-operator).
 */
export function schedulersNamedByTemplates(
  specs: Readonly<Record<string, { readonly template?: { readonly spec?: { readonly schedulerName?: string } } }>>,
): ReplicaScheduler[] | undefined {
  const named = Object.keys(specs)
    .sort()
    .map((replicaType) => {
      const name = specs[replicaType]?.template?.spec?.schedulerName;
      return { replicaType, schedulerName: name === undefined || name === '' ? DEFAULT_SCHEDULER_NAME : name };
    });
  return named.some((r) => r.schedulerName !== DEFAULT_SCHEDULER_NAME) ? named : undefined;
}

/** Which replica goes to which scheduler, naming the field: the text of PlacedByScheduler. */
export function describeSchedulers(named: readonly ReplicaScheduler[]): string {
  const fields = named.map((r) => `${r.replicaType} "${r.schedulerName}"`).join(', ');
  return (
    `pods left to the schedulers their templates name (spec.tfReplicaSpecs.<type>.template.spec.schedulerName: ${fields}); ` +
    'this operator does not queue, place, scale or preempt this job'
  );
}
