// FlowCon on real TensorFlow jobs (issue 37): three CPU-bound jobs share the real node while the
// operator runs `--vertical-policy flowcon` (10 s interval). `learning` keeps lowering its evaluation
// loss for its whole run; `converged` reaches its noise floor within a few hundred steps and stays
// there; `pinned` learns too but opts out (cpu-resize: "false"). Each container requests 100m with a
// 1-core limit: FlowCon may only move a limit above the request. The learning job ends up with a
// higher CPU limit than the converged one, in status.verticalResize and in the kernel's CFS quota;
// no limit goes below its request; the pinned job keeps its limit; every job Succeeds.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerCpuQuotaMillis } from '../../lab/local-cluster/real-node/index.ts';
import { eventually } from '../support/kube.ts';
import { coreApi, createTFJob, getTFJob, waitForCondition, type TestTFJob } from '../support/tfjob.ts';
import { realJob, realNodeSkipped, startRealNodeRun, type RealNodeRun } from './support.ts';

const REQUEST_MILLIS = 100;
const TEMPLATE_LIMIT_MILLIS = 1000;
const OPT_OUT = 'tfjob-operator.kubeflow.org/cpu-resize';

interface ResizedContainer {
  pod: string;
  cpuLimit: string;
  state: string;
}
interface VerticalStatus {
  policy?: string;
  list?: string;
  leftAlone?: string;
  containers?: ResizedContainer[];
}

const verticalOf = (job: TestTFJob) => ((job.status ?? {}) as { verticalResize?: VerticalStatus }).verticalResize;

function millis(q: string | undefined): number | undefined {
  if (q === undefined) return undefined;
  return q.endsWith('m') ? Number(q.slice(0, -1)) : Math.round(Number(q) * 1000);
}

/** The limit the operator last set and the kubelet applied for the job's worker, if any. */
function appliedLimit(job: TestTFJob): number | undefined {
  const c = verticalOf(job)?.containers?.find((x) => x.pod === `${job.metadata.name}-worker-0`);
  return c?.state === 'Applied' ? millis(c.cpuLimit) : undefined;
}

function tensorflow(pod: V1Pod) {
  return pod.status?.containerStatuses?.find((c) => c.name === 'tensorflow');
}

function fitJob(name: string, env: Record<string, string>, annotations?: Record<string, string>): TestTFJob {
  return realJob(
    name,
    { Worker: { replicas: 1, cpu: `${REQUEST_MILLIS}m`, cpuLimit: `${TEMPLATE_LIMIT_MILLIS}m`, script: 'vertical_fit.py' } },
    { env: { MODEL: 'linear', WIDTH: '256', PROGRESS_EVERY: '100', ...env }, ...(annotations ? { annotations } : {}) },
  );
}

describe.skipIf(realNodeSkipped() !== undefined)('FlowCon on three real TensorFlow jobs', () => {
  let run: RealNodeRun;
  let ns: string;
  beforeAll(async () => {
    run = await startRealNodeRun('real-flowcon', 'ours', [
      '--vertical-policy',
      'flowcon',
      '--vertical-interval',
      '10s',
      '--progress-period',
      '2s',
    ]);
    ns = run.ns;
  });
  afterAll(async () => {
    await run.stop();
  });

  it('gives the job still learning more CPU than the converged one; all Succeed', async () => {
    const started = Date.now();
    // Steady decay for the whole run (float64: no precision floor within these steps).
    await createTFJob(ns, fitJob('learning', { STEPS: '30000', LR: '0.0005', NOISE: '0' }));
    // At its noise floor after a few hundred steps: its loss no longer moves.
    await createTFJob(ns, fitJob('converged', { STEPS: '30000', LR: '0.2', NOISE: '1' }));
    await createTFJob(ns, fitJob('pinned', { STEPS: '15000', LR: '0.0005', NOISE: '0' }, { [OPT_OUT]: 'false' }));

    // While both run: the learner's applied limit is above the converged job's, and the kernel agrees.
    const seen = await eventually(
      async () => {
        const [learning, converged] = [await getTFJob(ns, 'learning'), await getTFJob(ns, 'converged')];
        const [high, low] = [appliedLimit(learning), appliedLimit(converged)];
        if (high === undefined || low === undefined || high <= low) return false;
        const pods = await Promise.all(
          ['learning', 'converged'].map((j) => coreApi().readNamespacedPod({ name: `${j}-worker-0`, namespace: ns })),
        );
        const quotas = pods.map((p) => containerCpuQuotaMillis(tensorflow(p)?.containerID ?? ''));
        if (quotas[0] !== high || quotas[1] !== low) return false;
        return {
          high,
          low,
          lists: [verticalOf(learning)?.list, verticalOf(converged)?.list],
          restarts: pods.map((p) => tensorflow(p)?.restartCount),
        };
      },
      { what: 'learning job with a higher applied CPU limit than the converged one', timeoutMs: 420_000, intervalMs: 2_000 },
    );
    expect(seen.low).toBeGreaterThanOrEqual(REQUEST_MILLIS);
    expect(seen.lists[1]).toBe('Completing');
    expect(seen.restarts).toEqual([0, 0]);

    const pinned = await getTFJob(ns, 'pinned');
    expect(verticalOf(pinned)?.leftAlone).toMatch(/opted out/);
    const pinnedPod = await coreApi().readNamespacedPod({ name: 'pinned-worker-0', namespace: ns });
    expect(containerCpuQuotaMillis(tensorflow(pinnedPod)?.containerID ?? '')).toBe(TEMPLATE_LIMIT_MILLIS);

    const events = await coreApi().listNamespacedEvent({ namespace: ns });
    const resized = events.items.filter((e) => e.reason === 'CPULimitResized');
    expect(resized.map((e) => e.involvedObject.name)).toEqual(expect.arrayContaining(['learning', 'converged']));
    expect(resized.some((e) => e.involvedObject.name === 'pinned')).toBe(false);

    const finished: string[] = [];
    for (const name of ['learning', 'converged', 'pinned']) {
      const job = await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 600_000 });
      for (const c of verticalOf(job)?.containers ?? []) expect(millis(c.cpuLimit)).toBeGreaterThanOrEqual(REQUEST_MILLIS);
      finished.push(`${name} ${Math.round((Date.parse(job.status?.completionTime ?? '') - started) / 1000)}s`);
    }
    process.stderr.write(
      `[flowcon] learning ${seen.high}m vs converged ${seen.low}m (lists ${seen.lists.join('/')}); Succeeded: ${finished.join(', ')}; ` +
        `test body ${Math.round((Date.now() - started) / 1000)}s\n`,
    );
  });
});
