// No starvation: a light job overtaken by a stream of heavier arrivals runs once it has waited
// STARVELIMIT (here 6 s): it becomes the head of the queue, later arrivals wait behind it, and it
// takes the capacity the finishing jobs free.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually, exitPod } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, elasticJob, getTFJob, waitForJobEvents, livePods, waitForCondition } from '../../support/tfjob.ts';

const STARVE_LIMIT_S = 6;

describe('starvation bound (policy ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('sched-starve');
    pool = await createPool('starve', 1, { cpu: '4', memory: '16Gi' });
    operator = await startOperator(ns, [
      '--policy',
      'ours',
      '--starve-limit',
      `${STARVE_LIMIT_S}s`,
      '--scale-out-cooldown',
      '0s',
      '--scheduling-interval',
      '500ms',
      ...pool.operatorFlags,
    ]);
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
