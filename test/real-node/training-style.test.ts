// Issue 39 item 1 on real TensorFlow (policy ours; docs/reliability.md "What is promised per fault",
// docs/elastic-contract.md):
// - a ParameterServerStrategy job declaring its training style, whose maximum does not fit beside a
//   running job, is not admitted below it: no pod, status.scheduling waiting with 0/3/3 and a
//   message; once the other job is deleted it is admitted with all 3 workers, never scaled in, and
//   Succeeds;
// - NotTraining: a tf.compat.v1 PS job (no declared style; it printed progress) whose PS hangs (its
//   container's cgroup frozen: workers block on it, every pod stays Running) gets
//   status.progress.notTraining NoProgress and one NotTraining warning; thawed, it goes on, gets
//   TrainingResumed, and Succeeds.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CoreV1Event } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerCpuCgroup } from '../../lab/local-cluster/real-node/index.ts';
import { cgroupVersion } from '../../lab/local-cluster/real-node/host.ts';
import { eventually } from '../support/kube.ts';
import {
  coreApi,
  createTFJob,
  deleteTFJob,
  getTFJob,
  jobEvents,
  livePods,
  waitForCondition,
  waitForJobEvents,
  type TestTFJob,
} from '../support/tfjob.ts';
import { doneStep, lastStep, podLog, realJob, realNodeSkipped, startRealNodeRun, waitForStep, type RealNodeRun } from './support.ts';

const STYLE = 'tfjob-operator.kubeflow.org/training-style';
/** Far above the progress follower's longest gap here (--progress-period 2s doubles to 16s at most). */
const NOT_TRAINING_AFTER = '30s';

interface Scheduling {
  queue?: string;
  workersSummary?: string;
  reason?: string;
  message?: string;
  preemptions?: number;
}
interface Verdict {
  since: string;
  reason: string;
  message: string;
}

const schedulingOf = (j: TestTFJob): Scheduling => (j.status?.scheduling as Scheduling | undefined) ?? {};
const verdictOf = (j: TestTFJob): Verdict | undefined =>
  ((j.status as { progress?: { notTraining?: Verdict } } | undefined)?.progress ?? {}).notTraining;
/** Events of `reason` said so far (an event repeated by the recorder counts each time). */
const said = (events: readonly CoreV1Event[], reason: string): number =>
  events.filter((e) => e.reason === reason).reduce((n, e) => n + (e.count ?? 1), 0);
const workerPods = async (ns: string, job: string) => (await livePods(ns, job)).filter((p) => p.metadata?.name?.includes('-worker-'));

