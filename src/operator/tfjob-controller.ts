// The TFJob controller: the I/O around the pure reconciler (src/reconciler/tfjob). For one job key it
// reads the job and its pods/services from the informer caches, asks the reconciler what to do
// (and, in priority mode, the scheduling loop where the job may run), then performs the actions:
// deletes before creates, expectations raised before every write, status through the status
// subresource with optimistic concurrency, events through the events API.
import { CustomObjectsApi, type V1Pod } from '@kubernetes/client-node';
import { GROUP, KIND, PLURAL, VERSION } from '../api/v1/constants.ts';
import type { TFJobEntry } from '../api/v1/parse.ts';
import type { JobCondition, JobStatus, ProgressStatus, QoeStatus } from '../api/v1/schema.ts';
import {
  conditionFor,
  NOT_RETRIED,
  formatTime,
  reconcileTFJob,
  setCondition,
  type ReconcileOptions,
  type ReconcilePlan,
  type SchedulingInput,
} from '../reconciler/tfjob/index.ts';
import { EVENT_FAILED_VALIDATION, EVENT_RESTARTING, messages, type JobEvent } from '../reconciler/tfjob/events.ts';
import { EVENT_NOT_TRAINING } from '../reconciler/tfjob/not-training.ts';
import { jsonEqual } from '../reconciler/tfjob/json.ts';
import type { Controller, ReconcileContext, ReconcileResult } from '../runtime/controller.ts';
import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey, splitKey } from '../runtime/store.ts';
import { BY_JOB, controllingJobKey } from './informers.ts';
import { PermanentRefusals } from './permanent-refusals.ts';
import { JobWrites, type JobWritesDeps } from './tfjob-writes.ts';

/** Where the scheduling loop plugs in; absent in `tf-operator` mode (everything created at once). */
export interface SchedulingSource {
  /** What the scheduler wants for the job now; reading it changes nothing. */
  inputFor(key: string, job: TFJobEntry, pods: readonly V1Pod[]): SchedulingInput | undefined;
  /** The reconcile was handed the input's placements to create pods from (their wait starts again). */
  handedOut?(key: string, input: SchedulingInput): void;
  /** Called after a reconcile with the job's observed state, so the scheduler can react. */
  observed?(key: string, job: TFJobEntry | undefined): void;
  /** The job against its performance target (`status.qoe`); undefined: no target, or not read yet. */
  qoeStatusOf?(key: string): QoeStatus | undefined;
}

export interface TFJobControllerDeps extends JobWritesDeps {
  readonly options: ReconcileOptions;
  readonly scheduling?: SchedulingSource;
  /** The jobs' training progress (`status.progress`), when the operator follows it. */
  readonly progress?: {
    statusOf(key: string): ProgressStatus | undefined;
    /** Set once the job's metric reached its `spec.qoe.targetMetric`: what it reads, in words. */
    targetReachedOf?(key: string): string | undefined;
    /** When a progress line of the job was last read (ms), however old: NotTraining's clock. */
    lastProgressAt?(key: string): number | undefined;
  };
  readonly now?: () => Date;
}

/** Waiting for the cache to catch up is not an error; come back soon in case an event was missed. */
const EXPECTATIONS_RECHECK_MS = 5_000;

export class TFJobController {
  readonly #deps: TFJobControllerDeps;
  readonly #custom: CustomObjectsApi;
  readonly #writes: JobWrites;
  readonly #now: () => Date;
  readonly #permanent = new PermanentRefusals();
  /** The NotTraining warning last said per job: a status write lost to a conflict must not say it twice. */
  readonly #notTrainingSaid = new Map<string, string>();

  constructor(deps: TFJobControllerDeps) {
    this.#deps = deps;
    this.#custom = deps.clients.api(CustomObjectsApi);
    this.#writes = new JobWrites(deps, this.#permanent);
    this.#now = deps.now ?? (() => new Date());
  }

  /** Wires informer events to the controller's queue and the expectations. */
  watch(controller: Controller): void {
    const { caches, expectations } = this.#deps;
    caches.tfjobs.on((_type, job) => {
      controller.enqueue(objectKey(job));
    });
    const child = (kind: 'pod' | 'service') => (type: 'add' | 'update' | 'delete', obj: KubernetesObject) => {
      const key = controllingJobKey(obj);
      if (key === undefined) return;
      const name = obj.metadata?.name ?? '';
      if (type === 'add') expectations.creationObserved(key, `${kind}/${name}`);
      if (type === 'delete') expectations.deletionObserved(key, `${kind}/${name}`);
      controller.enqueue(key);
    };
    caches.pods.on(child('pod'));
    caches.services.on(child('service'));
  }

