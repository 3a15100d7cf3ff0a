// ReconcilePods + ReconcileServices: each replica type's pods and services against what the job
// wants, failed pods restarted or counted under the type's restart policy.

import { REMOVAL_SCALE_IN } from '../../api/v1/constants.ts';
import type { Pod, Service } from '../../api/v1/k8s-types.ts';
import { REPLICA_TYPE_WORKER } from '../../api/v1/replica-types.ts';
import type { JobCondition } from '../../api/v1/schema.ts';
import { conditionFor } from './condition-constructors.ts';
import { setCondition } from './conditions.ts';
import { removalCompleted } from './cleanup.ts';
import type { JobEvent } from './events.ts';
import { EVENT_EXITED_WITH_CODE, EVENT_FAILED, EVENT_RESTARTING, messages, normal, warning } from './events.ts';
import { replicaName } from './identity.ts';
import type { JobView } from './job-view.ts';
import { tfConfigFor } from './job-view.ts';
import type { Action, ReconcileInput, Working } from './plan-types.ts';
import { kubeletRejection, rejectedPodRepair } from './kubelet-rejection.ts';
import { buildPod } from './pod-builder.ts';
import {
  PHASE_FAILED,
  hasTerminatedTensorflow,
  isRemovedByOperator,
  isTerminating,
  ofReplicaType,
  podName,
  podPhase,
  replicaIndex,
  tensorflowExitCode,
} from './pod-state.ts';
import type { PodPlan } from './replica-plan.ts';
import { planElasticPods, planFixedPods, planServices, scalingIn } from './replica-plan.ts';
import type { ReplicaCounts } from './replica-status.ts';
import { addCounts, podContribution, toReplicaStatus, ZERO_COUNTS } from './replica-status.ts';
import { UNKNOWN_EXIT_CODE, decideFailedPod } from './restart.ts';
import { buildService } from './service-builder.ts';

interface TypePass {
  readonly actions: Action[];
  readonly events: JobEvent[];
  counts: ReplicaCounts;
  conditions: readonly JobCondition[];
  recreated: number;
}

/** One replica type's inputs, as the steps of its pass read them. */
interface TypeScope {
  readonly view: JobView;
  readonly type: string;
  readonly spec: JobView['replicaSpecs'][string];
  readonly elastic: boolean;
  readonly typePods: readonly Pod[];
  readonly plan: PodPlan;
  readonly input: ReconcileInput;
  /** Pods this pass deletes (each at most once). */
  readonly deleted: Set<string>;
}

/** ReconcilePods + ReconcileServices for one replica type. */
function reconcileReplicaType(
  view: JobView,
  type: string,
  pods: readonly Pod[],
  services: readonly Service[],
  conditions: readonly JobCondition[],
  input: ReconcileInput,
): TypePass {
  const spec = view.replicaSpecs[type]!;
  const replicas = view.replicas[type] ?? spec.replicas;
  const elastic = type === REPLICA_TYPE_WORKER && view.elastic !== undefined;
  const typePods = ofReplicaType(pods, type);
  const plan: PodPlan = elastic
    ? planElasticPods(typePods, replicas, new Set(view.givenUpWorkerSlots ?? []), view.elastic.max)
    : planFixedPods(typePods, replicas);
  const pass: TypePass = { actions: [], events: [], counts: ZERO_COUNTS, conditions, recreated: 0 };
  const scope: TypeScope = { view, type, spec, elastic, typePods, plan, input, deleted: new Set<string>() };
  const wantedIndices = createPods(pass, scope);
  removePods(pass, scope);
  judgePods(pass, scope);
  reconcileServices(pass, scope, services, wantedIndices);
  return pass;
}

/** The missing replicas' pods, each on its placement; returns the indices that get one now. */
function createPods(pass: TypePass, { view, type, spec, elastic, plan, input }: TypeScope): Set<number> {
  const workerNodes = elastic ? [...(input.scheduling?.workerNodes ?? [])] : [];
  const wantedIndices = new Set(plan.wanted);
  for (const index of plan.create) {
    const tfConfig = tfConfigFor(view, type, index);
    let placement = input.scheduling?.placements?.[replicaName(view.name, type, index)];
    if (placement === undefined && workerNodes.length > 0) {
      placement = { nodeName: workerNodes.shift()!, placedBy: input.scheduling?.placedBy ?? 'scheduler' };
    }
    if (placement === undefined && input.scheduling?.requirePlacement === true) {
      // Not created in this pass (no node yet): no service for it either.
      wantedIndices.delete(index);
      continue;
    }
    const built = buildPod(view, view.types, type, index, spec, {
      ...(tfConfig === undefined ? {} : { tfConfig }),
      ...(placement ? { placement } : {}),
      ...(input.scheduling?.unpinned === true ? { unpinned: true } : {}),
      ...(input.options?.legacyLabels ? { legacyLabels: true } : {}),
    });
    pass.actions.push({ kind: 'createPod', pod: built.pod });
    pass.events.push(...built.events);
  }
  return wantedIndices;
}

