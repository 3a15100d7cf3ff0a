// A real kubelet refuses a pod the operator placed (OutOfcpu), as test/integration/faults/
// kubelet-rejection.test.ts shows with a kubelet the test plays. The CPU the kubelet counts and the
// API does not show is a static pod whose namespace does not exist: the kubelet runs it and counts
// its request at admission, but cannot create its mirror pod, so the operator (which counts every
// pod in the API) sees the node empty and places a worker there. The refused pod must be deleted,
// with an Event and a metric, never counted as a failure or restart, the node avoided for the job
// (--refused-node-avoid-for) while its status says why it waits; once the static pod is gone and
// the avoidance ends, the worker runs there and the job Succeeds.
import { readFileSync } from 'node:fs';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readRealNodeState } from '../../lab/local-cluster/real-node/index.ts';
import { LABEL_JOB_NAME } from '../../src/api/v1/constants.ts';
import { apiStatus, createNamespace, eventually, uniqueName } from '../support/kube.ts';
import { steadyWatch } from '../support/steady-watch.ts';
import type { OperatorChild } from '../support/operator-child.ts';
import { sumOf } from '../support/prometheus.ts';
import { coreApi, createTFJob, waitForCondition, waitForJobEvents, type TestTFJob } from '../support/tfjob.ts';
import { removeHiddenStaticPod, waitStaticPodRunning, writeHiddenStaticPod, type HiddenStaticPod } from './static-pod.ts';
import { createTrainers, deleteNamespaceAndWait, realJob, realNodeName, realNodeSkipped, startOperatorProcess } from './support.ts';

const JOB = 'refused';
const REJECTIONS = 'tfjob_operator_pod_rejections_total';
/** Long enough to take the static pod away while the node is avoided (about 10 s), short for CI. */
const AVOID_SECONDS = 30;

const log = (line: string) => process.stderr.write(`[kubelet-rejection] ${line}\n`);

function cpuMillis(quantity: string | undefined): number {
  if (quantity === undefined) return 0;
  return quantity.endsWith('m') ? Number(quantity.slice(0, -1)) : Number(quantity) * 1000;
}

