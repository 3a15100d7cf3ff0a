// The reconciler's input and output: what the caller hands one reconcile of a TFJob and what it gets
// back (status, actions, events, when to come back).

import type { Pod, Service } from '../../api/v1/k8s-types.ts';
import type { TFJobEntry } from '../../api/v1/parse.ts';
import type { JobCondition, JobStatus, ProgressStatus, QoeStatus, ReplicaStatus, SchedulingStatus } from '../../api/v1/schema.ts';
import type { JobEvent } from './events.ts';
import type { ElasticOptions } from './job-view.ts';
import type { Placement } from './pod-builder.ts';

/** Why a pod is deleted; `scale-in` pods must get the removal annotation before the delete. */
/** `rejected`: the kubelet refused the pod (kubelet-rejection.ts); its slot is placed again. */
export type DeleteReason = 'restart' | 'scale-down' | 'scale-in' | 'cleanup' | 'suspend' | 'rejected';

export type Action =
  | { readonly kind: 'createPod'; readonly pod: Pod }
  /**
   * `uid` is the UID of the pod the decision was about: the delete carries it as a precondition, so
   * a pod of the same name created since (a replacement) is never deleted by a stale decision.
   */
  | {
      readonly kind: 'deletePod';
      readonly name: string;
      readonly uid: string | undefined;
      readonly reason: DeleteReason;
      readonly markRemoval?: string;
      /** For `rejected`: the kubelet's reason (OutOfcpu, ...), counted once the delete succeeds. */
      readonly rejection?: string;
      /**
       * The pod's resourceVersion as seen, when the decision rests on its phase (cleanPodPolicy
       * Running): a pod that finished meanwhile fails the precondition and is kept.
       */
      readonly resourceVersion?: string;
    }
  | { readonly kind: 'createService'; readonly service: Service }
  /** `uid`: the service the decision was about (a precondition, as for pods). */
  | { readonly kind: 'deleteService'; readonly name: string; readonly uid: string | undefined }
  /** TTL expired: delete the TFJob (pods and services go with it through garbage collection). */
  | { readonly kind: 'deleteJob' };

/** Input from our scheduling core; absent = behave like tf-operator (create everything now). */
export interface SchedulingInput {
  /** False while the job waits in the queue: no pods are created and startTime is not set. */
  readonly admitted: boolean;
  /** Worker count for an elastic job in this pass (clamped to its bounds); ignored for fixed-size jobs. */
  readonly workers?: number;
  /** Node per pod name, for pods created in this pass. */
  readonly placements?: Readonly<Record<string, Placement>>;
  /**
   * Nodes for elastic Worker pods created in this pass that have no entry in `placements`, used in
   * index order. The scheduler decides *where* new workers go; which free index each one takes is
   * the reconciler's business (lowest free), so the two never have to agree on indices.
   */
  readonly workerNodes?: readonly string[];
  /** `placedBy` recorded on pods placed from `workerNodes`. */
  readonly placedBy?: string;
  /**
   * The operator places every pod itself: a pod with no placement is not created in this pass (it
   * waits for the scheduler) instead of falling to the default scheduler.
   */
  readonly requirePlacement?: boolean;
  /**
   * The pods are left to the schedulers their templates name: a template's `nodeName` is dropped so
   * that scheduler decides (with our scheduler a user picks a scheduler, never a node).
   */
  readonly unpinned?: boolean;
  /** Written to `status.scheduling` as is. */
  readonly status?: SchedulingStatus;
}

export interface ReconcileOptions extends ElasticOptions {
  /** The operator's CUSTOM_CLUSTER_DOMAIN. */
  readonly clusterDomain?: string;
  /** Also emit pre-v1.6 labels (group-name, job-name, ...) on pods. */
  readonly legacyLabels?: boolean;
  /**
   * False on clusters running the upstream CRD, which prunes `status.scheduling` and
   * `status.podRecreations`: they are then left out of the status, otherwise every write would differ
   * from what is stored and trigger another reconcile. Default true.
   */
  readonly statusExtensions?: boolean;
  /**
   * --not-training-after: a Running job whose pods all run but which printed no progress line for
   * this long gets `status.progress.notTraining` (not-training.ts). 0 or absent: off.
   */
  readonly notTrainingAfterMs?: number;
}

export interface ReconcileInput {
  /** The TFJob as the cache holds it: parsed, validated and defaulted once (toTFJobEntry). */
  readonly job: TFJobEntry;
  /** Pods carrying the job's labels; only those the job controls (by UID) are used. */
  readonly pods: readonly Pod[];
  readonly services: readonly Service[];
  readonly now: Date;
  readonly scheduling?: SchedulingInput;
  /**
   * The job's training progress read from its log (`status.progress`), when the operator follows
   * progress. Undefined while unfinished: no (or a stale) signal, and the field is removed; a finished
   * job keeps the last one written.
   */
  readonly progress?: ProgressStatus;
  /** When the operator last read a progress line of the job (ms since the epoch), however old. */
  readonly lastProgressAt?: number;
  /** The job against its performance target (`status.qoe`); undefined while unfinished removes the field. */
  readonly qoe?: QoeStatus;
  /**
   * The job's metric reached its `spec.qoe.targetMetric` and it asked to stop then
   * (`onTargetMetric: Stop`): what the metric reads, in words. The job ends Succeeded.
   */
  readonly stopAtTarget?: string;
  readonly options?: ReconcileOptions;
}

export type Outcome =
  /** Nothing to do: being deleted, managed by another controller, or not even a named object. */
  | 'skipped'
  | 'finished'
  | 'suspended'
  /** Waiting in our queue. */
  | 'waiting'
  /** Failed in this pass by backoffLimit or activeDeadlineSeconds. */
  | 'limit-exceeded'
  | 'reconciled';

/**
 * What one reconcile of a TFJob decided, for the caller to carry out: the status to write, the
 * actions and events. (The generic controller's `ReconcileResult` is what the caller then returns:
 * whether and when to come back.)
 */
export interface ReconcilePlan {
  readonly outcome: Outcome;
  /** The complete status to write (status subresource). Do not write it after a deleteJob action. */
  readonly status: JobStatus;
  /** False when `status` equals what is stored: skip the write (each write triggers a reconcile). */
  readonly statusChanged: boolean;
  /** In order: pod/service deletions and creations, then a possible job deletion. */
  readonly actions: readonly Action[];
  readonly events: readonly JobEvent[];
  /** Reconcile again after this many ms even without an event (TTL, activeDeadlineSeconds). */
  readonly requeueAfterMs?: number;
}

/** The status fields one reconcile rebuilds, as it goes. */
export interface Working {
  conditions: readonly JobCondition[];
  replicaStatuses: Record<string, ReplicaStatus>;
  startTime?: string;
  completionTime?: string;
  podRecreations: Record<string, number>;
  /** Set by a pass that looked at the pods (given-up-slots.ts); other passes keep what is stored. */
  givenUpWorkerSlots?: readonly number[];
}
