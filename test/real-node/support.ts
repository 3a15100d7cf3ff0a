// Helpers for the real-node suite: TFJobs whose replicas run the example trainers of python/examples/
// (mounted from a ConfigMap) in the locally built TensorFlow image on the real node, and what their
// logs say.
import path from 'node:path';
import { Watch, type V1Pod } from '@kubernetes/client-node';
import { inject } from 'vitest';
import {
  createTrainersConfigMap,
  REAL_NODE_LABEL,
  trainerReplicaSpec,
  type TrainerReplica,
} from '../../lab/local-cluster/real-node/index.ts';
import { LABEL_JOB_NAME } from '../../src/api/v1/constants.ts';
import type { Operator } from '../../src/operator/manager.ts';
import { adminKubeConfig, clusterState, createNamespace, eventually } from '../support/kube.ts';
import { startOperator } from '../support/operator.ts';
import { OperatorChild } from '../support/operator-child.ts';
import { coreApi, livePods, type TestTFJob } from '../support/tfjob.ts';

export const REAL_NODE_SELECTOR = `${REAL_NODE_LABEL}=true`;

/** Why the suite is skipped here, or undefined when a real node runs. */
export function realNodeSkipped(): string | undefined {
  const node = inject('realNode');
  return 'skipped' in node ? node.skipped : undefined;
}

export function realNodeName(): string {
  const node = inject('realNode');
  if ('skipped' in node) throw new Error(`no real node: ${node.skipped}`);
  return node.name;
}

/** A directory on the real node's host for hostPath volumes (removed with the node). */
export function hostScratchDir(name: string): string {
  const node = inject('realNode');
  if ('skipped' in node) throw new Error(`no real node: ${node.skipped}`);
  return path.join(node.workDir, 'volumes', name);
}

/** The example trainers and the helper module, as one ConfigMap in `namespace`. */
export async function createTrainers(namespace: string): Promise<void> {
  await createTrainersConfigMap(coreApi(), namespace);
}

/** A test file's namespace (with the trainers) and an operator placing on the real node only. */
export interface RealNodeRun {
  readonly ns: string;
  readonly operator: Operator;
  /** Stops the operator and deletes the namespace, waiting until the node has none of its pods. */
  stop(): Promise<void>;
}

export async function startRealNodeRun(
  prefix: string,
  policy: 'ours' | 'tf-operator',
  flags: readonly string[] = [],
): Promise<RealNodeRun> {
  const ns = await createNamespace(prefix);
  await createTrainers(ns);
  const operator = await startOperator(ns, [
    '--policy',
    policy,
    '--node-selector',
    REAL_NODE_SELECTOR,
    '--scheduling-interval',
    '1s',
    ...flags,
  ]);
  return {
    ns,
    operator,
    stop: async () => {
      await operator.stop();
      await deleteNamespaceAndWait(ns);
    },
  };
}

export type ReplicaRun = Omit<TrainerReplica, 'hostPath'>;

/** A TFJob of real TensorFlow replicas on the real node. */
export function realJob(
  name: string,
  replicas: Readonly<Record<string, ReplicaRun>>,
  extra: {
    spec?: Record<string, unknown>;
    env?: Readonly<Record<string, string>>;
    annotations?: Record<string, string>;
    hostPath?: string;
    /** The trainer of replicas that name none (default ps_v1.py). */
    script?: string;
  } = {},
): TestTFJob {
  const specs: Record<string, unknown> = {};
  for (const [type, r] of Object.entries(replicas)) {
    specs[type] = trainerReplicaSpec({
      ...r,
      script: r.script ?? extra.script,
      env: { ...extra.env, ...r.env },
      ...(extra.hostPath === undefined ? {} : { hostPath: extra.hostPath }),
    });
  }
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    // cleanPodPolicy Running: a finished job's PS (which never exits by itself) leaves the small node.
    spec: { runPolicy: { cleanPodPolicy: 'Running' }, tfReplicaSpecs: specs, ...extra.spec },
  };
}

/** The parts of a TFJob's status the real-node tests read. */
export interface RealJobStatus {
  progress?: { step?: number; phase?: string };
  qoe?: { class?: string; measuredStepsPerSecond?: string };
}

export function statusOf(job: TestTFJob): RealJobStatus {
  return (job.status ?? {}) as RealJobStatus;
}

/** The pod's log ('' while it has none). */
export async function podLog(namespace: string, pod: string, previous = false): Promise<string> {
  try {
    return await coreApi().readNamespacedPodLog({ name: pod, namespace, container: 'tensorflow', previous });
  } catch {
    return '';
  }
}

/** The largest global step a trainer's progress lines report in `log` (-1 without any). */
export function lastStep(log: string): number {
  let step = -1;
  for (const m of log.matchAll(/TFJOB_PROGRESS (\{[^\n]*\})/g)) {
    try {
      const v = (JSON.parse(m[1] ?? '{}') as { step?: unknown }).step;
      if (typeof v === 'number' && v > step) step = v;
    } catch {
      // not ours
    }
  }
  return step;
}