/** The node's allocatable CPU less the requests of the API's pods on it (what the operator sees free). */
async function freeCpuMillis(node: string): Promise<number> {
  const allocatable = cpuMillis((await coreApi().readNode({ name: node })).status?.allocatable?.cpu);
  const pods = (await coreApi().listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${node}` })).items;
  const live = pods.filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
  const used = live.flatMap((p) => p.spec?.containers ?? []).reduce((n, c) => n + cpuMillis(c.resources?.requests?.cpu), 0);
  return allocatable - used;
}

/** Each pod of the job the watch saw (by UID): its last state, when it was first seen, refused, gone. */
interface SeenPod {
  pod: V1Pod;
  readonly seenAt: number;
  refusedAt?: number;
  refused?: V1Pod;
  goneAt?: number;
}

async function watchJobPods(ns: string): Promise<{ seen: Map<string, SeenPod>; stop: () => void }> {
  const seen = new Map<string, SeenPod>();
  const stop = await steadyWatch(`/api/v1/namespaces/${ns}/pods`, { labelSelector: `${LABEL_JOB_NAME}=${JOB}` }, (type, obj) => {
    const pod = obj as V1Pod;
    const uid = pod.metadata?.uid ?? '';
    const entry = seen.get(uid) ?? { pod, seenAt: Date.now() };
    entry.pod = pod;
    if (entry.refused === undefined && pod.status?.phase === 'Failed' && pod.status.reason !== undefined) {
      entry.refused = pod;
      entry.refusedAt = Date.now();
    }
    if (type === 'DELETED') entry.goneAt = Date.now();
    seen.set(uid, entry);
  });
  return { seen, stop };
}

/** What the job's status said, update by update. */
interface JobState {
  readonly reason: string | undefined;
  readonly message: string | undefined;
  readonly conditions: string[];
  readonly workerFailed: number;
  readonly podRecreations: unknown;
}

async function watchJob(ns: string): Promise<{ states: JobState[]; stop: () => void }> {
  const states: JobState[] = [];
  const stop = await steadyWatch(
    `/apis/kubeflow.org/v1/namespaces/${ns}/tfjobs`,
    { fieldSelector: `metadata.name=${JOB}` },
    (_type, obj) => {
      const job = obj as TestTFJob;
      const status = (job.status ?? {}) as TestTFJob['status'] & { podRecreations?: unknown };
      const scheduling = status.scheduling as { reason?: string; message?: string } | undefined;
      states.push({
        reason: scheduling?.reason,
        message: scheduling?.message,
        conditions: (status.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type),
        workerFailed: status.replicaStatuses?.Worker?.failed ?? 0,
        podRecreations: status.podRecreations,
      });
    },
  );
  return { states, stop };
}

/** The real node's kubelet log lines that name the static pod. */
function kubeletLogAbout(pod: HiddenStaticPod): string[] {
  const node = inject('realNode');
  if ('skipped' in node) return [];
  const file = readRealNodeState(node.workDir)?.processes.kubelet?.log;
  if (file === undefined) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes(pod.kubeletName));
}

/** The kubelet's log says it could not create the static pod's mirror pod (its namespace is absent). */
function kubeletLogSaysNoMirror(pod: HiddenStaticPod): boolean {
  return kubeletLogAbout(pod).some(
    (line) => line.includes('Failed creating a mirror pod') && line.includes(`${pod.namespace}/${pod.kubeletName}`),
  );
}

/** One worker asking for a whole CPU; it only has to start to succeed. */
function refusedJob(): TestTFJob {
  return realJob(
    JOB,
    { Worker: { replicas: 1, cpu: '1', restartPolicy: 'Never', command: ['python3', '-c', 'print("admitted")'] } },
    // Never and no backoff room: a refusal counted as a failure would fail the job at once.
    { spec: { runPolicy: { backoffLimit: 0, cleanPodPolicy: 'None' } } },
  );
}

describe.skipIf(realNodeSkipped() !== undefined)('a real kubelet refuses a pod the operator placed (OutOfcpu)', () => {
  let ns = '';
  let operator: OperatorChild | undefined;
  let holder: HiddenStaticPod | undefined;
  const stops: (() => void)[] = [];

  beforeAll(async () => {
    ns = await createNamespace('real-reject');
    await createTrainers(ns);
    operator = await startOperatorProcess('reject', ns, ['--refused-node-avoid-for', `${AVOID_SECONDS}s`]);
  });
  afterAll(async () => {
    for (const stop of stops) stop();
    await operator?.kill();
    try {
      // Always: the next file needs the node's CPU, and the kubelet holds it until the container is gone.
      if (holder !== undefined) await removeHiddenStaticPod(realNodeName(), holder, log);
    } finally {
      if (ns !== '') await deleteNamespaceAndWait(ns);
    }
  });

  it('deletes the refused pod with an Event and a metric, counts no failure, avoids the node while saying why, then runs', async () => {
    const node = realNodeName();
    const free = await freeCpuMillis(node);
    expect(free, `free CPU on ${node} (the test needs it empty)`).toBeGreaterThanOrEqual(1500);

    // CPU the kubelet counts and the API does not show: all but 500m of what the operator sees free.
    const started = Date.now();
    holder = writeHiddenStaticPod(uniqueName('cpu-holder'), uniqueName('absent'), `${free - 500}m`, node);
    await waitStaticPodRunning(node, holder);
    const mirrors = (await coreApi().listPodForAllNamespaces({ fieldSelector: `metadata.name=${holder.kubeletName}` })).items;
    expect(mirrors).toEqual([]);
    const namespaceRead = await coreApi()
      .readNamespace({ name: holder.namespace })
      .then(
        () => 200,
        (err: unknown) => apiStatus(err),
      );
    expect(namespaceRead).toBe(404);
    const noMirror = holder;
    await eventually(async () => kubeletLogSaysNoMirror(noMirror), {
      what: 'the kubelet failing to create the mirror pod',
      timeoutMs: 30_000,
    });
    expect(await freeCpuMillis(node)).toBe(free);
    log(`static pod ${holder.kubeletName} holding ${free - 500}m running in ${Math.round((Date.now() - started) / 1000)} s`);

    const pods = await watchJobPods(ns);
    stops.push(pods.stop);
    const job = await watchJob(ns);
    stops.push(job.stop);
    const created = Date.now();
    await createTFJob(ns, refusedJob());

    // The real kubelet's verdict, as the watch saw it before the operator deleted the pod.
    const first = await eventually(async () => [...pods.seen.values()].find((p) => p.refused !== undefined) ?? false, {
      what: 'the worker refused by the kubelet',
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    const verdict = first.refused!;
    log(`refused ${Math.round((first.refusedAt! - created) / 1000)} s after the TFJob was created: ${verdict.status?.message ?? ''}`);
    expect(verdict.spec?.nodeName).toBe(node);
    expect(verdict.status?.phase).toBe('Failed');
    expect(verdict.status?.reason).toBe('OutOfcpu');
    expect(verdict.status?.message).toMatch(/enough resource: cpu/);
    expect(
      verdict.status?.containerStatuses?.some((c) => c.state?.running !== undefined || c.state?.terminated?.startedAt !== undefined),
    ).not.toBe(true);
    await eventually(async () => first.goneAt !== undefined, { what: 'the refused pod deleted', timeoutMs: 60_000, intervalMs: 500 });

    const events = await waitForJobEvents(
      ns,
      JOB,
      (es) => es.some((e) => e.reason === 'PodRejectedByKubelet' && e.message?.includes(node) === true),
      'a PodRejectedByKubelet event naming the node',
      60_000,
    );
    const rejected = events.find((e) => e.reason === 'PodRejectedByKubelet')!;
    expect(rejected.type).toBe('Warning');
    expect(rejected.message).toContain('OutOfcpu');
    await eventually(async () => sumOf(await operator!.metrics(), REJECTIONS, { reason: 'OutOfcpu' }) >= 1, {
      what: `${REJECTIONS}{reason="OutOfcpu"} counted`,
      timeoutMs: 60_000,
    });
    // The job says why it waits: its worker was refused there, and the node is avoided for a while.
    await eventually(async () => job.states.some((s) => s.reason === 'PodRejectedByKubelet'), {
      what: 'status.scheduling.reason PodRejectedByKubelet',
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    const said = job.states.find((s) => s.reason === 'PodRejectedByKubelet')!;
    expect(said.message).toContain(`refused ${JOB}-worker-0 (OutOfcpu)`);
    expect(said.message).toContain(`on ${node} after ${AVOID_SECONDS}s`);

    // The room comes back (normally while the node is still avoided); the worker then runs there.
    const removed = holder;
    const { kubeletName } = holder;
    log(`event, metric and status seen ${Math.round((Date.now() - first.refusedAt!) / 1000)} s after the refusal; removing the static pod`);
    await removeHiddenStaticPod(node, holder, log);
    holder = undefined;
    // What the kubelet did with it, for the record (how long it takes to let a static pod go).
    for (const line of kubeletLogAbout(removed).slice(-12)) log(`kubelet: ${line.slice(0, 300)}`);
    log(`static pod ${kubeletName} gone ${Math.round((Date.now() - first.refusedAt!) / 1000)} s after the refusal`);
    await waitForCondition(ns, JOB, 'Succeeded', { timeoutMs: 240_000 });
    log(`Succeeded ${Math.round((Date.now() - created) / 1000)} s after the TFJob was created`);

    const all = [...pods.seen.values()].sort((a, b) => a.seenAt - b.seenAt);
    const refusals = all.filter((p) => p.refused !== undefined);
    log(`${all.length} pod(s) of the job, ${refusals.length} refused`);
    for (const p of all) expect(p.pod.spec?.nodeName).toBe(node);
    for (const p of refusals) expect(p.refused?.status?.reason).toBe('OutOfcpu');
    // Each placement after a refusal waited out the avoidance (less the watches' lag: the operator's
    // clock starts when its informer sees the refusal, this one when the test's watch does).
    for (const p of refusals) {
      const next = all.find((q) => q.seenAt > p.refusedAt!);
      expect(next, 'a pod placed again after each refusal').toBeDefined();
      expect(next!.seenAt - p.refusedAt!).toBeGreaterThanOrEqual((AVOID_SECONDS - 10) * 1000);
    }
    const last = all.at(-1)!;
    expect(last.refused).toBeUndefined();
    expect(last.pod.status?.phase).toBe('Succeeded');
    expect(last.pod.status?.containerStatuses?.[0]?.restartCount).toBe(0);

    // One count per refusal, and nothing counted as a failure or a restart, at any time.
    expect(sumOf(await operator!.metrics(), REJECTIONS)).toBe(refusals.length);
    expect(sumOf(await operator!.metrics(), REJECTIONS, { reason: 'OutOfcpu' })).toBe(refusals.length);
    expect(job.states.flatMap((s) => s.conditions)).not.toContain('Failed');
    expect(Math.max(...job.states.map((s) => s.workerFailed))).toBe(0);
    expect(job.states.every((s) => s.podRecreations === undefined)).toBe(true);
    expect(operator!.running, operator!.tail()).toBe(true);
  });
});
