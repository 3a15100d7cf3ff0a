// The TFJob controller's writes of pods, services and the job itself (TTL): deletes before creates,
// expectations raised before every write, each write's event, and what its failure means (a 422 is
// said on the job, a refusal admission will repeat is not sent again before the spec changes).
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubernetesObject, type V1Pod } from '@kubernetes/client-node';
import PQueue from 'p-queue';
import { ANNOTATION_REMOVAL, GROUP, PLURAL, VERSION } from '../api/v1/constants.ts';
import type { TFJobEntry } from '../api/v1/parse.ts';
import { classifyRefusal, explainRefusal, NOT_RETRIED, type Action } from '../reconciler/tfjob/index.ts';
import { writeEvents, type JobEvent } from '../reconciler/tfjob/events.ts';
import type { ReconcileContext } from '../runtime/controller.ts';
import type { EventRecorder } from '../runtime/events.ts';
import type { Expectations } from '../runtime/expectations.ts';
import { httpStatus } from '../runtime/http-status.ts';
import { apiErrorMessage, type KubeClients } from '../runtime/kube-client.ts';
import { namespacedKey, splitKey } from '../runtime/store.ts';
import type { OperatorCaches } from './informers.ts';
import type { JobMetrics } from './job-metrics.ts';
import type { PodsInFlight } from './scheduling/pods-in-flight.ts';
import { replicaTypeOf, type PermanentRefusals } from './permanent-refusals.ts';

export interface JobWritesDeps {
  readonly clients: KubeClients;
  readonly caches: OperatorCaches;
  readonly expectations: Expectations;
  /** Pod creates the scheduler must count until the cache shows them (scheduling/pods-in-flight.ts). */
  readonly podsInFlight?: Pick<PodsInFlight, 'sending' | 'refused'>;
  readonly recorder: EventRecorder;
  readonly jobMetrics?: JobMetrics;
}

/** One event about a write, as built by `writeEvents` (tf-operator's exact reasons and texts). */
function record(recorder: EventRecorder, job: KubernetesObject, event: JobEvent, action: string): void {
  recorder.event(job, event.type, event.reason, event.message, action);
}

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

export class JobWrites {
  readonly #deps: JobWritesDeps;
  readonly #core: CoreV1Api;
  readonly #custom: CustomObjectsApi;
  readonly #permanent: PermanentRefusals;

  constructor(deps: JobWritesDeps, permanent: PermanentRefusals) {
    this.#deps = deps;
    this.#core = deps.clients.api(CoreV1Api);
    this.#custom = deps.clients.api(CustomObjectsApi);
    this.#permanent = permanent;
  }

  /**
   * Performs the reconciler's actions; returns true when the job itself was deleted (TTL).
   * `invalid` collects the messages of creates the API server rejected as Invalid (422), `refused`
   * those of other creates the API server refused (403 and the like).
   */
  async apply(
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
        body: {
          preconditions: {
            uid: a.uid ?? pod?.metadata?.uid,
            ...(a.resourceVersion === undefined ? {} : { resourceVersion: a.resourceVersion }),
          },
        },
      });
      record(recorder, w.job, writeEvents.deletedPod(a.name), 'Delete');
      w.ctx.log.info({ pod: `${w.ns}/${a.name}`, reason: a.reason, ...(a.rejection ? { rejection: a.rejection } : {}) }, 'Deleted pod');
      if (a.rejection !== undefined) this.#deps.jobMetrics?.podRejections.inc({ reason: a.rejection });
    } catch (err) {
      expectations.deletionFailed(w.key, `pod/${a.name}`);
      // 404: already gone. 409: a precondition failed: the name belongs to a newer pod, or (with a
      // resourceVersion) the pod changed since; the next reconcile judges it as it is now.
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
      w.ctx.log.info({ service: `${w.ns}/${name}` }, 'Deleted service');
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
}

/**
 * A refusal by the API server's policy (403 Forbidden from quota, PodSecurity, the Priority admission
 * plugin, a webhook; 400 and other 4xx), as opposed to a transient error (429, 5xx, none) or a
 * conflict: the user must learn about it, since retrying alone may never succeed.
 */
export function isRefusal(err: unknown): boolean {
  const code = httpStatus(err);
  return code !== undefined && code >= 400 && code < 500 && code !== 409 && code !== 429;
}

/** A service create's refusal, with the plugin that refused when its message names one. */
export function serviceRefusal(err: unknown): string {
  const message = apiErrorMessage(err);
  if (!isRefusal(err)) return message;
  const { plugin } = classifyRefusal(message);
  return plugin === undefined || message.includes(plugin) ? message : `${message} (${plugin} admission plugin)`;
}