/** The global step of the first progress line in `log` (undefined before there is one). */
export function firstStep(log: string): number | undefined {
  for (const m of log.matchAll(/TFJOB_PROGRESS (\{[^\n]*\})/g)) {
    try {
      const v = (JSON.parse(m[1] ?? '{}') as { step?: unknown }).step;
      if (typeof v === 'number') return v;
    } catch {
      // not ours
    }
  }
  return undefined;
}

/** The `TRAINING_DONE global_step=N` line's N, or undefined before the trainer finished. */
export function doneStep(log: string): number | undefined {
  const m = /TRAINING_DONE global_step=(\d+)/.exec(log);
  return m === null ? undefined : Number(m[1]);
}

/** Waits until the pod's log shows a global step of at least `step`. */
export async function waitForStep(namespace: string, pod: string, step: number, timeoutMs = 300_000): Promise<number> {
  return eventually(
    async () => {
      const s = lastStep(await podLog(namespace, pod));
      return s >= step ? s : false;
    },
    { what: `${pod} at global step ${step}`, timeoutMs, intervalMs: 1_000 },
  );
}

/** Deletes the namespace and waits until none of its pods is left on the node (the next file starts on an empty node). */
export async function deleteNamespaceAndWait(namespace: string): Promise<void> {
  await coreApi()
    .deleteNamespace({ name: namespace })
    .catch(() => undefined);
  await eventually(async () => (await coreApi().listNamespacedPod({ namespace })).items.length === 0 || false, {
    what: `pods of ${namespace} gone`,
    timeoutMs: 120_000,
    intervalMs: 1_000,
  });
}

/** `tfjob-operator run` as a child process (SIGKILL-able) placing `namespace`'s jobs on the real node. */
export async function startOperatorProcess(name: string, namespace: string, flags: readonly string[] = []): Promise<OperatorChild> {
  const child = await OperatorChild.start(name, clusterState().kubeconfig, [
    '--namespace',
    namespace,
    '--policy',
    'ours',
    '--node-selector',
    REAL_NODE_SELECTOR,
    '--scheduling-interval',
    '1s',
    ...flags,
  ]);
  await child.ready();
  return child;
}

/** The names of the job's live pods and of its services (tf-operator: one headless service per replica, named as its pod). */
export async function podsAndServices(namespace: string, job: string): Promise<{ pods: string[]; services: string[] }> {
  const pods = (await livePods(namespace, job)).map((p) => p.metadata?.name ?? '').sort();
  const services = (await coreApi().listNamespacedService({ namespace, labelSelector: `${LABEL_JOB_NAME}=${job}` })).items
    .map((s) => s.metadata?.name ?? '')
    .sort();
  return { pods, services };
}

/** Waits until the job's services are exactly its live pods (none lost, none left over), and returns the names. */
export async function waitForServicesMatchingPods(namespace: string, job: string, timeoutMs = 120_000): Promise<string[]> {
  return eventually(
    async () => {
      const { pods, services } = await podsAndServices(namespace, job);
      return pods.length > 0 && pods.join() === services.join() ? pods : false;
    },
    { what: `${namespace}/${job}: a service for each live pod and no other`, timeoutMs, intervalMs: 1_000 },
  );
}

/** Gives the replica type's container a memory limit (trainerReplicaSpec sets requests only). */
export function withMemoryLimit(job: TestTFJob, type: string, limit: string): TestTFJob {
  const specs = (
    job.spec as { tfReplicaSpecs: Record<string, { template: { spec: { containers: { resources: Record<string, unknown> }[] } } }> }
  ).tfReplicaSpecs;
  const container = specs[type]?.template.spec.containers[0];
  if (container === undefined) throw new Error(`${job.metadata.name} has no ${type} container`);
  container.resources.limits = { ...(container.resources.limits as Record<string, string> | undefined), memory: limit };
  return job;
}

/** Resolves with the first pod of `job` that `matches`, as the watch delivers it (no polling lag). */
export async function firstPod(ns: string, job: string, matches: (type: string, pod: V1Pod) => boolean): Promise<V1Pod> {
  let found: ((pod: V1Pod) => void) | undefined;
  const seen = new Promise<V1Pod>((resolve) => {
    found = resolve;
  });
  const controller = await new Watch(adminKubeConfig()).watch(
    `/api/v1/namespaces/${ns}/pods`,
    { labelSelector: `${LABEL_JOB_NAME}=${job}` },
    (type: string, pod: V1Pod) => {
      if (matches(type, pod)) found?.(pod);
    },
    () => undefined,
  );
  return seen.finally(() => {
    controller.abort();
  });
}
