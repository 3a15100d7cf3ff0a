// Faults of the real node under a training job (issue 39 item 4), each judged by the invariant monitor
// of test/support/invariants.ts (no two live pods of one replica, no unexplained deletion, no orphan):
// - the kubelet SIGKILLed and started again while a PS job trains: the containers keep running (same
//   pods, same containers, no restart), the job finishes its planned steps and Succeeds;
// - a container killed by the kernel's OOM killer (it allocates past its memory limit once, then
//   trains): OOMKilled, exit 137, handled as its restart policy says. OnFailure: the kubelet restarts
//   the container in place. ExitCode: 137 is retryable (tf-operator: codes above 127 are signals), so
//   the operator deletes the pod and creates it again. Both jobs Succeed.
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restartKubelet } from '../../lab/local-cluster/real-node/index.ts';
import { InvariantMonitor } from '../support/invariants.ts';
import { adminKubeConfig, eventually } from '../support/kube.ts';
import { coreApi, createTFJob, jobPods, waitForCondition, waitForJobEvents } from '../support/tfjob.ts';
import {
  doneStep,
  hostScratchDir,
  podLog,
  realJob,
  realNodeName,
  realNodeSkipped,
  startRealNodeRun,
  waitForStep,
  withMemoryLimit,
  type RealNodeRun,
} from './support.ts';

const tensorflow = (pod: V1Pod): V1ContainerStatus | undefined => pod.status?.containerStatuses?.find((c) => c.name === 'tensorflow');

/** Allocates past the container's memory limit the first time (a marker on a volume that outlives the pod), then trains. */
const OOM_ONCE = [
  'import os',
  "if os.path.exists('/ckpt/oom-once'):",
  "    os.execvp('python3', ['python3', '-u', '/trainers/ps_v1.py'])",
  "open('/ckpt/oom-once', 'w').close()",
  "print('allocating past the memory limit', flush=True)",
  'held = []',
  'while True:',
  '    held.append(bytes([1]) * (64 << 20))',
].join('\n');

describe.skipIf(realNodeSkipped() !== undefined)('node faults under real TensorFlow pods', () => {
  let run: RealNodeRun;
  let ns: string;
  let monitor: InvariantMonitor;

  beforeAll(async () => {
    run = await startRealNodeRun('real-fault-node', 'ours');
    ns = run.ns;
    monitor = await InvariantMonitor.start({ kubeConfig: adminKubeConfig(), namespace: ns, nodes: [realNodeName()] });
  });
  afterAll(async () => {
    monitor.stop();
    await run.stop();
  });

  it('kubelet SIGKILLed and restarted while a job trains: same pods and containers, the job finishes its planned steps', async () => {
    const name = 'through-kubelet-restart';
    const steps = 400;
    await createTFJob(
      ns,
      realJob(
        name,
        { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 2, cpu: '400m' } },
        { env: { STEPS: String(steps), STEP_SLEEP: '0.2', PROGRESS_EVERY: '10' } },
      ),
    );
    const atRestart = await waitForStep(ns, `${name}-worker-0`, 40);
    const before = await jobPods(ns, name);
    expect(before).toHaveLength(3);
    const node = inject('realNode');
    if ('skipped' in node) throw new Error(node.skipped);
    const pid = await restartKubelet(node.workDir, 2_000);
    process.stderr.write(`[real-faults] kubelet restarted (pid ${pid}) at global step ${atRestart}\n`);
    // The restarted kubelet reports the node again (a heartbeat after the restart).
    const restartedAt = Date.now();
    await eventually(
      async () => {
        const n = await coreApi().readNode({ name: realNodeName() });
        const ready = n.status?.conditions?.find((c) => c.type === 'Ready');
        return ready?.status === 'True' && new Date(ready.lastHeartbeatTime ?? 0).getTime() >= restartedAt - 1_000;
      },
      { what: 'the node Ready after the kubelet restart', timeoutMs: 120_000, intervalMs: 1_000 },
    );
    await waitForCondition(ns, name, 'Succeeded', { timeoutMs: 480_000 });
    expect(doneStep(await podLog(ns, `${name}-worker-0`))).toBeGreaterThanOrEqual(steps);
    const after = await jobPods(ns, name);
    // Worker 0 Succeeded and is kept; the PS (and a worker still running when worker 0 finished) is
    // deleted by cleanPodPolicy Running. What is left is the same pods and containers, never restarted.
    expect(after.map((p) => p.metadata?.name)).toContain(`${name}-worker-0`);
    for (const pod of before) {
      const now = after.find((p) => p.metadata?.name === pod.metadata?.name);
      if (now === undefined) continue;
      expect(now.metadata?.uid).toBe(pod.metadata?.uid);
      expect(tensorflow(now)?.containerID).toBe(tensorflow(pod)?.containerID);
      expect(tensorflow(now)?.restartCount).toBe(0);
    }
  });

  it('a container OOM-killed: OnFailure restarts it in place, ExitCode recreates the pod (137 is retryable); both jobs Succeed', async () => {
    const job = (name: string, restartPolicy: string) =>
      withMemoryLimit(
        realJob(
          name,
          { Worker: { replicas: 1, cpu: '300m', memory: '512Mi', restartPolicy, command: ['python3', '-u', '-c', OOM_ONCE] } },
          { env: { STEPS: '100', STEP_SLEEP: '0.05' }, hostPath: hostScratchDir(`${ns}-${name}`) },
        ),
        'Worker',
        '1Gi',
      );
    await createTFJob(ns, job('oom-onfailure', 'OnFailure'));
    await createTFJob(ns, job('oom-exitcode', 'ExitCode'));
    await waitForCondition(ns, 'oom-onfailure', 'Succeeded', { timeoutMs: 300_000 });
    await waitForCondition(ns, 'oom-exitcode', 'Succeeded', { timeoutMs: 300_000 });

    const inPlace = tensorflow(await coreApi().readNamespacedPod({ namespace: ns, name: 'oom-onfailure-worker-0' }));
    expect(inPlace?.restartCount).toBe(1);
    expect(inPlace?.lastState?.terminated?.reason).toBe('OOMKilled');
    expect(inPlace?.lastState?.terminated?.exitCode).toBe(137);

    const events = await waitForJobEvents(
      ns,
      'oom-exitcode',
      (es) => es.some((e) => e.reason === 'ExitedWithCode') && es.some((e) => e.reason === 'SuccessfulDeletePod'),
      'ExitedWithCode and SuccessfulDeletePod',
    );
    expect(events.find((e) => e.reason === 'ExitedWithCode')?.message).toContain('137');
    const recreated = await coreApi().readNamespacedPod({ namespace: ns, name: 'oom-exitcode-worker-0' });
    expect(recreated.spec?.restartPolicy).toBe('Never');
    expect(tensorflow(recreated)?.restartCount).toBe(0);
    expect(doneStep(await podLog(ns, 'oom-exitcode-worker-0'))).toBeGreaterThanOrEqual(100);

    const report = await monitor.finish();
    process.stderr.write(`[real-faults] invariants: ${JSON.stringify({ ...report, violations: report.violations.length })}\n`);
    expect(report.violations).toEqual([]);
    expect(report.gaps).toBe(0);
  });
});