/** Pods beyond the wanted replicas (scale-in or scale-down), and removals left half done. */
function removePods(pass: TypePass, { elastic, typePods, plan, deleted }: TypeScope): void {
  for (const pod of plan.remove) {
    const name = podName(pod);
    if (isTerminating(pod)) continue;
    deleted.add(name);
    pass.actions.push(
      elastic
        ? { kind: 'deletePod', name, uid: pod.metadata?.uid, reason: 'scale-in', markRemoval: REMOVAL_SCALE_IN }
        : { kind: 'deletePod', name, uid: pod.metadata?.uid, reason: 'scale-down' },
    );
  }
  // A removal interrupted between its mark and its delete (the delete failed, or the operator
  // restarted in between) is completed here: a marked pod is no longer a replica, nothing else would
  // ever delete it, and a job that preempted it would wait for its capacity forever.
  for (const pod of typePods) {
    const name = podName(pod);
    if (!isRemovedByOperator(pod) || isTerminating(pod) || deleted.has(name)) continue;
    deleted.add(name);
    pass.actions.push({ kind: 'deletePod', name, uid: pod.metadata?.uid, reason: 'scale-in' });
    pass.events.push(removalCompleted(pod));
  }
}

/** Exit codes said, failed pods restarted or failing the job by the restart policy, and the counts. */
function judgePods(pass: TypePass, { view, type, spec, typePods, plan, input, deleted }: TypeScope): void {
  const duplicated = new Set(plan.duplicated);
  for (const pod of typePods) {
    const index = replicaIndex(pod);
    if (index === undefined || duplicated.has(index)) continue;
    const rejection = kubeletRejection(pod);
    if (rejection !== undefined) {
      // A placement that did not hold: no restart, no backoff budget, no failed count.
      const name = podName(pod);
      if (isTerminating(pod) || deleted.has(name)) continue;
      deleted.add(name);
      const repair = rejectedPodRepair(pod, rejection);
      pass.actions.push(repair.action);
      pass.events.push(repair.event);
      continue;
    }
    const exitCode = tensorflowExitCode(pod, UNKNOWN_EXIT_CODE);
    // Emitted on every reconcile while the pod exists, as tf-operator does.
    if (hasTerminatedTensorflow(pod)) {
      pass.events.push(normal(EVENT_EXITED_WITH_CODE, messages.exitedWithCode(view.namespace, podName(pod), exitCode)));
    }
    if (podPhase(pod) === PHASE_FAILED && !isRemovedByOperator(pod)) {
      const decision = decideFailedPod(spec.restartPolicy, exitCode);
      if (decision === 'restart') {
        const name = podName(pod);
        if (!isTerminating(pod) && !deleted.has(name)) {
          deleted.add(name);
          pass.actions.push({ kind: 'deletePod', name, uid: pod.metadata?.uid, reason: 'restart' });
          pass.recreated += 1;
        }
        const message = messages.restarting(view.name, type);
        pass.events.push(warning(EVENT_RESTARTING, message));
        pass.conditions = setCondition(pass.conditions, conditionFor.restarting(view.name, type, input.now));
      } else if (decision === 'fail') {
        const message = messages.failingExitCode(view.name, type);
        pass.events.push(warning(EVENT_FAILED, message));
        pass.conditions = setCondition(pass.conditions, conditionFor.failedExitCode(view.name, type, input.now));
      }
    }
    pass.counts = addCounts(pass.counts, podContribution(pod, spec.restartPolicy));
  }
}

/**
 * Services are created only for replicas created now (none for a pod still waiting for a node),
 * but a replica waiting for a node keeps the service it has (e.g. a pod deleted by hand or lost
 * with its node, being replaced), and so does a free worker slot below a live worker: only indices
 * the job no longer wants lose theirs.
 */
function reconcileServices(
  pass: TypePass,
  { view, type, spec, elastic, plan }: TypeScope,
  services: readonly Service[],
  wantedIndices: Set<number>,
): void {
  const typeServices = ofReplicaType(services, type);
  const servicePlan = {
    create: planServices(typeServices, wantedIndices).create,
    remove: planServices(typeServices, plan.keptServices).remove,
  };
  for (const index of servicePlan.create) {
    pass.actions.push({ kind: 'createService', service: buildService(view, type, index, spec) });
  }
  for (const service of servicePlan.remove) {
    const name = service.metadata?.name ?? '';
    if (elastic && scalingIn(plan, name)) continue; // its service goes once the removal is in the API
    pass.actions.push({ kind: 'deleteService', name, uid: service.metadata?.uid });
  }
}

/**
 * Every replica type's pass, in order (each sees the conditions the previous one left): their
 * actions and counts; replica statuses and recreations go into `working`, events into `events`.
 */
export function reconcileReplicas(
  view: JobView,
  pods: readonly Pod[],
  services: readonly Service[],
  working: Working,
  events: JobEvent[],
  input: ReconcileInput,
): { actions: Action[]; counts: Record<string, ReplicaCounts>; conditions: readonly JobCondition[] } {
  const actions: Action[] = [];
  const counts: Record<string, ReplicaCounts> = {};
  let conditions: readonly JobCondition[] = working.conditions;
  for (const type of view.types) {
    const pass = reconcileReplicaType(view, type, pods, services, conditions, input);
    conditions = pass.conditions;
    actions.push(...pass.actions);
    events.push(...pass.events);
    counts[type] = pass.counts;
    working.replicaStatuses[type] = toReplicaStatus(pass.counts);
    if (pass.recreated > 0) working.podRecreations[type] = (working.podRecreations[type] ?? 0) + pass.recreated;
  }
  return { actions, counts, conditions };
}
