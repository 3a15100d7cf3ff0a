// The TFJob controller: the I/O around the pure reconciler (src/reconciler/tfjob). For one job key it
// reads the job and its pods/services from the informer caches, asks the reconciler what to do
// (and, in priority mode, the scheduling loop where the job may run), then performs the actions:
// deletes before creates, expectations raised before every write, status through the status
// subresource with optimistic concurrency, events through the events API.
import type { ProgressStatus, QoeStatus } from '../api/v1/schema.ts';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubernetesObject, type V1Pod } from '@kubernetes/client-node';
import PQueue from 'p-queue';
import { GROUP, KIND, PLURAL, VERSION, ANNOTATION_REMOVAL } from '../api/v1/constants.ts';
import type { TFJobEntry } from '../api/v1/parse.ts';
import type { JobCondition, JobStatus } from '../api/v1/schema.ts';
import {
  classifyRefusal,
  conditionFor,
  explainRefusal,
  NOT_RETRIED,
  formatTime,
  reconcileTFJob,
  setCondition,
  type Action,
  type ReconcileOptions,
  type SchedulingInput,
} from '../reconciler/tfjob/index.ts';
import { EVENT_FAILED_VALIDATION, EVENT_RESTARTING, messages, writeEvents, type JobEvent } from '../reconciler/tfjob/events.ts';
import type { Controller, ReconcileContext, ReconcileResult } from '../runtime/controller.ts';
import type { EventRecorder } from '../runtime/events.ts';
import type { Expectations } from '../runtime/expectations.ts';
import type { PodsInFlight } from './scheduling/pods-in-flight.ts';
import { httpStatus } from '../runtime/http-status.ts';
import { apiErrorMessage, type KubeClients } from '../runtime/kube-client.ts';
import { namespacedKey, objectKey, splitKey } from '../runtime/store.ts';
import { BY_JOB, controllingJobKey, type OperatorCaches } from './informers.ts';
import { jsonEqual } from '../reconciler/tfjob/json.ts';
import type { JobMetrics } from './job-metrics.ts';
import { PermanentRefusals, replicaTypeOf } from './permanent-refusals.ts';

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

export interface TFJobControllerDeps {
  readonly clients: KubeClients;
  readonly caches: OperatorCaches;
  readonly expectations: Expectations;
  /** Pod creates the scheduler must count until the cache shows them (scheduling/pods-in-flight.ts). */
  readonly podsInFlight?: Pick<PodsInFlight, 'sending' | 'refused'>;
  readonly recorder: EventRecorder;
  readonly jobMetrics?: JobMetrics;
  readonly options: ReconcileOptions;
  readonly scheduling?: SchedulingSource;
  /** The jobs' training progress (`status.progress`), when the operator follows it. */
  readonly progress?: {
    statusOf(key: string): ProgressStatus | undefined;
    /** Set once the job's metric reached its `spec.qoe.targetMetric`: what it reads, in words. */
    targetReachedOf?(key: string): string | undefined;
  };
  readonly now?: () => Date;
}

/** One event about a write, as built by `writeEvents` (tf-operator's exact reasons and texts). */
function record(recorder: EventRecorder, job: KubernetesObject, event: JobEvent, action: string): void {
  recorder.event(job, event.type, event.reason, event.message, action);
}

/** Waiting for the cache to catch up is not an error; come back soon in case an event was missed. */
const EXPECTATIONS_RECHECK_MS = 5_000;
const WRITE_CONCURRENCY = 16;

/** One `#apply`'s writes: the job they are for and what their failures leave behind. */
interface WriteRound {
  readonly key: string;
  readonly job: TFJobEntry;
  readonly ns: string;
  readonly ctx: ReconcileContext;
  /** The job's `metadata.generation`: refusals only an edit can lift hold until it changes. */
  readonly generation: number;
  /** Messages of creates rejected as Invalid (422). */
  readonly invalid: string[];
  /** Messages of other refused creates (403 and the like). */
  readonly refused: string[];
  /** Failures that make the reconcile fail (and be retried), the first one thrown. */
  readonly errors: unknown[];
}

/** A create that failed for good: Invalid (422) is said on the job; anything else is retried. */
function failedCreate(w: WriteRound, err: unknown, message: string): void {
  if (httpStatus(err) === 422) w.invalid.push(message);
  else {
    if (isRefusal(err)) w.refused.push(message);
    w.errors.push(err);
  }
}

export class TFJobController {
  readonly #deps: TFJobControllerDeps;
  readonly #core: CoreV1Api;
  readonly #custom: CustomObjectsApi;
  readonly #now: () => Date;
  readonly #permanent = new PermanentRefusals();

