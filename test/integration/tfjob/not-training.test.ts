// NotTraining on the local control plane: kwok pods run but print nothing, so a job that declares a
// training style gets status.progress.notTraining and one NotTraining warning per verdict once its
// pods have all run for --not-training-after (5 s here); a job that declares none (it may simply not
// report progress) is never judged.
import type { CoreV1Event } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { coreApi, createTFJob, getTFJob, jobEvents, tfjob, waitForPods, type TestTFJob } from '../../support/tfjob.ts';

const STYLE = 'tfjob-operator.kubeflow.org/training-style';

interface Verdict {
  since: string;
  reason: string;
  message: string;
}

const verdictOf = (j: TestTFJob): Verdict | undefined =>
  ((j.status as { progress?: { notTraining?: Verdict } } | undefined)?.progress ?? {}).notTraining;

/** NotTraining warnings said so far (an event repeated by the recorder counts each time). */
const warnings = (events: readonly CoreV1Event[]): number =>
  events.filter((e) => e.reason === 'NotTraining').reduce((n, e) => n + (e.count ?? 1), 0);

describe('NotTraining: every pod runs, no progress', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('nottrain');
    pool = await createPool('nottrain', 1, { cpu: '8', memory: '16Gi' });
    operator = await startOperator(ns, [
      '--policy',
      'ours',
      '--scheduling-interval',
      '1s',
      '--not-training-after',
      '5s',
      ...pool.operatorFlags,
    ]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  function job(name: string, style?: string): TestTFJob {
    const j = onPool(tfjob(name, { PS: 1, Worker: 2 }, { restartPolicy: 'OnFailure', resources: { cpu: '1' } }), pool);
    return style === undefined ? j : { ...j, metadata: { ...j.metadata, annotations: { [STYLE]: style } } };
  }

  it('judges a job that declares a style once per verdict, and never one that declares none', async () => {
    await createTFJob(ns, job('declared', 'PS'));
    await createTFJob(ns, job('undeclared'));
    await waitForPods(ns, 'declared', 3);
    await waitForPods(ns, 'undeclared', 3);

    const first = await eventually(async () => verdictOf(await getTFJob(ns, 'declared')) ?? false, {
      timeoutMs: 90_000,
      what: 'declared gets status.progress.notTraining',
    });
    expect(first.reason).toBe('NoProgress');
    expect(first.message).toMatch(/^no progress line for over 5s since its last pod became Running at /);
    await eventually(async () => warnings(await jobEvents(ns, 'declared')) === 1, { timeoutMs: 60_000, what: 'one NotTraining event' });

    // A worker deleted by hand comes back and starts later: a new silence, so a new verdict and one
    // more warning, however many reconciles the deletion, creation and start caused meanwhile.
    await coreApi().deleteNamespacedPod({ namespace: ns, name: 'declared-worker-1' });
    const second = await eventually(
      async () => {
        const v = verdictOf(await getTFJob(ns, 'declared'));
        return v !== undefined && v.since !== first.since ? v : false;
      },
      { timeoutMs: 120_000, what: 'a second verdict after the worker came back' },
    );
    expect(Date.parse(second.since)).toBeGreaterThan(Date.parse(first.since));
    await eventually(async () => warnings(await jobEvents(ns, 'declared')) === 2, {
      timeoutMs: 60_000,
      what: 'a second NotTraining event',
    });

    // The undeclared job ran as long without printing either (its pods started before the second
    // verdict's silence began): it is not judged.
    const undeclared = await getTFJob(ns, 'undeclared');
    expect(verdictOf(undeclared)).toBeUndefined();
    expect(warnings(await jobEvents(ns, 'undeclared'))).toBe(0);
    // Still one warning per verdict.
    expect(warnings(await jobEvents(ns, 'declared'))).toBe(2);
  }, 360_000);
});