  readonly reconcile = async (key: string, ctx: ReconcileContext): Promise<ReconcileResult | undefined> => {
    const { caches, expectations, scheduling } = this.#deps;
    const job = caches.tfjobs.get(key);
    if (job === undefined) {
      expectations.delete(key);
      this.#permanent.forget(key);
      this.#notTrainingSaid.delete(key);
      scheduling?.observed?.(key, undefined);
      return undefined;
    }
    if (!expectations.satisfied(key)) {
      ctx.log.debug({ pending: expectations.pending(key) }, 'Waiting for the cache to observe earlier creates and deletes');
      return { requeueAfterMs: EXPECTATIONS_RECHECK_MS };
    }
    const pods = caches.pods.byIndex(BY_JOB, key);
    const { result, schedulingInput } = this.#plan(key, job, pods);
    if (result.outcome === 'skipped') return undefined;
    if (ctx.log.isLevelEnabled('trace')) tracePlan(ctx, result, schedulingInput, pods);

    for (const e of result.events) if (this.#firstSaying(key, e)) this.#deps.recorder.event(job, e.type, e.reason, e.message);
    const invalid: string[] = [];
    const refused: string[] = [];
    const generation = job.metadata?.generation ?? 0;
    // Pods whose template admission refuses for good are not sent again before the spec changes.
    const actions = result.actions.filter((a) => a.kind !== 'createPod' || !this.#permanent.blocks(key, generation, a.pod));
    let jobDeleted: boolean;
    try {
      jobDeleted = await this.#writes.apply(key, job, actions, ctx, invalid, refused);
    } catch (err) {
      // A create the API refused (quota, PodSecurity, a webhook...) may be allowed later: the key is
      // retried with capped back-off, and the job's status says meanwhile what is refused and why.
      if (refused.length > 0 && result.status.scheduling !== undefined) {
        const message = [messages.createRefused(refused), ...this.#permanentMessages(key, generation)].join('; ');
        const scheduling = { ...result.status.scheduling, reason: CREATE_REFUSED, message };
        await this.#writeStatus(key, job, { ...result.status, scheduling });
      }
      throw err;
    }
    if (jobDeleted) return undefined;

    if (invalid.length > 0) return this.#failInvalid(key, job, result.status, invalid, ctx);

    const { status, changed } = this.#withPermanentRefusals(key, generation, job, result.status, result.statusChanged);
    if (changed) {
      await this.#writeStatus(key, job, status);
      this.#countTransitions(job, status, result.events.filter((e) => e.reason === EVENT_RESTARTING).length);
      ctx.log.debug({ outcome: result.outcome, scheduling: status.scheduling?.reason }, 'Updated status');
    }
    scheduling?.observed?.(key, job);
    return result.requeueAfterMs === undefined ? undefined : { requeueAfterMs: result.requeueAfterMs };
  };

  /** The reconcile's inputs from the caches and the scheduling and progress loops, and its plan. */
  #plan(key: string, job: TFJobEntry, pods: readonly V1Pod[]): { result: ReconcilePlan; schedulingInput: SchedulingInput | undefined } {
    const { caches, scheduling } = this.#deps;
    const services = caches.services.byIndex(BY_JOB, key);
    const schedulingInput = scheduling?.inputFor(key, job, pods);
    if (schedulingInput !== undefined) scheduling?.handedOut?.(key, schedulingInput);
    const progress = this.#deps.progress?.statusOf(key);
    const qoe = scheduling?.qoeStatusOf?.(key);
    const lastProgressAt = this.#deps.progress?.lastProgressAt?.(key);
    const reached = job.ok && job.job.spec?.qoe?.onTargetMetric === 'Stop' ? this.#deps.progress?.targetReachedOf?.(key) : undefined;
    const result = reconcileTFJob({
      job,
      pods,
      services,
      now: this.#now(),
      ...(schedulingInput === undefined ? {} : { scheduling: schedulingInput }),
      ...(progress === undefined ? {} : { progress }),
      ...(qoe === undefined ? {} : { qoe }),
      ...(lastProgressAt === undefined ? {} : { lastProgressAt }),
      ...(reached === undefined ? {} : { stopAtTarget: reached }),
      options: this.#deps.options,
    });
    return { result, schedulingInput };
  }

  /**
   * The API server rejected a pod or service built from this job as Invalid (e.g. a template that
   * is no valid pod, or a job name leaving no room for its service names). No retry can fix it:
   * fail the job with the API server's reasons, as a job failing our own validation fails.
   * tf-operator retried forever, and our scheduler would have held the job's capacity meanwhile.
   */
  async #failInvalid(
    key: string,
    job: TFJobEntry,
    planned: JobStatus,
    invalid: readonly string[],
    ctx: ReconcileContext,
  ): Promise<ReconcileResult> {
    const now = this.#now();
    const reason = invalid.length === 1 ? invalid[0]! : `[${invalid.join(', ')}]`;
    const status: JobStatus = {
      ...planned,
      conditions: [...setCondition(planned.conditions ?? [], conditionFor.failedValidation(reason, now))],
      completionTime: planned.completionTime ?? formatTime(now),
    };
    this.#deps.recorder.event(job, 'Warning', EVENT_FAILED_VALIDATION, messages.failedValidation(reason));
    await this.#writeStatus(key, job, status);
    this.#countTransitions(job, status, 0);
    ctx.log.info({ reason }, 'Failed the job: the API server rejects its replicas as invalid');
    this.#deps.scheduling?.observed?.(key, job);
    // Come back at once for the cleanup of what was created.
    return { requeueAfterMs: 0 };
  }

  /**
   * PUT to the status subresource with the cached resourceVersion: a 409 means our view was stale.
   * The apiserver takes everything but the status from the stored object, so none of the spec is sent.
   */
  async #writeStatus(key: string, job: TFJobEntry, status: JobStatus): Promise<void> {
    const { namespace, name } = splitKey(key);
    await this.#custom.replaceNamespacedCustomObjectStatus({
      group: GROUP,
      version: VERSION,
      plural: PLURAL,
      namespace: namespace ?? 'default',
      name,
      body: { apiVersion: job.apiVersion ?? `${GROUP}/${VERSION}`, kind: job.kind ?? KIND, metadata: job.metadata, status },
    });
  }

  /** False for a NotTraining warning this process already said for the job (one per verdict). */
  #firstSaying(key: string, e: JobEvent): boolean {
    if (e.reason !== EVENT_NOT_TRAINING) return true;
    if (this.#notTrainingSaid.get(key) === e.message) return false;
    this.#notTrainingSaid.set(key, e.message);
    return true;
  }

  /** The status to write, saying in `status.scheduling` which pods admission refuses until the spec changes. */
  #withPermanentRefusals(
    key: string,
    generation: number,
    job: TFJobEntry,
    status: JobStatus,
    changed: boolean,
  ): { status: JobStatus; changed: boolean } {
    const permanent = this.#permanentMessages(key, generation);
    if (permanent.length === 0 || status.scheduling === undefined) return { status, changed };
    const scheduling = { ...status.scheduling, reason: CREATE_REFUSED, message: permanent.join('; ') };
    const said = { ...status, scheduling };
    // Compared with what is stored, not with the reconciler's view: that never carries this reason.
    return { status: said, changed: !jsonEqual(said, job.status ?? {}) };
  }

  /** What the job's status says of its pods that admission refuses until the spec changes. */
  #permanentMessages(key: string, generation: number): string[] {
    return [...this.#permanent.current(key, generation)].map(
      ([type, message]) => `The API server refused to create the ${type} pods: ${message}; ${NOT_RETRIED}`,
    );
  }

  #countTransitions(job: TFJobEntry, next: JobStatus, restarts: number): void {
    const m = this.#deps.jobMetrics;
    if (m === undefined) return;
    const labels = { job_namespace: job.metadata?.namespace ?? '', framework: 'tensorflow' };
    const before = conditionsOf(job);
    const became = (type: string) => isTrue(next.conditions ?? [], type) && !isTrue(before, type);
    if (became('Created')) m.created.inc(labels);
    if (became('Succeeded')) m.successful.inc(labels);
    if (became('Failed')) m.failed.inc(labels);
    if (restarts > 0) m.restarted.inc(labels, restarts);
  }
}