  constructor(deps: TFJobControllerDeps) {
    this.#deps = deps;
    this.#core = deps.clients.api(CoreV1Api);
    this.#custom = deps.clients.api(CustomObjectsApi);
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
      scheduling?.observed?.(key, undefined);
      return undefined;
    }
    if (!expectations.satisfied(key)) {
      ctx.log.debug({ pending: expectations.pending(key) }, 'Waiting for the cache to observe earlier creates and deletes');
      return { requeueAfterMs: EXPECTATIONS_RECHECK_MS };
    }
    const pods = caches.pods.byIndex(BY_JOB, key);
    const services = caches.services.byIndex(BY_JOB, key);
    const schedulingInput = scheduling?.inputFor(key, job, pods);
    if (schedulingInput !== undefined) scheduling?.handedOut?.(key, schedulingInput);
    const progress = this.#deps.progress?.statusOf(key);
    const qoe = scheduling?.qoeStatusOf?.(key);
    const reached = job.ok && job.job.spec?.qoe?.onTargetMetric === 'Stop' ? this.#deps.progress?.targetReachedOf?.(key) : undefined;
    const result = reconcileTFJob({
      job,
      pods,
      services,
      now: this.#now(),
      ...(schedulingInput === undefined ? {} : { scheduling: schedulingInput }),
      ...(progress === undefined ? {} : { progress }),
      ...(qoe === undefined ? {} : { qoe }),
      ...(reached === undefined ? {} : { stopAtTarget: reached }),
      options: this.#deps.options,
    });
    if (result.outcome === 'skipped') return undefined;
    if (ctx.log.isLevelEnabled('trace')) {
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
            (p) =>
              `${p.metadata?.name ?? ''}${p.metadata?.deletionTimestamp === undefined ? '' : '(terminating)'}:${p.status?.phase ?? ''}`,
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

    for (const e of result.events) this.#deps.recorder.event(job, e.type, e.reason, e.message);
    const invalid: string[] = [];
    const refused: string[] = [];
    const generation = job.metadata?.generation ?? 0;
    // Pods whose template admission refuses for good are not sent again before the spec changes.
    const actions = result.actions.filter((a) => a.kind !== 'createPod' || !this.#permanent.blocks(key, generation, a.pod));
    let jobDeleted: boolean;
    try {
      jobDeleted = await this.#apply(key, job, actions, ctx, invalid, refused);
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

    if (invalid.length > 0) {
      // The API server rejected a pod or service built from this job as Invalid (e.g. a template that
      // is no valid pod, or a job name leaving no room for its service names). No retry can fix it:
      // fail the job with the API server's reasons, as a job failing our own validation fails.
      // tf-operator retried forever, and our scheduler would have held the job's capacity meanwhile.
      const now = this.#now();
      const reason = invalid.length === 1 ? invalid[0]! : `[${invalid.join(', ')}]`;
      const status: JobStatus = {
        ...result.status,
        conditions: [...setCondition(result.status.conditions ?? [], conditionFor.failedValidation(reason, now))],
        completionTime: result.status.completionTime ?? formatTime(now),
      };
      this.#deps.recorder.event(job, 'Warning', EVENT_FAILED_VALIDATION, messages.failedValidation(reason));
      await this.#writeStatus(key, job, status);
      this.#countTransitions(job, status, 0);
      ctx.log.info({ reason }, 'Failed the job: the API server rejects its replicas as invalid');
      scheduling?.observed?.(key, job);
      // Come back at once for the cleanup of what was created.
      return { requeueAfterMs: 0 };
    }

    const { status, changed } = this.#withPermanentRefusals(key, generation, job, result.status, result.statusChanged);
    if (changed) {
      await this.#writeStatus(key, job, status);
      this.#countTransitions(job, status, result.events.filter((e) => e.reason === EVENT_RESTARTING).length);
      ctx.log.debug({ outcome: result.outcome, scheduling: status.scheduling?.reason }, 'Updated status');
    }
    scheduling?.observed?.(key, job);
    return result.requeueAfterMs === undefined ? undefined : { requeueAfterMs: result.requeueAfterMs };
  };

  /** Performs the reconciler's actions; returns true when the job itself was deleted (TTL). */
  /** `invalid` collects the messages of creates the API server rejected as Invalid (422). */
  /** `refused` collects the messages of other creates the API server refused (403 and the like). */
  async #apply(
    key: string,
    job: TFJobEntry,
    actions: readonly Action[],
    ctx: ReconcileContext,
    invalid: string[],
    refused: string[],
  ): Promise<boolean> {
    const { namespace } = splitKey(key);
    const generation = job.metadata?.generation ?? 0;
    const w: WriteRound = { key, job, ns: namespace ?? 'default', ctx, generation, invalid, refused, errors: [] };
    const { expectations } = this.#deps;
    const deletes = actions.filter((a) => a.kind === 'deletePod' || a.kind === 'deleteService');
    const creates = actions.filter((a) => a.kind === 'createPod' || a.kind === 'createService');
    const queue = new PQueue({ concurrency: WRITE_CONCURRENCY });

    // Creates are expected before the deletes are sent: from here on the scheduler knows they are in
    // flight (`creatingAny`) and keeps the room of the placements they use, even if those placements
    // would otherwise lapse while the deletes take their time. Every expected create is attempted.
    if (creates.length > 0) {
      expectations.expectCreations(
        key,
        creates.map((a) => (a.kind === 'createPod' ? `pod/${a.pod.metadata?.name ?? ''}` : `service/${a.service.metadata?.name ?? ''}`)),
      );
      this.#deps.podsInFlight?.sending(
        w.ns,
        creates.flatMap((a) => (a.kind === 'createPod' ? [a.pod] : [])),
        Date.now(),
      );
    }
    if (deletes.length > 0) {
      expectations.expectDeletions(
        key,
        deletes.map((a) => (a.kind === 'deletePod' ? `pod/${a.name}` : `service/${a.name}`)),
      );
      for (const a of deletes) void queue.add(() => (a.kind === 'deletePod' ? this.#deletePod(w, a) : this.#deleteService(w, a)));
      await queue.onIdle();
    }
    if (creates.length > 0) {
      for (const a of creates)
        void queue.add(() => (a.kind === 'createPod' ? this.#createPod(w, a.pod) : this.#createService(w, a.service)));
      await queue.onIdle();
    }
    if (w.errors.length > 0) throw w.errors[0];
    if (actions.some((a) => a.kind === 'deleteJob')) return this.#deleteJob(w);
    return false;
  }

  async #deletePod(w: WriteRound, a: Extract<Action, { kind: 'deletePod' }>): Promise<void> {
    const { expectations, recorder } = this.#deps;
    const pod = this.#deps.caches.pods.get(namespacedKey(w.ns, a.name));
    try {
      if (a.markRemoval !== undefined) await this.#markRemoval(w.ns, a.name, a.uid, a.markRemoval);
      // The UID precondition guarantees we only ever delete the pod we reasoned about: the one
      // the reconciler saw, not whatever the cache holds under that name by now.
      await this.#core.deleteNamespacedPod({
        name: a.name,
        namespace: w.ns,
        body: { preconditions: { uid: a.uid ?? pod?.metadata?.uid } },
      });
      record(recorder, w.job, writeEvents.deletedPod(a.name), 'Delete');
      w.ctx.log.info({ pod: `${w.ns}/${a.name}`, reason: a.reason }, 'Deleted pod');
    } catch (err) {
      expectations.deletionFailed(w.key, `pod/${a.name}`);
      // 404: already gone. 409: the UID precondition failed, so the pod reasoned about is gone and
      // the name belongs to a newer pod, which the next reconcile judges on its own.
      if (httpStatus(err) === 404 || httpStatus(err) === 409) return;
      record(recorder, w.job, writeEvents.failedDeletePod(apiErrorMessage(err)), 'Delete');
      w.errors.push(err);
    }
  }

  async #deleteService(w: WriteRound, a: Extract<Action, { kind: 'deleteService' }>): Promise<void> {
    const { expectations, recorder } = this.#deps;
    const { name } = a;
    const svc = this.#deps.caches.services.get(namespacedKey(w.ns, name));
    try {
      // The service the reconciler decided about, never whatever the cache holds by now under its
      // name (a worker's service created again since must survive a stale decision).
      await this.#core.deleteNamespacedService({
        name,
        namespace: w.ns,
        body: { preconditions: { uid: a.uid ?? svc?.metadata?.uid } },
      });
      record(recorder, w.job, writeEvents.deletedService(name), 'Delete');
    } catch (err) {
      expectations.deletionFailed(w.key, `service/${name}`);
      // 409: the UID precondition failed, the name belongs to a newer service (judged on its own).
      if (httpStatus(err) === 404 || httpStatus(err) === 409) return;
      record(recorder, w.job, writeEvents.failedDeleteService(apiErrorMessage(err)), 'Delete');
      w.errors.push(err);
    }
  }

  async #createPod(w: WriteRound, pod: V1Pod): Promise<void> {
    const { expectations, recorder } = this.#deps;
    const name = pod.metadata?.name ?? '';
    try {
      // Raw JSON: the pod template passes through untouched, whatever fields it uses.
      await this.#deps.clients.request('POST', `/api/v1/namespaces/${w.ns}/pods`, pod);
      record(recorder, w.job, writeEvents.createdPod(name), 'Create');
      w.ctx.log.info({ pod: `${w.ns}/${name}`, node: pod.spec?.nodeName }, 'Created pod');
    } catch (err) {
      expectations.creationFailed(w.key, `pod/${name}`);
      // Only a refusal proves nothing was created: a lost answer (5xx, 429, a cut) may hide a pod.
      if (isRefusal(err)) this.#deps.podsInFlight?.refused(namespacedKey(w.ns, name));
      if (httpStatus(err) === 409) return; // already exists: the cache will show it
      // An admission plugin's refusal speaks of the pod; the user needs the TFJob's field.
      const message = isRefusal(err) ? explainRefusal(pod, apiErrorMessage(err)) : apiErrorMessage(err);
      if (httpStatus(err) === 403 && classifyRefusal(message).permanent) {
        // Retrying cannot help: the next attempt is the job's next generation.
        this.#permanent.record(w.key, w.generation, replicaTypeOf(pod), message);
        record(recorder, w.job, writeEvents.failedCreatePod(`${message}; ${NOT_RETRIED}`), 'Create');
        w.ctx.log.info({ pod: `${w.ns}/${name}`, refusal: message }, 'Pod create refused for good');
        return;
      }
      record(recorder, w.job, writeEvents.failedCreatePod(message), 'Create');
      failedCreate(w, err, message);
    }
  }

  async #createService(w: WriteRound, service: Extract<Action, { kind: 'createService' }>['service']): Promise<void> {
    const { expectations, recorder } = this.#deps;
    const name = service.metadata?.name ?? '';
    try {
      await this.#deps.clients.request('POST', `/api/v1/namespaces/${w.ns}/services`, service);
      record(recorder, w.job, writeEvents.createdService(name), 'Create');
    } catch (err) {
      expectations.creationFailed(w.key, `service/${name}`);
      if (httpStatus(err) === 409) return;
      const message = serviceRefusal(err);
      record(recorder, w.job, writeEvents.failedCreateService(message), 'Create');
      failedCreate(w, err, message);
    }
  }

  /** ttlSecondsAfterFinished: deletes the TFJob itself; true once it is gone. */
  async #deleteJob(w: WriteRound): Promise<boolean> {
    const { recorder } = this.#deps;
    const name = w.job.metadata?.name ?? '';
    try {
      await this.#custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        plural: PLURAL,
        namespace: w.ns,
        name,
        body: { preconditions: { uid: w.job.metadata?.uid } },
      });
      record(recorder, w.job, writeEvents.deletedJob(name), 'Delete');
      this.#deps.jobMetrics?.deleted.inc({ job_namespace: w.ns, framework: 'tensorflow' });
      w.ctx.log.info('Deleted TFJob after ttlSecondsAfterFinished');
    } catch (err) {
      if (httpStatus(err) === 404) return true;
      record(recorder, w.job, writeEvents.failedDeleteJob(apiErrorMessage(err)), 'Delete');
      throw err;
    }
    return true;
  }

  /** The UID in the patch makes the apiserver refuse it if the pod under that name is another one. */
  async #markRemoval(namespace: string, name: string, uid: string | undefined, reason: string): Promise<void> {
    await this.#core.patchNamespacedPod(
      { name, namespace, body: { metadata: { ...(uid === undefined ? {} : { uid }), annotations: { [ANNOTATION_REMOVAL]: reason } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
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

/**
 * A refusal by the API server's policy (403 Forbidden from quota, PodSecurity, the Priority admission
 * plugin, a webhook; 400 and other 4xx), as opposed to a transient error (429, 5xx, none) or a
 * conflict: the user must learn about it, since retrying alone may never succeed.
 */
function isRefusal(err: unknown): boolean {
  const code = httpStatus(err);
  return code !== undefined && code >= 400 && code < 500 && code !== 409 && code !== 429;
}

/** A service create's refusal, with the plugin that refused when its message names one. */
function serviceRefusal(err: unknown): string {
  const message = apiErrorMessage(err);
  if (!isRefusal(err)) return message;
  const { plugin } = classifyRefusal(message);
  return plugin === undefined || message.includes(plugin) ? message : `${message} (${plugin} admission plugin)`;
}
