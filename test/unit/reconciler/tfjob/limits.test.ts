import { describe, expect, it } from 'vitest';
import { countRestarts, exceedsBackoffLimit, pastBackoffLimit } from '../../../../src/reconciler/tfjob/backoff.ts';
import { pastActiveDeadline, untilActiveDeadline, ttlDecision } from '../../../../src/reconciler/tfjob/time-limits.ts';
import { at, newPod, pods } from './builders.ts';

describe('backoffLimit (TestPastBackoffLimit, compat §2.8)', () => {
  const onFailure = { Worker: { restartPolicy: 'OnFailure' } };

  it('limit 0 with any restart → past', () => {
    const restarts = countRestarts(onFailure, [newPod('Worker', 0, { phase: 'Running', restartCount: 1 })]);
    expect(restarts).toBe(1);
    expect(pastBackoffLimit(0, restarts)).toBe(true);
    expect(pastBackoffLimit(0, 0)).toBe(false);
  });

  it('limit 3: past at 3 restarts, not at 2', () => {
    expect(pastBackoffLimit(3, 2)).toBe(false);
    expect(pastBackoffLimit(3, 3)).toBe(true);
    expect(pastBackoffLimit(undefined, 100)).toBe(false);
  });

  it('Test Backoff For On Failure: 4 running workers with one restart each reach limit 4', () => {
    const observed = [...pods('Worker', 4, 'Running', 0, { restartCount: 1 }), ...pods('PS', 2, 'Running')];
    expect(countRestarts({ ...onFailure, PS: { restartPolicy: 'Never' } }, observed)).toBe(4);
    expect(pastBackoffLimit(4, 4)).toBe(true);
  });

  it('counts only Running pods of types whose policy restarts, init containers included', () => {
    const running = newPod('Worker', 0, { phase: 'Running', restartCount: 2 });
    running.status!.initContainerStatuses = [{ name: 'init', image: 'x', imageID: '', ready: true, restartCount: 1 }];
    const observed = [
      running,
      newPod('Worker', 1, { phase: 'Failed', restartCount: 5 }),
      newPod('PS', 0, { phase: 'Running', restartCount: 7 }),
    ];
    expect(countRestarts({ Worker: { restartPolicy: 'OnFailure' }, PS: { restartPolicy: 'Never' } }, observed)).toBe(3);
  });

  it('ours: operator recreations count for restarting types (ExitCode restarts are bounded)', () => {
    expect(countRestarts({ Worker: { restartPolicy: 'ExitCode' } }, [], { Worker: 3 })).toBe(3);
    expect(countRestarts({ Worker: { restartPolicy: 'Never' } }, [], { Worker: 3 })).toBe(0);
  });

  it('exceedsBackoffLimit fires only for limit 0 on a new failure while not all replicas are active', () => {
    const observed = [newPod('Worker', 0, { phase: 'Failed', exitCode: 1 }), newPod('Worker', 1, { phase: 'Running' })];
    expect(exceedsBackoffLimit(0, observed, 0, 2)).toBe(true);
    expect(exceedsBackoffLimit(0, observed, 1, 2)).toBe(false); // failure already in status
    expect(exceedsBackoffLimit(1, observed, 0, 2)).toBe(false); // requeues are never counted
    expect(exceedsBackoffLimit(undefined, observed, 0, 2)).toBe(false);
  });

  it('pods removed by our scheduler are not failures for the backoff check', () => {
    const observed = [
      newPod('Worker', 1, { phase: 'Failed', exitCode: 143, removal: 'preemption' }),
      newPod('Worker', 0, { phase: 'Running' }),
    ];
    expect(exceedsBackoffLimit(0, observed, 0, 2)).toBe(false);
  });
});

describe('activeDeadlineSeconds (TestPastActiveDeadline, compat §2.9)', () => {
  const start = '2024-09-10T10:00:00Z';
  it('0 → past immediately', () => {
    expect(pastActiveDeadline(0, start, at(0))).toBe(true);
  });
  it('2 → not past immediately, past after 2 s', () => {
    expect(pastActiveDeadline(2, start, at(0))).toBe(false);
    expect(pastActiveDeadline(2, start, at(2))).toBe(true);
  });
  it('unset, or no startTime → never', () => {
    expect(pastActiveDeadline(undefined, start, at(1000))).toBe(false);
    expect(pastActiveDeadline(5, undefined, at(1000))).toBe(false);
  });
  it('ours: time to requeue at the deadline', () => {
    expect(untilActiveDeadline(600, start, at(100))).toBe(500_000);
    expect(untilActiveDeadline(600, start, at(700))).toBe(0);
    expect(untilActiveDeadline(undefined, start, at(1))).toBeUndefined();
  });
});

describe('ttlSecondsAfterFinished (CleanupJob tests, compat §5.1 item 9)', () => {
  const completed = '2024-09-10T10:00:00Z';
  it('TTL nil → kept', () => {
    expect(ttlDecision(undefined, false, completed, at(10))).toEqual({ kind: 'keep' });
  });
  it('suspended with TTL → kept', () => {
    expect(ttlDecision(10, true, undefined, at(10))).toEqual({ kind: 'keep' });
  });
  it('TTL 180, completed a day ago → deleted', () => {
    expect(ttlDecision(180, false, completed, at(86_400))).toEqual({ kind: 'delete' });
  });
  it('TTL 0, completed now → deleted', () => {
    expect(ttlDecision(0, false, completed, at(0))).toEqual({ kind: 'delete' });
  });
  it('TTL 3, completed 1 s ago → requeue after 2 s', () => {
    expect(ttlDecision(3, false, completed, at(1))).toEqual({ kind: 'requeue', afterMs: 2000 });
  });
  it('no completionTime → kept (the reconciler always sets one on finish)', () => {
    expect(ttlDecision(10, false, undefined, at(1))).toEqual({ kind: 'keep' });
  });
});
