// No starvation: a light job overtaken by a stream of heavier arrivals runs once it has waited
// STARVELIMIT (here 6 s): it becomes the head of the queue, later arrivals wait behind it, and it
// takes the capacity the finishing jobs free.
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { adminKubeConfig, createForeignPod, createNamespace, deleteNamespace, eventually, exitPod } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, deleteTFJob, elasticJob, getTFJob, waitForJobEvents, livePods, waitForCondition } from '../../support/tfjob.ts';

const STARVE_LIMIT_S = 6;
/** Both suites: starvation after 6 s, no scale-out cool-down, a pass every 500 ms. */
const OPERATOR_FLAGS = [
  '--policy',
  'ours',
  '--starve-limit',
  `${STARVE_LIMIT_S}s`,
  '--scale-out-cooldown',
  '0s',
  '--scheduling-interval',
  '500ms',
];

describe('starvation bound (policy ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('sched-starve');
    pool = await createPool('starve', 1, { cpu: '4', memory: '16Gi' });
    operator = await startOperator(ns, [...OPERATOR_FLAGS, ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('admits a light job within the bound although heavier jobs keep arriving ahead of it', async () => {
    // A running elastic job fills the node; the light job (bigger minimum share → lower weight) waits.
    await createTFJob(
      ns,
      onPool(elasticJob('base', { ps: { cpu: '500m', memory: '1Gi' }, worker: { cpu: '500m', memory: '1Gi' }, min: 1, max: 7 }), pool),
    );
    await eventually(async () => (await livePods(ns, 'base')).length === 8, { what: 'base at 7 workers' });
    const lightCreated = Date.now();
    await createTFJob(
      ns,
      onPool(elasticJob('light', { ps: { cpu: '1', memory: '1Gi' }, worker: { cpu: '1', memory: '1Gi' }, min: 1, max: 1 }), pool),
    );

    // A stream of small, heavier jobs: each one preempts base and is admitted ahead of light; each
    // finishes two seconds after it starts.
    const admittedBeforeLight: string[] = [];
    const admittedAfterLight: string[] = [];
    let lightAdmittedAt: number | undefined;
    const running = new Map<string, number>();
    for (let i = 0; lightAdmittedAt === undefined && Date.now() - lightCreated < 60_000; i++) {
      if (i % 3 === 0)
        await createTFJob(
          ns,
          onPool(
            elasticJob(`heavy-${i / 3}`, {
              ps: { cpu: '250m', memory: '256Mi' },
              worker: { cpu: '250m', memory: '256Mi' },
              min: 1,
              max: 1,
            }),
            pool,
          ),
        );
      await new Promise((r) => setTimeout(r, 500));
      const light = await getTFJob(ns, 'light');
      if (light.status?.scheduling?.queue === 'Running') lightAdmittedAt = Date.now();
      for (let h = 0; h <= i / 3; h++) {
        const name = `heavy-${h}`;
        const job = await getTFJob(ns, name).catch(() => undefined);
        if (job?.status?.scheduling?.queue === 'Running' && !running.has(name)) {
          running.set(name, Date.now());
          (lightAdmittedAt === undefined ? admittedBeforeLight : admittedAfterLight).push(name);
        }
        const since = running.get(name);
        if (since !== undefined && Date.now() - since > 2_000 && job?.status?.conditions?.some((c) => c.type === 'Succeeded') !== true) {
          await exitPod(ns, `${name}-worker-0`, 0).catch(() => undefined);
        }
      }
    }
    expect(lightAdmittedAt, 'light was never admitted').toBeDefined();
    const waited = (lightAdmittedAt! - lightCreated) / 1000;
    // It was overtaken while it was not starving...
    expect(admittedBeforeLight.length).toBeGreaterThanOrEqual(2);
    // ...and admitted once starving, within the bound (STARVELIMIT + the heavy jobs running then + slack).
    expect(waited).toBeGreaterThanOrEqual(STARVE_LIMIT_S - 1);
    expect(waited).toBeLessThan(STARVE_LIMIT_S + 20);
    const events = await waitForJobEvents(
      ns,
      'light',
      (es) => ['Waiting', 'Admitted'].every((r) => es.some((e) => e.reason === r)),
      'Waiting and Admitted events',
    );
    // Admitted as a starving job (it may become the head and be admitted in the same pass, in which
    // case no separate Starving event is ever needed).
    expect(events.find((e) => e.reason === 'Admitted')?.message).toMatch(/starving after waiting \d+s/);
    await waitForCondition(ns, 'light', 'Running');
    // The base job was only ever scaled in to its minimum, never below.
    expect((await livePods(ns, 'base')).filter((p) => p.metadata?.name?.includes('-worker-')).length).toBeGreaterThanOrEqual(1);
  });
});

// Scale-out/preemption thrash (issue 16 §4): a starving job preempts regardless of the scale-out
// cool-down, so a worker given to a job it outranks would be taken back by the next pass. While a job
// starves, no job it may preempt grows, not even on nodes its reservation leaves free.
describe('no scale-out for a job a starving job outranks (policy ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;
  const core = () => adminKubeConfig().makeApiClient(CoreV1Api);

  beforeAll(async () => {
    ns = await createNamespace('sched-thrash');
    pool = await createPool('thrash', 2, { cpu: '8', memory: '32Gi' });
    operator = await startOperator(ns, [...OPERATOR_FLAGS, ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  const tenant = (name: string, node: string, cpu: string) => createForeignPod(ns, name, node, { cpu });
  const workers = async (job: string) => (await livePods(ns, job)).filter((p) => p.metadata?.name?.includes('-worker-')).length;

  it('grows nothing a starving job may preempt while it waits, even where its reservation leaves room', async () => {
    const [first, second] = [pool.nodes[0]!, pool.nodes[1]!];
    // Other workloads leave 7 cpu on the first node and 3 on the second.
    await tenant('tenant-a', first, '1');
    await tenant('tenant-b', second, '4');
    await tenant('tenant-c', second, '1');
    // grower (min 5, max 10) takes 9.5 of the 10 cpu left: its PS and 9 workers of 1 cpu.
    await createTFJob(
      ns,
      onPool(elasticJob('grower', { ps: { cpu: '500m', memory: '1Gi' }, worker: { cpu: '1', memory: '1Gi' }, min: 5, max: 10 }), pool),
    );
    await eventually(async () => (await workers('grower')) === 9, { what: 'grower at 9 workers' });
    // wide needs 6.5 cpu, a 6-cpu worker on one node: the first node has room for it without TFJobs,
    // but grower keeps 5 workers and at least 2 of them sit there (the second node holds 3): blocked
    // even by preemption, it starves, and then outranks grower.
    await createTFJob(
      ns,
      onPool(elasticJob('wide', { ps: { cpu: '500m', memory: '1Gi' }, worker: { cpu: '6', memory: '1Gi' }, min: 1, max: 1 }), pool),
    );
    await eventually(async () => (await getTFJob(ns, 'wide')).status?.scheduling?.starving === true, {
      timeoutMs: 60_000,
      what: 'wide starving',
    });
    const scaleOutsBefore = (await getTFJob(ns, 'grower')).status?.scheduling?.scaleOuts ?? 0;

    // 1 cpu frees on the second node (not the one reserved for wide): room for one more grower
    // worker, none for wide.
    await core().deleteNamespacedPod({ namespace: ns, name: 'tenant-c' });
    await eventually(async () => (await core().listNamespacedPod({ namespace: ns })).items.every((p) => p.metadata?.name !== 'tenant-c'), {
      what: 'tenant-c gone',
    });
    const watchUntil = Date.now() + 6_000; // 12 passes at 500 ms
    while (Date.now() < watchUntil) {
      expect(await workers('grower')).toBe(9);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect((await getTFJob(ns, 'grower')).status?.scheduling?.scaleOuts ?? 0).toBe(scaleOutsBefore);
    expect((await getTFJob(ns, 'wide')).status?.scheduling?.queue).toBe('Waiting');

    // Once wide is gone, grower takes the room.
    await deleteTFJob(ns, 'wide');
    await eventually(async () => (await workers('grower')) === 10, { timeoutMs: 30_000, what: 'grower at 10 workers' });
  }, 180_000);
});