describe.skipIf(realNodeSkipped() !== undefined)('training styles and NotTraining on real TensorFlow (ours)', () => {
  let run: RealNodeRun;
  let ns: string;
  beforeAll(async () => {
    run = await startRealNodeRun('real-style', 'ours', ['--progress-period', '2s', '--not-training-after', NOT_TRAINING_AFTER]);
    ns = run.ns;
  });
  afterAll(async () => {
    await run.stop();
  });

  it('a declared ParameterServerStrategy job waits rather than start below its maximum, then runs with every worker and Succeeds', async () => {
    // 1 CPU of the node's 2 held by a long job; the PSS job needs 1.5 with 3 workers, and would fit
    // below its maximum (chief + PS + 1 worker = 0.7) if it had not declared its style.
    await createTFJob(
      ns,
      realJob(
        'blocker',
        { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 1, cpu: '800m' } },
        { env: { STEPS: '1000000', STEP_SLEEP: '0.1' } },
      ),
    );
    await eventually(async () => (await livePods(ns, 'blocker')).length === 2, { what: 'blocker admitted', timeoutMs: 120_000 });

    const pss = realJob(
      'pss',
      { Chief: { replicas: 1, cpu: '200m' }, PS: { replicas: 1, cpu: '100m' }, Worker: { replicas: 3, cpu: '400m' } },
      { spec: { elasticPolicy: { minReplicas: 1, maxReplicas: 3 } }, env: { STEPS: '100', STEP_SLEEP: '0.05' }, script: 'ps_strategy.py' },
    );
    pss.metadata.annotations = { [STYLE]: 'ParameterServerStrategy' };
    await createTFJob(ns, pss);
    const waiting = await eventually(
      async () => {
        const s = schedulingOf(await getTFJob(ns, 'pss'));
        return s.queue === 'Waiting' && s.workersSummary === '0/3/3' && s.message !== undefined ? s : false;
      },
      { what: 'pss waiting with min = max = 3 and a message', timeoutMs: 120_000 },
    );
    process.stderr.write(`[training-style] pss waiting: ${waiting.reason}: ${waiting.message}\n`);
    // Many scheduling passes (1 s) go by while the blocker's TensorFlow starts: pss stays without a pod.
    await eventually(async () => lastStep(await podLog(ns, 'blocker-worker-0')) >= 10 || false, {
      what: 'blocker training',
      timeoutMs: 300_000,
      intervalMs: 2_000,
    });
    expect(await livePods(ns, 'pss')).toEqual([]);
    expect(schedulingOf(await getTFJob(ns, 'pss')).workersSummary).toBe('0/3/3');

    await deleteTFJob(ns, 'blocker');
    const admitted = await eventually(
      async () => {
        const workers = await workerPods(ns, 'pss');
        return workers.length > 0 ? workers.length : false;
      },
      { what: 'pss admitted once the blocker is gone', timeoutMs: 240_000 },
    );
    // Admitted whole: its first workers are all of them.
    expect(admitted).toBe(3);
    await waitForCondition(ns, 'pss', 'Succeeded', { timeoutMs: 420_000 });
    expect(doneStep(await podLog(ns, 'pss-chief-0'))).toBeGreaterThanOrEqual(100);
    const reasons = (await jobEvents(ns, 'pss')).map((e) => e.reason);
    expect(reasons).not.toContain('ScaledIn');
    expect(reasons).not.toContain('Preempted');
    expect(schedulingOf(await getTFJob(ns, 'pss')).preemptions ?? 0).toBe(0);
  });

  it('NotTraining: a job whose PS hangs gets NoProgress and one warning; thawed, TrainingResumed, and it Succeeds', async () => {
    const STEPS = 500;
    await createTFJob(
      ns,
      realJob(
        'hang',
        { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 1, cpu: '500m' } },
        { env: { STEPS: String(STEPS), STEP_SLEEP: '0.1', PROGRESS_EVERY: '10' } },
      ),
    );
    await waitForStep(ns, 'hang-worker-0', 30);
    // Training and reporting: not judged, nothing said.
    expect(verdictOf(await getTFJob(ns, 'hang'))).toBeUndefined();
    expect(said(await jobEvents(ns, 'hang'), 'NotTraining')).toBe(0);

    const ps = await coreApi().readNamespacedPod({ namespace: ns, name: 'hang-ps-0' });
    const containerId = ps.status?.containerStatuses?.[0]?.containerID;
    if (containerId === undefined) throw new Error('hang-ps-0 has no container id');
    const freezer = freezerOf(containerId);
    try {
      await setFrozen(freezer, true);
      const frozenAt = Date.now();
      const stepAtFreeze = lastStep(await podLog(ns, 'hang-worker-0'));
      const verdict = await eventually(async () => verdictOf(await getTFJob(ns, 'hang')) ?? false, {
        what: 'hang gets status.progress.notTraining',
        timeoutMs: 180_000,
        intervalMs: 1_000,
      });
      process.stderr.write(
        `[training-style] verdict ${Math.round((Date.now() - frozenAt) / 1000)}s after the freeze: ${JSON.stringify(verdict)}\n`,
      );
      expect(verdict.reason).toBe('NoProgress');
      expect(verdict.message).toMatch(new RegExp(`^no progress line for over ${NOT_TRAINING_AFTER} since the last one at `));
      // The silence began with the last line before the freeze (the status holds whole seconds).
      expect(Date.parse(verdict.since)).toBeLessThanOrEqual(frozenAt + 1_000);
      await waitForJobEvents(ns, 'hang', (es) => said(es, 'NotTraining') === 1, 'one NotTraining warning', 60_000);
      // The workers really stopped: no step past the freeze's (a line may have been on its way).
      expect(lastStep(await podLog(ns, 'hang-worker-0'))).toBeLessThanOrEqual(stepAtFreeze + 10);
      expect((await livePods(ns, 'hang')).every((p) => p.status?.phase === 'Running')).toBe(true);
    } finally {
      await setFrozen(freezer, false);
    }

    const resumed = await waitForJobEvents(ns, 'hang', (es) => said(es, 'TrainingResumed') === 1, 'TrainingResumed', 180_000);
    const resumedMessage = resumed.find((e) => e.reason === 'TrainingResumed')?.message;
    process.stderr.write(`[training-style] TrainingResumed: ${resumedMessage}\n`);
    expect(resumedMessage).toMatch(/^A progress line came at .* without one$/);
    await eventually(async () => verdictOf(await getTFJob(ns, 'hang')) === undefined || false, {
      what: 'the verdict cleared',
      timeoutMs: 60_000,
    });
    expect(said(await jobEvents(ns, 'hang'), 'NotTraining')).toBe(1);
    await waitForCondition(ns, 'hang', 'Succeeded', { timeoutMs: 420_000 });
    expect(doneStep(await podLog(ns, 'hang-worker-0'))).toBeGreaterThanOrEqual(STEPS);
  });
});

/** The container's freezer: the cgroup v2 directory, or its twin under v1's freezer controller (the kubelet's cgroupfs layout is the same under each). */
function freezerOf(containerId: string): string {
  const cpu = containerCpuCgroup(containerId);
  if (cpu === undefined) throw new Error(`no cgroup for container ${containerId}`);
  if (cgroupVersion() === 2) return cpu;
  const dir = path.join('/sys/fs/cgroup/freezer', path.relative('/sys/fs/cgroup/cpu', cpu));
  readFileSync(path.join(dir, 'freezer.state'), 'utf8');
  return dir;
}

/** Freezes or thaws every process of the container (SIGSTOP would not reach a PID 1 from inside), and waits until the kernel has. */
async function setFrozen(dir: string, frozen: boolean): Promise<void> {
  const v2 = cgroupVersion() === 2;
  if (v2) writeFileSync(path.join(dir, 'cgroup.freeze'), frozen ? '1' : '0');
  else writeFileSync(path.join(dir, 'freezer.state'), frozen ? 'FROZEN' : 'THAWED');
  const done = () =>
    v2
      ? readFileSync(path.join(dir, 'cgroup.events'), 'utf8').includes(`frozen ${frozen ? 1 : 0}`)
      : readFileSync(path.join(dir, 'freezer.state'), 'utf8').trim() === (frozen ? 'FROZEN' : 'THAWED');
  await eventually(async () => Promise.resolve(done()), { what: `${dir} ${frozen ? 'frozen' : 'thawed'}`, timeoutMs: 30_000 });
}
