// FlowCon on real TensorFlow jobs (issue 37): three CPU-bound jobs share the real node while the
// operator runs `--vertical-policy flowcon` (10 s interval) with the paper's CPU term, `--flowcon-cpu
// used`: each job's gain is divided by the CPU its container used, which the operator reads from the
// real kubelet's summary through the API server's node proxy. `learning` keeps lowering its evaluation
// loss for its whole run; `converged` reaches its noise floor within a few dozen steps and stays
// there; `pinned` learns too but opts out (cpu-resize: "false"). Each container requests 100m with a
// 1-core limit: FlowCon may only move a limit above the request. The learning job ends up with a
// higher CPU limit than the converged one, in status.verticalResize and in the kernel's CFS quota;
// no limit goes below its request; the pinned job keeps its limit; every job Succeeds.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerCpuQuotaMillis } from '../../lab/local-cluster/real-node/index.ts';
import { eventually } from '../support/kube.ts';
import { coreApi, createTFJob, getTFJob, waitForCondition, type TestTFJob } from '../support/tfjob.ts';
import { podLog, realJob, realNodeSkipped, startRealNodeRun, type RealNodeRun } from './support.ts';

const REQUEST_MILLIS = 100;
const TEMPLATE_LIMIT_MILLIS = 1000;
const OPT_OUT = 'tfjob-operator.kubeflow.org/cpu-resize';
// Long enough that the learner still runs a few rounds after the converged job reaches Completing
// (three rounds after its first progress line) on a busy machine; short enough for the CI budget.
const LEARNER_STEPS = 100_000;
const LEARNER_DECAY = 20;
const CONVERGED_STEPS = 50_000;
const PINNED_STEPS = 30_000;

