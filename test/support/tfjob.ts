// TFJob helpers for tests: create, read, wait for conditions, list the job's pods and events, as a
// client (kubectl, the Kubeflow SDK) would see them.
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type V1Pod, type CoreV1Event } from '@kubernetes/client-node';
import { adminKubeConfig, eventually, exitPod } from './kube.ts';

export interface TestCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface TestTFJob {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
  spec: Record<string, unknown>;
  status?: {
    conditions?: TestCondition[];
    replicaStatuses?: Record<string, { active?: number; succeeded?: number; failed?: number }>;
    startTime?: string;
    completionTime?: string;
    scheduling?: Record<string, unknown>;
  };
}

const group = { group: 'kubeflow.org', version: 'v1', plural: 'tfjobs' };

export function customApi(): CustomObjectsApi {
  return adminKubeConfig().makeApiClient(CustomObjectsApi);
}

export function coreApi(): CoreV1Api {
  return adminKubeConfig().makeApiClient(CoreV1Api);
}

/** A TFJob with one `tensorflow` container per replica type. */
export function tfjob(
  name: string,
  replicas: Record<string, number>,
  extra: {
    runPolicy?: Record<string, unknown>;
    restartPolicy?: string;
    spec?: Record<string, unknown>;
    resources?: Record<string, string>;
    template?: Record<string, unknown>;
  } = {},
): TestTFJob {
  const tfReplicaSpecs: Record<string, unknown> = {};
  for (const [type, n] of Object.entries(replicas)) {
    tfReplicaSpecs[type] = {
      replicas: n,
      ...(extra.restartPolicy === undefined ? {} : { restartPolicy: extra.restartPolicy }),
      template: {
        spec: {
          containers: [
            {
              name: 'tensorflow',
              image: 'example.invalid/tf:2.15',
              ...(extra.resources ? { resources: { requests: extra.resources } } : {}),
            },
          ],
          ...extra.template,
        },
      },
    };
  }
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name },
    spec: { tfReplicaSpecs, ...(extra.runPolicy ? { runPolicy: extra.runPolicy } : {}), ...extra.spec },
  };
}

export async function createTFJob(namespace: string, job: TestTFJob): Promise<TestTFJob> {
  return (await customApi().createNamespacedCustomObject({ ...group, namespace, body: job })) as TestTFJob;
}

export async function getTFJob(namespace: string, name: string): Promise<TestTFJob> {
  return (await customApi().getNamespacedCustomObject({ ...group, namespace, name })) as TestTFJob;
}

export async function patchTFJob(namespace: string, name: string, patch: Record<string, unknown>): Promise<TestTFJob> {
  return (await customApi().patchNamespacedCustomObject(
    { ...group, namespace, name, body: patch },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  )) as TestTFJob;
}

export async function deleteTFJob(namespace: string, name: string, propagationPolicy?: 'Foreground' | 'Background'): Promise<void> {
  await customApi().deleteNamespacedCustomObject({ ...group, namespace, name, ...(propagationPolicy ? { propagationPolicy } : {}) });
}

export function conditionTypes(job: TestTFJob): string[] {
  return (job.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`);
}

export function hasCondition(job: TestTFJob, type: string, status = 'True'): boolean {
  return (job.status?.conditions ?? []).some((c) => c.type === type && c.status === status);
}

export async function waitForCondition(
  namespace: string,
  name: string,
  type: string,
  opts: { timeoutMs?: number; status?: string } = {},
): Promise<TestTFJob> {
  return eventually(
    async () => {
      const job = await getTFJob(namespace, name);
      return hasCondition(job, type, opts.status ?? 'True') ? job : false;
    },
    { timeoutMs: opts.timeoutMs ?? 30_000, what: `${namespace}/${name} condition ${type}=${opts.status ?? 'True'}` },
  );
}

export async function jobPods(namespace: string, name: string): Promise<V1Pod[]> {
  const list = await coreApi().listNamespacedPod({ namespace, labelSelector: `training.kubeflow.org/job-name=${name}` });
  return list.items.sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

export async function waitForPods(namespace: string, name: string, count: number, phase = 'Running'): Promise<V1Pod[]> {
  return eventually(
    async () => {
      const pods = (await jobPods(namespace, name)).filter((p) => p.metadata?.deletionTimestamp === undefined);
      return pods.length === count && pods.every((p) => p.status?.phase === phase) ? pods : false;
    },
    { what: `${count} ${phase} pods of ${namespace}/${name}` },
  );
}

export async function jobEvents(namespace: string, name: string): Promise<CoreV1Event[]> {
  const list = await coreApi().listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name},involvedObject.kind=TFJob` });
  return list.items;
}

