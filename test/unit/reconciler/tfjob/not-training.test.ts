// NotTraining: the verdict from times, pods and the last progress line (pure), and how a reconcile
// writes it into status.progress, says it once, clears it and comes back when it falls due.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/api/v1/k8s-types.ts';
import { toTFJobEntry } from '../../../../src/api/v1/parse.ts';
import type { NotTraining } from '../../../../src/api/v1/schema.ts';
import { judgeTraining, runningSince, type TrainingFacts } from '../../../../src/reconciler/tfjob/not-training.ts';
import { reconcileTFJob } from '../../../../src/reconciler/tfjob/reconcile.ts';
import { T0, at, newPod, newTFJob, services } from './builders.ts';

const MIN = 60_000;
const STYLE = 'tfjob-operator.kubeflow.org/training-style';

/** A pod whose tensorflow container started `startedMs` after T0. */
function started(type: string, index: number, startedMs: number, phase = 'Running'): Pod {
  const pod = newPod(type, index, { phase });
  const status = pod.status!.containerStatuses![0]!;
  return {
    ...pod,
    status: {
      ...pod.status,
      containerStatuses: [{ ...status, state: { running: { startedAt: new Date(T0.getTime() + startedMs) } } }],
    },
  };
}

function facts(overrides: Partial<TrainingFacts>): TrainingFacts {
  return {
    now: T0.getTime() + 20 * MIN,
    thresholdMs: 10 * MIN,
    pods: [started('PS', 0, 0), started('Worker', 0, 0), started('Worker', 1, MIN)],
    style: undefined,
    workerSlots: 2,
    lastProgressAt: undefined,
    previous: undefined,
    ...overrides,
  };
}

describe('judgeTraining (pure)', () => {
  it('judges nothing for a job that never printed and declares no style: it may just not report', () => {
    expect(judgeTraining(facts({}))).toEqual({ events: [] });
  });

  it('gives a declared-style job that never printed a NoProgress verdict, silence measured from its last pod Running', () => {
    const j = judgeTraining(facts({ style: 'PS' }));
    expect(j.verdict).toEqual({
      since: '2024-09-10T10:01:00Z',
      reason: 'NoProgress',
      message: 'no progress line for over 10m since its last pod became Running at 2024-09-10T10:01:00Z',
    });
    expect(j.events).toEqual([{ type: 'Warning', reason: 'NotTraining', message: j.verdict!.message }]);
  });

  it('measures from the last progress line when it is later than the pods starting', () => {
    const quiet = judgeTraining(facts({ lastProgressAt: T0.getTime() + 9 * MIN }));
    expect(quiet.verdict?.since).toBe('2024-09-10T10:09:00Z');
    expect(quiet.verdict?.message).toBe('no progress line for over 10m since the last one at 2024-09-10T10:09:00Z');
    // Eleven minutes after its pods started, one minute after its last line: not due yet, come back in 9 min (+1 s).
    const early = judgeTraining(facts({ now: T0.getTime() + 11 * MIN, lastProgressAt: T0.getTime() + 10 * MIN }));
    expect(early).toEqual({ events: [], recheckAfterMs: 9 * MIN + 1_000 });
  });

  it('measures from the last pod Running when a pod started after the last line (a restarted worker)', () => {
    const j = judgeTraining(
      facts({ now: T0.getTime() + 15 * MIN, lastProgressAt: T0.getTime(), pods: [started('Worker', 0, 0), started('Worker', 1, 8 * MIN)] }),
    );
    expect(j.verdict).toBeUndefined();
    expect(j.recheckAfterMs).toBe(3 * MIN + 1_000);
  });

  it('says a ParameterServerStrategy chief waits for its missing worker slots', () => {
    const j = judgeTraining(
      facts({
        style: 'ParameterServerStrategy',
        workerSlots: 4,
        pods: [started('Chief', 0, 0), started('Worker', 0, 0), started('Worker', 1, 0)],
      }),
    );
    expect(j.verdict).toEqual({
      since: '2024-09-10T10:00:00Z',
      reason: 'WaitingForWorkers',
      message:
        'ParameterServerStrategy waits for every worker slot TF_CONFIG lists: 2 of 4 worker pods Running; no progress line for over 10m since its last pod became Running at 2024-09-10T10:00:00Z',
    });
  });

  it('hints at the strategies that wait when an undeclared job that printed has fewer worker pods than slots', () => {
    const j = judgeTraining(facts({ workerSlots: 3, lastProgressAt: T0.getTime() }));
    expect(j.verdict?.reason).toBe('NoProgress');
    expect(j.verdict?.message).toContain(
      '2 of 3 worker pods Running (a ParameterServerStrategy or MultiWorkerMirroredStrategy chief waits for every slot)',
    );
  });

  it('does not judge while a pod is not Running (Pending, or without a start time)', () => {
    expect(judgeTraining(facts({ style: 'PS', pods: [started('Worker', 0, 0), newPod('Worker', 1, { phase: 'Pending' })] }))).toEqual({
      events: [],
    });
    expect(judgeTraining(facts({ style: 'PS', pods: [newPod('Worker', 0, { phase: 'Running' })] }))).toEqual({ events: [] });
    expect(judgeTraining(facts({ style: 'PS', pods: [] }))).toEqual({ events: [] });
  });

  it('ignores finished, terminating and removed pods', () => {
    const done = newPod('Worker', 2, { phase: 'Failed', exitCode: 1 });
    const leaving = { ...started('Worker', 3, 15 * MIN), metadata: { ...started('Worker', 3, 15 * MIN).metadata, deletionTimestamp: T0 } };
    expect(judgeTraining(facts({ style: 'PS', pods: [started('Worker', 0, 0), done, leaving] })).verdict?.since).toBe(
      '2024-09-10T10:00:00Z',
    );
  });

  it('is off at threshold 0', () => {
    expect(judgeTraining(facts({ style: 'PS', thresholdMs: 0 }))).toEqual({ events: [] });
  });

  it('warns once per verdict: the same verdict stored again is said no more', () => {
    const first = judgeTraining(facts({ style: 'PS' }));
    const again = judgeTraining(facts({ style: 'PS', now: T0.getTime() + 40 * MIN, previous: first.verdict }));
    expect(again.verdict).toEqual(first.verdict);
    expect(again.events).toEqual([]);
  });

  it('clears the verdict with a TrainingResumed event when a progress line comes', () => {
    const previous: NotTraining = { since: '2024-09-10T10:01:00Z', reason: 'NoProgress', message: 'x' };
    const j = judgeTraining(facts({ style: 'PS', previous, lastProgressAt: T0.getTime() + 19 * MIN }));
    expect(j.verdict).toBeUndefined();
    expect(j.events).toEqual([
      { type: 'Normal', reason: 'TrainingResumed', message: 'A progress line came at 2024-09-10T10:19:00Z, after 18m without one' },
    ]);
  });

  it('clears the verdict without an event when the pods changed (a pod restarting is no news of training)', () => {
    const previous: NotTraining = { since: '2024-09-10T10:01:00Z', reason: 'NoProgress', message: 'x' };
    const j = judgeTraining(facts({ style: 'PS', previous, pods: [started('Worker', 0, 0), newPod('Worker', 1, { phase: 'Pending' })] }));
    expect(j).toEqual({ events: [] });
  });

  it('reads a pod without container start times by its Ready condition', () => {
    const pod = newPod('Worker', 0, { phase: 'Running' });
    const ready = {
      ...pod,
      status: {
        ...pod.status,
        containerStatuses: [],
        conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: new Date(T0.getTime() + 5_000) }],
      },
    };
    expect(runningSince(ready)).toBe(T0.getTime() + 5_000);
  });
});

