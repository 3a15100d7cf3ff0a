// --vertical-policy dqoes end to end on the local control plane: two fixed-size jobs with a step-rate
// target on one node; the test plays their training (one prints twice its target, the other half of
// it), the scheduler classifies them Ahead and Behind in status.qoe, and the operator moves CPU limit
// from the first to the second through `pods/resize`: the API server's admission of each resize (the
// spec limits change, requests not) and the events and status are what is real here; kwok actuates
// nothing, so the rates do not follow (the test reports the containers' resources as a kubelet that
// supports resize would, once, so that the API server admits resizes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { parseQuantity } from '../../../src/api/v1/quantity.ts';
import { PROGRESS_PREFIX } from '../../../src/progress/signals/index.ts';
import { createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { servePodLog, type PodLog } from '../../support/pod-logs.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { reportResizeSupport } from '../../support/resize-support.ts';
import { coreApi, createTFJob, getTFJob, jobEvents, tfjob, waitForPods } from '../../support/tfjob.ts';

const RATES: Record<string, number> = { ahead: 20, behind: 5 };

describe('--vertical-policy dqoes', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;
  let timer: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    ns = await createNamespace('dqoes-v');
    pool = await createPool('dqoes-v', 1, { cpu: '2', memory: '16Gi' });
    operator = await startOperator(ns, [
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      '--progress-period',
      '1s',
      '--qoe-rate-window',
      '30s',
      '--vertical-policy',
      'dqoes',
      '--vertical-interval',
      '2s',
      ...pool.operatorFlags,
    ]);
    const container = {
      name: 'tensorflow',
      image: 'example.invalid/tf:2.15',
      resources: { requests: { cpu: '200m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } },
    };
    const logs = new Map<string, PodLog>();
    for (const name of Object.keys(RATES)) {
      const job = onPool(tfjob(name, { Worker: 1 }, { template: { containers: [container] } }), pool);
      await createTFJob(ns, { ...job, spec: { ...job.spec, qoe: { stepsPerSecond: 10 } } });
    }
    for (const name of Object.keys(RATES)) {
      await waitForPods(ns, name, 1);
      await reportResizeSupport(ns, `${name}-worker-0`);
      logs.set(name, await servePodLog(ns, `${name}-worker-0`));
    }
    const started = Date.now();
    const write = () => {
      const seconds = (Date.now() - started) / 1000;
      for (const [name, log] of logs) {
        const step = Math.floor(RATES[name]! * seconds);
        log.write([`${PROGRESS_PREFIX} ${JSON.stringify({ step, loss: 1 / (1 + step / 1000) })}`]);
      }
    };
    write();
    timer = setInterval(write, 500);
  });
  afterAll(async () => {
    if (timer !== undefined) clearInterval(timer);
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  const limitOf = async (pod: string) => {
    const p = await coreApi().readNamespacedPod({ namespace: ns, name: pod });
    const r = p.spec?.containers.find((c) => c.name === 'tensorflow')?.resources;
    return { cores: parseQuantity(r?.limits?.['cpu'] ?? '0') ?? 0, requests: r?.requests };
  };

  it('gives CPU limit from the job ahead of its target to the one behind, in place, with events and status', async () => {
    await eventually(
      async () => {
        const [a, b] = await Promise.all([getTFJob(ns, 'ahead'), getTFJob(ns, 'behind')]);
        const cls = (j: typeof a) => (j.status as { qoe?: { class?: string } } | undefined)?.qoe?.class;
        return cls(a) === 'Ahead' && cls(b) === 'Behind';
      },
      { timeoutMs: 120_000, what: 'ahead classified Ahead and behind Behind' },
    );
    await eventually(async () => (await limitOf('behind-worker-0')).cores > 1, {
      timeoutMs: 90_000,
      what: "behind-worker-0's CPU limit raised above 1",
    });
    const ahead = await limitOf('ahead-worker-0');
    const behind = await limitOf('behind-worker-0');
    expect(ahead.cores).toBeLessThan(1);
    // Floor: 1/(2·2) of the 2-core node; ceiling: the node.
    expect(ahead.cores).toBeGreaterThanOrEqual(0.5);
    expect(behind.cores).toBeLessThanOrEqual(2);
    expect(ahead.requests).toEqual({ cpu: '200m', memory: '1Gi' });
    expect(behind.requests).toEqual({ cpu: '200m', memory: '1Gi' });
    const messages = async (job: string) =>
      (await jobEvents(ns, job)).filter((e) => e.reason === 'CPULimitResized').map((e) => e.message ?? '');
    expect(
      (await messages('ahead')).some((m) => /^CPU limit ahead-worker-0 1 → 900m \(in place\): DQoES: ahead of its target/.test(m)),
    ).toBe(true);
    expect(
      (await messages('behind')).some((m) => /^CPU limit behind-worker-0 1 → 1100m \(in place\): DQoES: behind its target/.test(m)),
    ).toBe(true);
    const status = await eventually(
      async () => {
        const v = ((await getTFJob(ns, 'behind')).status as { verticalResize?: { policy?: string; containers?: { state: string }[] } })
          .verticalResize;
        return v?.containers?.length === 1 ? v : false;
      },
      { timeoutMs: 60_000, what: 'status.verticalResize of behind' },
    );
    expect(status.policy).toBe('dqoes');
    // kwok does not actuate the resize: the container's reported resources keep the old limit.
    expect(status.containers![0]!.state).toBe('Requested');
  }, 300_000);
});