export async function eventReasons(namespace: string, name: string): Promise<string[]> {
  return (await jobEvents(namespace, name)).map((e) => e.reason ?? '');
}

/**
 * Waits until the job's events satisfy `accept` and returns them. Events are written after the
 * change they report, so a test that has just seen the change must wait for its event.
 */
export async function waitForJobEvents(
  namespace: string,
  name: string,
  accept: (events: CoreV1Event[]) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<CoreV1Event[]> {
  return eventually(
    async () => {
      const events = await jobEvents(namespace, name);
      return accept(events) ? events : false;
    },
    { what: `${what} on ${namespace}/${name}`, timeoutMs },
  );
}

/** Waits until the job has events with every given reason. */
export async function waitForEventReasons(namespace: string, name: string, reasons: string[], timeoutMs = 30_000): Promise<string[]> {
  const events = await waitForJobEvents(
    namespace,
    name,
    (es) => reasons.every((r) => es.some((e) => e.reason === r)),
    `events ${reasons.join(', ')}`,
    timeoutMs,
  );
  return events.map((e) => e.reason ?? '');
}

/**
 * Records every condition list the job goes through (a watch, so states that last milliseconds,
 * like Restarting while kwok restarts a pod at once, are not missed by polling). Call stop() when done.
 */
export async function recordConditions(namespace: string, name: string): Promise<{ history: string[][]; stop: () => void }> {
  const { Watch } = await import('@kubernetes/client-node');
  const history: string[][] = [];
  const watch = new Watch(adminKubeConfig());
  const controller = await watch.watch(
    `/apis/kubeflow.org/v1/namespaces/${namespace}/tfjobs`,
    { fieldSelector: `metadata.name=${name}` },
    (_type: string, obj: TestTFJob) => {
      const types = conditionTypes(obj);
      const last = history.at(-1);
      if (last === undefined || last.join() !== types.join()) history.push(types);
    },
    () => undefined,
  );
  return {
    history,
    stop: () => {
      controller.abort();
    },
  };
}

/** An elastic TFJob: one PS and a Worker group with min/max, each replica with the given requests. */
export function elasticJob(
  name: string,
  opts: { ps?: Record<string, string>; worker: Record<string, string>; min: number; max: number; priorityClass?: string; psCount?: number },
): TestTFJob {
  const template = (requests: Record<string, string>) => ({
    spec: { containers: [{ name: 'tensorflow', image: 'example.invalid/tf:2.15', resources: { requests } }] },
  });
  const specs: Record<string, unknown> = {};
  if (opts.ps !== undefined) specs.PS = { replicas: opts.psCount ?? 1, restartPolicy: 'OnFailure', template: template(opts.ps) };
  specs.Worker = { replicas: opts.max, restartPolicy: 'OnFailure', template: template(opts.worker) };
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name },
    spec: {
      elasticPolicy: { minReplicas: opts.min, maxReplicas: opts.max },
      tfReplicaSpecs: specs,
      ...(opts.priorityClass === undefined ? {} : { runPolicy: { schedulingPolicy: { priorityClass: opts.priorityClass } } }),
    },
  };
}

export function podsByNode(pods: readonly V1Pod[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const p of pods) {
    const node = p.spec?.nodeName ?? '<unbound>';
    (out[node] ??= []).push(p.metadata?.name ?? '');
  }
  return out;
}

export async function livePods(namespace: string, name: string): Promise<V1Pod[]> {
  return (await jobPods(namespace, name)).filter(
    (p) => p.metadata?.deletionTimestamp === undefined && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
  );
}

/**
 * Ends every live pod of a finished job with `exitCode`. A pod the job's cleanPodPolicy deletes
 * between the listing and its patch (404) is already gone, which is what the caller wants.
 */
export async function exitLivePods(namespace: string, name: string, exitCode: number): Promise<void> {
  for (const p of await livePods(namespace, name)) {
    await exitPod(namespace, p.metadata?.name ?? '', exitCode).catch((e: unknown) => {
      if ((e as { code?: number }).code !== 404) throw e;
    });
  }
}
