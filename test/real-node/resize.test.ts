// In-place vertical resize of a real TensorFlow container (issue 37, item 1): a running worker's CPU
// limit is lowered and raised through the pod `resize` subresource, by the operator's own actuator
// (KubePodResizer, what `--resize-converged-cpu` sends), against the real kubelet and containerd.
// The container is not restarted (same container ID, restartCount 0), the kubelet reports the new
// limit in status.containerStatuses[].resources, the kernel enforces it (the container's CFS quota),
// and the step rate follows: lower under the low limit than under the high one, both in the
// trainer's own progress lines (measured over windows of steps) and in the rate the operator's
// progress follower measures (status.qoe.measuredStepsPerSecond).
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerCpuQuotaMillis } from '../../lab/local-cluster/real-node/index.ts';
import { KubeClients } from '../../src/runtime/kube-client.ts';
import { KubePodResizer } from '../../src/progress/follower/cpu-resize.ts';
import { adminKubeConfig, eventually } from '../support/kube.ts';
import { coreApi, createTFJob, getTFJob } from '../support/tfjob.ts';
import { lastStep, podLog, realJob, realNodeSkipped, statusOf, startRealNodeRun, type RealNodeRun } from './support.ts';

const JOB = 'resized';
const POD = `${JOB}-worker-0`;
const HIGH_MILLIS = 2000;
// The request: a limit may not go below it.
const LOW_MILLIS = 100;
// Steps per rate window; the trainer prints a progress line every PROGRESS_EVERY steps.
const WINDOW_STEPS = 3000;
const PROGRESS_EVERY = 100;
// Direction only, with room for a busy machine: ~6x apart when the worker has a core to itself.
const SLOWER = 0.6;

interface Sample {
  readonly step: number;
  readonly time: number;
}

function samples(log: string): Sample[] {
  const out: Sample[] = [];
  for (const m of log.matchAll(/TFJOB_PROGRESS (\{[^\n]*\})/g)) {
    const v = JSON.parse(m[1] ?? '{}') as { step?: unknown; time?: unknown };
    if (typeof v.step === 'number' && typeof v.time === 'number') out.push({ step: v.step, time: v.time });
  }
  return out;
}

/** Steps per second over the first WINDOW_STEPS steps the trainer reports after step `after`. */
async function windowRate(after: number): Promise<number> {
  return eventually(
    async () => {
      const s = samples(await podLog(ns, POD)).filter((x) => x.step > after);
      const first = s[0];
      const last = first === undefined ? undefined : s.find((x) => x.step >= first.step + WINDOW_STEPS);
      if (first === undefined || last === undefined || last.time <= first.time) return false;
      return (last.step - first.step) / (last.time - first.time);
    },
    { what: `${WINDOW_STEPS} steps after step ${after}`, timeoutMs: 240_000, intervalMs: 1_000 },
  );
}

function worker(pod: V1Pod) {
  const status = pod.status?.containerStatuses?.find((c) => c.name === 'tensorflow');
  if (status === undefined) throw new Error(`${POD} has no tensorflow container status`);
  return status;
}

function limitMillis(q: string | undefined): number | undefined {
  if (q === undefined) return undefined;
  return q.endsWith('m') ? Number(q.slice(0, -1)) : Math.round(Number(q) * 1000);
}

/** Resizes the worker's limit and waits until the kubelet reports it and the kernel enforces it. */
async function resizeTo(millis: number): Promise<{ pod: V1Pod; step: number }> {
  await resizer.resize({ namespace: ns, pod: POD, container: 'tensorflow', limitMillis: millis, lower: millis < HIGH_MILLIS });
  const pod = await eventually(
    async () => {
      const p = await coreApi().readNamespacedPod({ name: POD, namespace: ns });
      const c = worker(p);
      const reported = limitMillis(c.resources?.limits?.['cpu']);
      const pending = p.status?.conditions?.some((x) => x.type === 'PodResizePending' || x.type === 'PodResizeInProgress');
      return reported === millis && pending !== true && containerCpuQuotaMillis(c.containerID ?? '') === millis ? p : false;
    },
    { what: `${POD} resized to ${millis}m`, timeoutMs: 120_000, intervalMs: 500 },
  );
  return { pod, step: lastStep(await podLog(ns, POD)) };
}

