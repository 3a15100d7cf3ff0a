// --vertical-policy flowcon end to end on the local control plane: jobs' logs (served by kwok through
// `pods/log`) show one job learning fast and one barely moving; the operator raises the fast job's
// worker CPU limit through the API server's `pods/resize` subresource, keeps its request, says so in a
// CPULimitResized event and in status.verticalResize. What is real here: the API server's admission
// of the resize (its spec limit changes) and the Event and status written. kwok has no kubelet that
// actuates it, so the entry stays `Requested`. A pod on a node that reports no container resources is
// refused by the API server: a CPULimitResizeFailed warning and a Failed entry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { PROGRESS_PREFIX } from '../../../src/progress/signals/index.ts';
import { parseQuantity } from '../../../src/api/v1/quantity.ts';
import { createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { servePodLog, type PodLog } from '../../support/pod-logs.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { reportResizeSupport } from '../../support/resize-support.ts';
import { coreApi, createTFJob, getTFJob, jobEvents, tfjob, waitForPods } from '../../support/tfjob.ts';

interface VerticalEntry {
  pod: string;
  cpuLimit: string;
  previousCpuLimit?: string;
  state: string;
  message?: string;
  reason?: string;
}
interface Vertical {
  policy?: string;
  list?: string;
  containers?: VerticalEntry[];
}

const lossLine = (step: number, loss: number) =>
  `${PROGRESS_PREFIX} ${JSON.stringify({ step, metric: loss, name: 'loss', higherIsBetter: false })}`;

describe('--vertical-policy flowcon', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;
  const logs = new Map<string, PodLog>();
  let writer: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    ns = await createNamespace('flowcon');
    pool = await createPool('flowcon', 1, { cpu: '4', memory: '32Gi' });
    operator = await startOperator(ns, [
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      '--progress-period',
      '1s',
      '--vertical-policy',
      'flowcon',
      '--vertical-interval',
      '2s',
      '--flowcon-alpha',
      '0.01',
      ...pool.operatorFlags,
    ]);
    const container = {
      name: 'tensorflow',
      image: 'example.invalid/tf:2.15',
      resources: { requests: { cpu: '200m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } },
    };
    for (const name of ['fast', 'slow', 'fast-old-node']) {
      await createTFJob(ns, onPool(tfjob(name, { Worker: 1 }, { template: { containers: [container] } }), pool));
    }
    for (const name of ['fast', 'slow', 'fast-old-node']) {
      await waitForPods(ns, name, 1);
      if (name !== 'fast-old-node') await reportResizeSupport(ns, `${name}-worker-0`);
      logs.set(name, await servePodLog(ns, `${name}-worker-0`));
    }
    // Each second a new loss for every job: fast's falls by 30 % a line, slow's by 0.01 %.
    let step = 0;
    const write = () => {
      step += 1;
      logs.get('fast')?.write([lossLine(step, 0.7 ** step)]);
      logs.get('fast-old-node')?.write([lossLine(step, 0.7 ** step)]);
      logs.get('slow')?.write([lossLine(step, 0.9999 ** step)]);
    };
    write();
    writer = setInterval(write, 1_000);
  });
  afterAll(async () => {
    if (writer !== undefined) clearInterval(writer);
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  const verticalOf = async (name: string): Promise<Vertical | undefined> =>
    ((await getTFJob(ns, name)).status as { verticalResize?: Vertical } | undefined)?.verticalResize;
  const eventsOf = async (name: string, reason: string): Promise<string[]> =>
    (await jobEvents(ns, name)).filter((e) => e.reason === reason).map((e) => e.message ?? '');

  it("raises the fast learner's CPU limit in place, keeps its request, and says so in an event and its status", async () => {
    const raised = await eventually(
      async () => {
        const pod = await coreApi().readNamespacedPod({ namespace: ns, name: 'fast-worker-0' });
        const r = pod.spec?.containers.find((c) => c.name === 'tensorflow')?.resources;
        const limit = parseQuantity(r?.limits?.['cpu'] ?? '0') ?? 0;
        return limit > 1 ? { r, limit } : false;
      },
      { timeoutMs: 120_000, what: "fast-worker-0's CPU limit raised above its template's 1" },
    );
    expect(raised.limit).toBeLessThanOrEqual(4); // never above the node's allocatable
    expect(raised.r?.requests).toEqual({ cpu: '200m', memory: '1Gi' });
    expect(raised.r?.limits?.['memory']).toBe('1Gi');
    // The first raise from the template's 1 core (later rounds may move it again, in other events).
    const first = /^CPU limit fast-worker-0 1 → \S+ \(in place\): FlowCon: New, gain [\d.e-]+\/core per interval \(α 0\.01\)/;
    await eventually(async () => (await eventsOf('fast', 'CPULimitResized')).some((m) => first.test(m)), {
      timeoutMs: 60_000,
      what: 'the CPULimitResized event of the first raise',
    });
    const status = await eventually(
      async () => {
        const v = await verticalOf('fast');
        return v?.containers?.some((c) => c.pod === 'fast-worker-0') === true ? v : false;
      },
      { timeoutMs: 60_000, what: 'status.verticalResize of fast with its container' },
    );
    expect(status.policy).toBe('flowcon');
    const entry = status.containers!.find((c) => c.pod === 'fast-worker-0')!;
    // kwok does not actuate a resize: the spec has it, the container's reported resources do not.
    expect(entry.state).toBe('Requested');
    expect(parseQuantity(entry.cpuLimit)).toBeGreaterThan(1);
  }, 300_000);

  it('leaves the barely moving job at or below its limit', async () => {
    const v = await eventually(
      async () => {
        const s = await verticalOf('slow');
        return s?.list === 'Watching' || s?.list === 'Completing' ? s : false;
      },
      { timeoutMs: 120_000, what: 'slow classified Watching or Completing' },
    );
    expect(v.policy).toBe('flowcon');
    const pod = await coreApi().readNamespacedPod({ namespace: ns, name: 'slow-worker-0' });
    const limit = parseQuantity(pod.spec?.containers[0]?.resources?.limits?.['cpu'] ?? '0') ?? 0;
    expect(limit).toBeLessThanOrEqual(1);
    expect(await eventsOf('slow', 'CPULimitResizeFailed')).toEqual([]);
  }, 300_000);

  it('a node without resize support: the API refuses, a warning and a Failed entry say so, the pod is as it was', async () => {
    const warning = await eventually(
      async () => {
        const notes = await eventsOf('fast-old-node', 'CPULimitResizeFailed');
        return notes.length > 0 ? notes[0]! : false;
      },
      { timeoutMs: 120_000, what: 'the CPULimitResizeFailed warning' },
    );
    expect(warning).toMatch(/^In-place CPU resize refused: fast-old-node-worker-0 to \S+: HTTP 422: .*without support for resize/);
    const v = await eventually(
      async () => {
        const s = await verticalOf('fast-old-node');
        return s?.containers?.some((c) => c.state === 'Failed') === true ? s : false;
      },
      { timeoutMs: 60_000, what: 'a Failed entry in status.verticalResize' },
    );
    expect(v.containers![0]!.message).toMatch(/without support for resize/);
    const pod = await coreApi().readNamespacedPod({ namespace: ns, name: 'fast-old-node-worker-0' });
    expect(pod.spec?.containers[0]?.resources?.limits).toEqual({ cpu: '1', memory: '1Gi' });
  }, 300_000);
});
