// The operator SIGKILLed during an in-place resize of a real TensorFlow container (issue 39 item 4).
// The operator runs as a child process with --resize-converged-cpu 0.5; the job's trainer reports a
// loss target (ps_v1.py's LOSS_TARGET), so it is Converged once it reaches it and the operator lowers
// its worker's CPU limit from 2 to 1 through pods/resize. The moment the API shows the new limit (the
// kubelet may not have applied it yet), the operator is killed and started again. Promised: the
// kubelet applies the resize (the container's reported limit and its CFS quota agree with the spec),
// the container is never restarted (same container, restartCount 0), the new operator, having read
// the job's log again, leaves the lowered limit alone (no "Restored" flap: the job is still
// converged), and the job finishes its planned steps and Succeeds.
import { Watch, type V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerCpuQuotaMillis } from '../../lab/local-cluster/real-node/index.ts';
import { LABEL_JOB_NAME } from '../../src/api/v1/constants.ts';
import { adminKubeConfig, createNamespace, eventually } from '../support/kube.ts';
import type { OperatorChild } from '../support/operator-child.ts';
import { coreApi, createTFJob, getTFJob, jobEvents, waitForCondition } from '../support/tfjob.ts';
import {
  createTrainers,
  deleteNamespaceAndWait,
  doneStep,
  firstPod,
  podLog,
  realJob,
  realNodeSkipped,
  startOperatorProcess,
  statusOf,
} from './support.ts';

const JOB = 'converging';
const POD = `${JOB}-worker-0`;
const STEPS = 1500;
const FLAGS = ['--progress-period', '2s', '--resize-converged-cpu', '0.5'];

const specLimit = (pod: V1Pod) => pod.spec?.containers.find((c) => c.name === 'tensorflow')?.resources?.limits?.['cpu'];
const status = (pod: V1Pod) => pod.status?.containerStatuses?.find((c) => c.name === 'tensorflow');

describe.skipIf(realNodeSkipped() !== undefined)('operator SIGKILLed during an in-place resize of a real container', () => {
  let ns: string;
  const operators: OperatorChild[] = [];

  beforeAll(async () => {
    ns = await createNamespace('real-fault-resize');
    await createTrainers(ns);
    operators.push(await startOperatorProcess('rn-resize-op-0', ns, FLAGS));
  });
  afterAll(async () => {
    for (const o of operators) await o.kill('SIGKILL');
    await deleteNamespaceAndWait(ns);
  });

  it('the resize is applied, the container never restarts, the new operator keeps the limit, the job Succeeds', async () => {
    // Every CPU limit the worker's spec goes through, in order, from before the resize to the end.
    const limits: string[] = [];
    const recorder = await new Watch(adminKubeConfig()).watch(
      `/api/v1/namespaces/${ns}/pods`,
      { labelSelector: `${LABEL_JOB_NAME}=${JOB}` },
      (_t: string, pod: V1Pod) => {
        const l = specLimit(pod);
        if (pod.metadata?.name === POD && l !== undefined && limits.at(-1) !== l) limits.push(l);
      },
      () => undefined,
    );
    try {
      const lowered = firstPod(ns, JOB, (_t, p) => p.metadata?.name === POD && specLimit(p) === '1');
      await createTFJob(
        ns,
        realJob(
          JOB,
          { Worker: { replicas: 1, cpu: '500m', cpuLimit: '2' } },
          { env: { STEPS: String(STEPS), STEP_SLEEP: '0.05', PROGRESS_EVERY: '10', LOSS_TARGET: '0.5' } },
        ),
      );
      const atResize = await lowered;
      const exit = await operators.at(-1)!.kill('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
      const containerId = status(atResize)?.containerID ?? '';
      expect(containerId).not.toBe('');
      const stepAtKill = statusOf(await getTFJob(ns, JOB)).progress?.step ?? 0;
      process.stderr.write(
        `[real-faults] operator SIGKILLed when the spec limit became 1; the kubelet reported ${status(atResize)?.resources?.limits?.['cpu']}; step ${stepAtKill}\n`,
      );
      operators.push(await startOperatorProcess('rn-resize-op-1', ns, FLAGS));

      // The new operator has followed the log past the kill (it publishes the step it read).
      await eventually(async () => (statusOf(await getTFJob(ns, JOB)).progress?.step ?? 0) >= stepAtKill + 200, {
        what: `${JOB} progress read by the new operator past step ${stepAtKill + 200}`,
        timeoutMs: 240_000,
        intervalMs: 1_000,
      });
      const applied = await eventually(
        async () => {
          const p = await coreApi().readNamespacedPod({ namespace: ns, name: POD });
          const c = status(p);
          const done = p.status?.conditions?.some((x) => x.type === 'PodResizePending' || x.type === 'PodResizeInProgress') !== true;
          return done && c?.resources?.limits?.['cpu'] === specLimit(p) && containerCpuQuotaMillis(c?.containerID ?? '') === 1000
            ? p
            : false;
        },
        { what: `${POD}: the kubelet reports the spec's limit and the kernel enforces 1000m`, timeoutMs: 120_000, intervalMs: 1_000 },
      );
      expect(specLimit(applied)).toBe('1');
      expect(status(applied)?.containerID).toBe(containerId);
      expect(status(applied)?.restartCount).toBe(0);

      await waitForCondition(ns, JOB, 'Succeeded', { timeoutMs: 480_000 });
      expect(doneStep(await podLog(ns, POD))).toBeGreaterThanOrEqual(STEPS);
      const final = await coreApi().readNamespacedPod({ namespace: ns, name: POD });
      expect(status(final)?.containerID).toBe(containerId);
      expect(status(final)?.restartCount).toBe(0);
      // Lowered once, never given back while the job stayed converged (by either operator).
      expect(limits).toEqual(['2', '1']);
      const restored = (await jobEvents(ns, JOB)).filter((e) => e.reason === 'CpuResized' && e.message?.startsWith('Restored') === true);
      expect(restored.map((e) => e.message)).toEqual([]);
      expect(operators.at(-1)!.running, operators.at(-1)!.tail()).toBe(true);
    } finally {
      recorder.abort();
    }
  });
});