describe('NotTraining in a reconcile', () => {
  const running = {
    conditions: [
      { type: 'Created', status: 'True' },
      { type: 'Running', status: 'True' },
    ],
  };
  const job = (status: Record<string, unknown> = running) => newTFJob(2, 1, { annotations: { [STYLE]: 'PS' }, status });
  const pods = [started('PS', 0, 0), started('Worker', 0, 0), started('Worker', 1, MIN)];
  const reconcile = (raw: Record<string, unknown>, seconds: number, threshold = 10 * MIN) =>
    reconcileTFJob({
      job: toTFJobEntry(raw),
      pods,
      services: [...services('PS', 1), ...services('Worker', 2)],
      now: at(seconds),
      options: { notTrainingAfterMs: threshold },
    });

  it('comes back when the verdict falls due, then writes it into status.progress with one Warning event', () => {
    const early = reconcile(job(), 5 * 60);
    expect(early.status.progress).toBeUndefined();
    expect(early.requeueAfterMs).toBe(6 * MIN + 1_000);
    const due = reconcile(job(), 12 * 60);
    expect(due.status.progress?.notTraining?.reason).toBe('NoProgress');
    expect(due.statusChanged).toBe(true);
    expect(due.events.filter((e) => e.reason === 'NotTraining')).toHaveLength(1);
    const stored = reconcile(job(due.status), 13 * 60);
    expect(stored.events.filter((e) => e.reason === 'NotTraining')).toEqual([]);
    expect(stored.statusChanged).toBe(false);
  });

  it('is off by default, and a finished job loses the verdict but keeps its progress', () => {
    const off = reconcileTFJob({ job: toTFJobEntry(job()), pods, services: [], now: at(60 * 60) });
    expect(off.status.progress).toBeUndefined();
    const verdict = { since: '2024-09-10T10:01:00Z', reason: 'NoProgress', message: 'x' };
    const done = {
      conditions: [...running.conditions, { type: 'Succeeded', status: 'True' }],
      progress: { phase: 'Converged', notTraining: verdict },
    };
    const finished = reconcile(job(done), 60 * 60);
    expect(finished.status.progress).toEqual({ phase: 'Converged' });
  });
});
