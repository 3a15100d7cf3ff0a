// A TFJob whose templates name another scheduler (Volcano, YuniKorn, coscheduling, ...) is placed by
// that scheduler, in both modes, as under tf-operator: its pods are created without nodeName with the
// template's schedulerName intact, and a second kube-scheduler process (profile `second-scheduler`)
// binds them. With policy `ours` the job is outside our queue (status and event say which scheduler
// places it), and the pods that scheduler binds take room our own placements respect.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATION_PLACED_BY, ANNOTATION_PLACED_NODE } from '../../../src/api/v1/constants.ts';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { scheduledBy, startSecondScheduler, type SecondScheduler } from '../../support/second-scheduler.ts';
import { createTFJob, deleteTFJob, getTFJob, jobEvents, jobPods, tfjob, waitForCondition, type TestTFJob } from '../../support/tfjob.ts';

const SECOND = 'second-scheduler';
const MISSING = 'no-such-scheduler';

type Specs = Record<string, { template: { spec: Record<string, unknown> } }>;

/** The job with `schedulerName` set on the named replica types' templates. */
function naming(job: TestTFJob, schedulerName: string, types?: readonly string[]): TestTFJob {
  for (const [type, r] of Object.entries(job.spec.tfReplicaSpecs as Specs)) {
    if (types === undefined || types.includes(type)) r.template.spec.schedulerName = schedulerName;
  }
  return job;
}

/** Every pod of the job bound to a node (what a scheduler does), and the count is `count`. */
async function boundPods(ns: string, job: string, count: number): Promise<V1Pod[]> {
  return eventually(
    async () => {
      const pods = await jobPods(ns, job);
      return pods.length === count && pods.every((p) => (p.spec?.nodeName ?? '') !== '') ? pods : false;
    },
    { timeoutMs: 90_000, what: `${count} bound pods of ${ns}/${job}` },
  );
}

/** Who bound each pod (the `Scheduled` event's reporting component). */
async function bindersOf(ns: string, pods: readonly V1Pod[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const p of pods) {
    const name = p.metadata?.name ?? '';
    out[name] = await eventually(async () => (await scheduledBy(ns, name)) ?? false, {
      timeoutMs: 30_000,
      what: `Scheduled event of ${name}`,
    });
  }
  return out;
}

let second: SecondScheduler;
beforeAll(async () => {
  second = await startSecondScheduler(SECOND);
});
afterAll(async () => {
  const alive = second.process.running;
  await second.stop();
  // A scheduler that died mid-run would make the waits above fail for the wrong reason.
  expect(alive, `${SECOND} exited early (log: ${second.process.logFile})`).toBe(true);
});