interface ResizedContainer {
  pod: string;
  cpuLimit: string;
  state: string;
}
interface VerticalStatus {
  policy?: string;
  list?: string;
  growthEfficiency?: string;
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

/** The container's CFS quota in millicores while its pod runs (undefined once it is gone). */
function runningQuota(pod: V1Pod): number | undefined {
  const id = tensorflow(pod)?.containerID;
  if (pod.status?.phase !== 'Running' || id === undefined) return undefined;
  try {
    return containerCpuQuotaMillis(id) ?? undefined;
  } catch {
    // The container exited between the read and now: its cgroup is gone.
    return undefined;
  }
}

/** One line per job of what FlowCon decided and what the pod, the kubelet and the kernel hold. */
async function snapshot(ns: string): Promise<string> {
  const lines: string[] = [];
  for (const name of ['learning', 'converged', 'pinned']) {
    const v = verticalOf(await getTFJob(ns, name));
    const pod = await coreApi()
      .readNamespacedPod({ name: `${name}-worker-0`, namespace: ns })
      .catch(() => undefined);
    const c = pod?.spec?.containers.find((x) => x.name === 'tensorflow');
    const st = pod === undefined ? undefined : tensorflow(pod);
    const progress = [...(await podLog(ns, `${name}-worker-0`)).matchAll(/TFJOB_PROGRESS (\{[^\n]*\})/g)].at(-1)?.[1] ?? '-';
    lines.push(
      `${name}: list=${v?.list ?? '-'} ge=${v?.growthEfficiency ?? '-'} leftAlone=${v?.leftAlone ?? '-'} ` +
        `status=${(v?.containers ?? []).map((x) => `${x.cpuLimit}/${x.state}`).join(',') || '-'} ` +
        `spec=${String(c?.resources?.limits?.['cpu'])} kubelet=${String(st?.resources?.limits?.['cpu'])} ` +
        `quota=${pod === undefined ? '-' : String(runningQuota(pod))} phase=${pod?.status?.phase ?? '-'} last=${progress}`,
    );
  }
  return lines.join('\n  ');
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
      '--flowcon-cpu',
      'used',
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
    // The learner's loss falls by exp(4·LR) per step: by e^LEARNER_DECAY over its run, so every interval
    // still shows a large relative gain (and the loss stays far above float64's precision).
    const learnerLr = String(LEARNER_DECAY / (4 * LEARNER_STEPS));
    await createTFJob(ns, fitJob('learning', { STEPS: String(LEARNER_STEPS), LR: learnerLr, NOISE: '0' }));
    // At its noise floor within a few dozen steps: its loss no longer moves.
    await createTFJob(ns, fitJob('converged', { STEPS: String(CONVERGED_STEPS), LR: '0.2', NOISE: '1' }));
    await createTFJob(ns, fitJob('pinned', { STEPS: String(PINNED_STEPS), LR: learnerLr, NOISE: '0' }, { [OPT_OUT]: 'false' }));

    // The learner's applied limit ends above the converged job's, and the kernel applied both. The
    // status turns Applied on the next vertical round (up to 10 s after the kubelet), by which time the
    // converged job may have finished: each job's CFS quota is sampled while its pod runs and the
    // status, which outlives the pod, is compared with those samples. The opted-out job's quota must
    // stay the template's.
    let traced = '';
    const quotasSeen: Record<string, Set<number>> = { learning: new Set(), converged: new Set(), pinned: new Set() };
    const seen = await eventually(
      async () => {
        const now = await snapshot(ns);
        if (now.replace(/ last=.*$/gm, '') !== traced.replace(/ last=.*$/gm, '')) {
          process.stderr.write(`[flowcon +${Math.round((Date.now() - started) / 1000)}s]\n  ${now}\n`);
        }
        traced = now;
        for (const [name, quotas] of Object.entries(quotasSeen)) {
          const pod = await coreApi()
            .readNamespacedPod({ name: `${name}-worker-0`, namespace: ns })
            .catch(() => undefined);
          const quota = pod === undefined ? undefined : runningQuota(pod);
          if (quota !== undefined) quotas.add(quota);
        }
        const [learning, converged] = [await getTFJob(ns, 'learning'), await getTFJob(ns, 'converged')];
        const [high, low] = [appliedLimit(learning), appliedLimit(converged)];
        if (high === undefined || low === undefined || high <= low) return false;
        if (!quotasSeen['learning']?.has(high) || !quotasSeen['converged']?.has(low)) return false;
        return { high, low, lists: [verticalOf(learning)?.list, verticalOf(converged)?.list] };
      },
      { what: 'learning job with a higher applied CPU limit than the converged one', timeoutMs: 300_000, intervalMs: 2_000 },
    );
    expect(seen.low).toBeGreaterThanOrEqual(REQUEST_MILLIS);
    expect(seen.lists[1]).toBe('Completing');
    expect(quotasSeen['pinned']).toEqual(new Set([TEMPLATE_LIMIT_MILLIS]));

    const finished: string[] = [];
    for (const name of ['learning', 'converged', 'pinned']) {
      const job = await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 600_000 });
      for (const c of verticalOf(job)?.containers ?? []) expect(millis(c.cpuLimit)).toBeGreaterThanOrEqual(REQUEST_MILLIS);
      const pod = await coreApi().readNamespacedPod({ name: `${name}-worker-0`, namespace: ns });
      expect(tensorflow(pod)?.restartCount).toBe(0);
      finished.push(`${name} ${Math.round((Date.parse(job.status?.completionTime ?? '') - started) / 1000)}s`);
    }
    const pinned = await getTFJob(ns, 'pinned');
    expect(verticalOf(pinned)?.leftAlone).toMatch(/opted out/);
    expect(verticalOf(pinned)?.containers).toBeUndefined();

    const events = await coreApi().listNamespacedEvent({ namespace: ns });
    const resized = events.items.filter((e) => e.reason === 'CPULimitResized');
    expect(resized.map((e) => e.involvedObject.name)).toEqual(expect.arrayContaining(['learning', 'converged']));
    expect(resized.some((e) => e.involvedObject.name === 'pinned')).toBe(false);
    // The learner's growth was measured per core it used, as the kubelet counted it.
    const learnerReasons = resized.filter((e) => e.involvedObject.name === 'learning').map((e) => e.message ?? '');
    expect(
      learnerReasons.some((m) => /gain \S+\/core used per interval/.test(m)),
      learnerReasons.join('\n'),
    ).toBe(true);
    process.stderr.write(
      `[flowcon] learning ${seen.high}m vs converged ${seen.low}m (lists ${seen.lists.join('/')}); Succeeded: ${finished.join(', ')}; ` +
        `test body ${Math.round((Date.now() - started) / 1000)}s\n`,
    );
  });
});