function conditionsOf(job: TFJobEntry): readonly JobCondition[] {
  return job.status?.conditions ?? [];
}

function isTrue(conditions: readonly JobCondition[], type: string): boolean {
  return conditions.some((c) => c.type === type && c.status === 'True');
}

/** `status.scheduling.reason` while the API server refuses to create some of the job's pods or services. */
const CREATE_REFUSED = 'CreateRefused';

/** The plan at trace level: what the scheduler handed out, the pods seen and the writes decided. */
function tracePlan(
  ctx: ReconcileContext,
  result: ReconcilePlan,
  schedulingInput: SchedulingInput | undefined,
  pods: readonly V1Pod[],
): void {
  ctx.log.trace(
    {
      outcome: result.outcome,
      scheduling:
        schedulingInput === undefined
          ? undefined
          : {
              admitted: schedulingInput.admitted,
              workers: schedulingInput.workers,
              workerNodes: schedulingInput.workerNodes,
              placements: Object.keys(schedulingInput.placements ?? {}),
            },
      pods: pods.map(
        (p) => `${p.metadata?.name ?? ''}${p.metadata?.deletionTimestamp === undefined ? '' : '(terminating)'}:${p.status?.phase ?? ''}`,
      ),
      actions: result.actions.map((a) =>
        a.kind === 'createPod'
          ? `create ${a.pod.metadata?.name ?? ''}`
          : a.kind === 'createService'
            ? `create svc ${a.service.metadata?.name ?? ''}`
            : a.kind === 'deleteJob'
              ? 'delete job'
              : `delete ${a.name}`,
      ),
    },
    'Reconcile plan',
  );
}