/** Waits until the operator's measured rate satisfies `ok` (its window holds only steps after the resize). */
async function operatorRate(ok: (rate: number) => boolean, what: string): Promise<number> {
  return eventually(
    async () => {
      const v = Number(statusOf(await getTFJob(ns, JOB)).qoe?.measuredStepsPerSecond);
      return Number.isFinite(v) && ok(v) ? v : false;
    },
    { what: `status.qoe.measuredStepsPerSecond ${what}`, timeoutMs: 180_000, intervalMs: 2_000 },
  );
}

let run: RealNodeRun;
let ns: string;
let resizer: KubePodResizer;

describe.skipIf(realNodeSkipped() !== undefined)('in-place CPU resize of a real TensorFlow worker', () => {
  beforeAll(async () => {
    run = await startRealNodeRun('real-resize', 'ours', ['--progress-period', '2s', '--qoe-rate-window', '10s']);
    ns = run.ns;
    resizer = new KubePodResizer(new KubeClients(adminKubeConfig()));
  });
  afterAll(async () => {
    await run.stop();
  });

  it('lowers and raises the limit without a restart; the quota and the step rate follow', async () => {
    // One worker (tf.compat.v1 between-graph, no PS): every step's CPU is in the resized container.
    // No sleep per step, so the rate is bound by CPU; far more steps than the test waits for.
    await createTFJob(
      ns,
      realJob(
        JOB,
        { Worker: { replicas: 1, cpu: `${LOW_MILLIS}m`, cpuLimit: `${HIGH_MILLIS / 1000}` } },
        {
          spec: { qoe: { stepsPerSecond: 1 } },
          env: { STEPS: '100000000', STEP_SLEEP: '0', PROGRESS_EVERY: String(PROGRESS_EVERY) },
        },
      ),
    );
    const started = await eventually(
      async () => {
        const p = await coreApi().readNamespacedPod({ name: POD, namespace: ns });
        return worker(p).containerID !== undefined && lastStep(await podLog(ns, POD)) > 0 ? p : false;
      },
      { what: `${POD} training`, timeoutMs: 240_000, intervalMs: 1_000 },
    );
    const containerId = worker(started).containerID ?? '';
    expect(containerCpuQuotaMillis(containerId)).toBe(HIGH_MILLIS);
    const highBefore = await windowRate(lastStep(await podLog(ns, POD)));

    const lowered = await resizeTo(LOW_MILLIS);
    const low = await windowRate(lowered.step);
    const lowSeenByOperator = await operatorRate((r) => r < SLOWER * highBefore, `below ${SLOWER} x ${highBefore.toFixed(0)}`);

    const raised = await resizeTo(HIGH_MILLIS);
    const highAfter = await windowRate(raised.step);
    const highSeenByOperator = await operatorRate((r) => SLOWER * r > low, `above ${low.toFixed(0)} / ${SLOWER}`);
    process.stderr.write(
      `[resize] steps/s over ${WINDOW_STEPS} steps: ${HIGH_MILLIS}m ${highBefore.toFixed(0)}, ${LOW_MILLIS}m ${low.toFixed(0)}, ` +
        `${HIGH_MILLIS}m ${highAfter.toFixed(0)}; operator: ${lowSeenByOperator.toFixed(0)} (low), ${highSeenByOperator.toFixed(0)} (high)\n`,
    );

    for (const pod of [lowered.pod, raised.pod]) {
      // The same container, never restarted, in the same pod (the operator did not replace it).
      expect(pod.metadata?.uid).toBe(started.metadata?.uid);
      expect(worker(pod).containerID).toBe(containerId);
      expect(worker(pod).restartCount).toBe(0);
      // Requests stay: placement and quotas are unaffected.
      expect(worker(pod).resources?.requests?.['cpu']).toBe(`${LOW_MILLIS}m`);
    }
    expect(low).toBeLessThan(SLOWER * highBefore);
    expect(low).toBeLessThan(SLOWER * highAfter);
    const final = await coreApi().readNamespacedPod({ name: POD, namespace: ns });
    expect(worker(final).restartCount).toBe(0);
    expect(final.status?.phase).toBe('Running');
  });
});