describe('a TFJob naming another scheduler (policy ours)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('named-sched');
    pool = await createPool('named', 1, { cpu: '16', memory: '64Gi' });
    operator = await startOperator(ns, ['--policy', 'ours', '--scheduling-interval', '1s', ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('is placed by that scheduler, outside our queue, saying so', async () => {
    await createTFJob(ns, naming(onPool(tfjob('named', { PS: 1, Worker: 2 }, { resources: { cpu: '1' } }), pool), SECOND));
    const pods = await boundPods(ns, 'named', 3);
    for (const p of pods) {
      expect(p.spec?.schedulerName).toBe(SECOND);
      expect(p.metadata?.annotations?.[ANNOTATION_PLACED_BY]).toBeUndefined();
      expect(p.metadata?.annotations?.[ANNOTATION_PLACED_NODE]).toBeUndefined();
    }
    expect(Object.values(await bindersOf(ns, pods))).toEqual([SECOND, SECOND, SECOND]);
    await waitForCondition(ns, 'named', 'Running', { timeoutMs: 60_000 });
    const status = await eventually(
      async () => {
        const s = (await getTFJob(ns, 'named')).status?.scheduling;
        return s?.queue === 'Running' ? s : false;
      },
      { timeoutMs: 30_000, what: 'status.scheduling Running' },
    );
    expect(status.reason).toBe('PlacedByScheduler');
    expect(status.message).toContain(`Worker "${SECOND}"`);
    expect(status.message).toContain('schedulerName');
    expect(status.workersSummary).toBe('2/2/2');
    const events = await eventually(
      async () => {
        const es = (await jobEvents(ns, 'named')).filter((e) => e.reason === 'PlacedByScheduler');
        return es.length > 0 ? es : false;
      },
      { timeoutMs: 30_000, what: 'the PlacedByScheduler event' },
    );
    expect(events[0]?.message).toContain(`PS "${SECOND}"`);
  }, 180_000);

  it('counts the pods that scheduler binds: our placements do not over-commit their node', async () => {
    // 16 cpu: the first job holds 3; this one 10 more, bound by the second scheduler.
    await createTFJob(ns, naming(onPool(tfjob('big-named', { Worker: 1 }, { resources: { cpu: '10' } }), pool), SECOND));
    await boundPods(ns, 'big-named', 1);
    // Its status is written from the operator's pod cache: once Running, that cache has the binding.
    await eventually(async () => (await getTFJob(ns, 'big-named')).status?.scheduling?.queue === 'Running', {
      timeoutMs: 60_000,
      what: "big-named Running in the operator's view",
    });
    // Ours: 4 cpu do not fit in the 3 left; it waits, with no pod.
    await createTFJob(ns, onPool(tfjob('ours', { Worker: 1 }, { resources: { cpu: '4' } }), pool));
    const waiting = await eventually(
      async () => {
        const s = (await getTFJob(ns, 'ours')).status?.scheduling;
        return s?.queue === 'Waiting' && s.reason !== undefined ? s : false;
      },
      { timeoutMs: 60_000, what: 'ours Waiting with a reason' },
    );
    expect(waiting.reason).not.toBe('PlacedByScheduler');
    expect(await jobPods(ns, 'ours')).toEqual([]);
    // Once the named scheduler's pod is gone, our operator places the job there.
    await deleteTFJob(ns, 'big-named', 'Foreground');
    await waitForCondition(ns, 'ours', 'Running', { timeoutMs: 120_000 });
    const [pod] = await jobPods(ns, 'ours');
    expect(pod?.spec?.nodeName).toBe(pool.nodes[0]);
    expect(pod?.metadata?.annotations?.[ANNOTATION_PLACED_BY]).toBe('ours');
  }, 240_000);

  it('mixed templates: each replica goes to the scheduler its template names', async () => {
    await createTFJob(ns, naming(onPool(tfjob('mixed', { PS: 1, Worker: 1 }, { resources: { cpu: '1' } }), pool), SECOND, ['Worker']));
    const pods = await boundPods(ns, 'mixed', 2);
    expect(await bindersOf(ns, pods)).toEqual({ 'mixed-ps-0': 'default-scheduler', 'mixed-worker-0': SECOND });
    const s = (await getTFJob(ns, 'mixed')).status?.scheduling;
    expect(s?.reason).toBe('PlacedByScheduler');
    expect(s?.message).toContain(`PS "default-scheduler", Worker "${SECOND}"`);
  }, 180_000);

  it('a scheduler that does not exist: the job waits with the reason, and our operator does not place it', async () => {
    await createTFJob(ns, naming(onPool(tfjob('nowhere', { Worker: 1 }, { resources: { cpu: '1' } }), pool), MISSING));
    const status = await eventually(
      async () => {
        const s = (await getTFJob(ns, 'nowhere')).status?.scheduling;
        return s !== undefined && String(s.message).includes('1 of 1 pods not bound') ? s : false;
      },
      { timeoutMs: 60_000, what: 'nowhere waiting for its scheduler' },
    );
    expect(status.queue).toBe('Waiting');
    expect(status.reason).toBe('PlacedByScheduler');
    expect(status.message).toContain(`Worker "${MISSING}"`);
    // A job created after it is placed by our operator: passes ran since its pod exists.
    await createTFJob(ns, onPool(tfjob('witness', { Worker: 1 }, { resources: { cpu: '1' } }), pool));
    await waitForCondition(ns, 'witness', 'Running', { timeoutMs: 60_000 });
    const [pod] = await jobPods(ns, 'nowhere');
    expect(pod?.spec?.nodeName).toBeUndefined();
    expect(pod?.spec?.schedulerName).toBe(MISSING);
    expect(pod?.metadata?.annotations?.[ANNOTATION_PLACED_NODE]).toBeUndefined();
    expect(pod?.status?.phase).toBe('Pending');
  }, 180_000);
});

describe('a TFJob naming another scheduler (policy tf-operator)', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('named-sched-tfop');
    pool = await createPool('named-tfop', 1, { cpu: '16', memory: '64Gi' });
    operator = await startOperator(ns, ['--policy', 'tf-operator']);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  it('passes the template through: that scheduler binds the pods; one that does not exist leaves them Pending', async () => {
    await createTFJob(ns, naming(onPool(tfjob('named', { PS: 1, Worker: 1 }, { resources: { cpu: '1' } }), pool), SECOND, ['Worker']));
    await createTFJob(ns, naming(onPool(tfjob('nowhere', { Worker: 1 }, { resources: { cpu: '1' } }), pool), MISSING));
    const pods = await boundPods(ns, 'named', 2);
    expect(await bindersOf(ns, pods)).toEqual({ 'named-ps-0': 'default-scheduler', 'named-worker-0': SECOND });
    await waitForCondition(ns, 'named', 'Running', { timeoutMs: 60_000 });
    // Both jobs' pods were created in the same reconciles' time; the bound ones prove schedulers ran.
    const [pod] = await eventually(
      async () => {
        const p = await jobPods(ns, 'nowhere');
        return p.length === 1 ? p : false;
      },
      { what: 'the pod of nowhere' },
    );
    expect(pod?.spec?.nodeName).toBeUndefined();
    expect(pod?.spec?.schedulerName).toBe(MISSING);
    expect(pod?.status?.phase).toBe('Pending');
    // tf-operator mode writes no status.scheduling (as tf-operator): the pod's Pending is the answer.
    expect((await getTFJob(ns, 'nowhere')).status?.scheduling).toBeUndefined();
  }, 180_000);
});
