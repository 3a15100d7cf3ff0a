import { describe, expect, it } from 'vitest';
import type { JobCondition } from '../../../../src/api/v1/schema.ts';
import { updateConditions } from '../../../../src/reconciler/tfjob/conditions.ts';
import type { ReplicaCounts } from '../../../../src/reconciler/tfjob/replica-status.ts';
import { decideJobStatus, isWorker0Completed, isWorker0Failed } from '../../../../src/reconciler/tfjob/status-decision.ts';
import { at, newPod } from './builders.ts';

interface Row {
  name: string;
  replicas: Record<string, number>;
  counts: Record<string, Partial<ReplicaCounts>>;
  successPolicy?: string;
  worker0Completed?: boolean;
  restarting?: boolean;
  expected: string;
}

const counts = (c: Partial<ReplicaCounts>): ReplicaCounts => ({
  active: c.active ?? 0,
  succeeded: c.succeeded ?? 0,
  failed: c.failed ?? 0,
});

function decide(row: Row) {
  let conditions: readonly JobCondition[] = updateConditions([], 'Created', 'True', 'TFJobCreated', 'TFJob test-tfjob is created.', at(0));
  if (row.restarting) {
    conditions = updateConditions(
      conditions,
      'Restarting',
      'True',
      'TFJobRestarting',
      'job test-tfjob is restarting because Chief replica(s) failed.',
      at(0),
    );
  }
  return decideJobStatus({
    name: 'test-tfjob',
    namespace: 'default',
    replicas: row.replicas,
    counts: Object.fromEntries(Object.entries(row.counts).map(([t, c]) => [t, counts(c)])),
    successPolicy: row.successPolicy ?? '',
    tolerateWorkerFailures: false,
    worker0FailureFailsJob: false,
    worker0Completed: row.worker0Completed ?? false,
    worker0Failed: false,
    conditions,
    now: at(10),
  });
}

/** A job whose Worker failures are tolerated (dynamic or elastic workers), before its replicas are set. */
const TOLERANT = {
  name: 'test-tfjob',
  namespace: 'default',
  successPolicy: '',
  worker0Completed: false,
  conditions: [],
  now: at(1),
  tolerateWorkerFailures: true,
};

// compat §5.1 item 20 (status_test.go "Test Status"): the expected condition type must be present.
const rows: Row[] = [
  { name: 'Chief succeeded', replicas: { Chief: 1 }, counts: { Chief: { succeeded: 1 } }, expected: 'Succeeded' },
  { name: 'Chief running', replicas: { Chief: 1 }, counts: { Chief: { active: 1 } }, expected: 'Running' },
  { name: 'Chief failed', replicas: { Chief: 1 }, counts: { Chief: { failed: 1 } }, expected: 'Failed' },
  { name: '(no chief) Worker failed', replicas: { Worker: 1 }, counts: { Worker: { failed: 1 } }, expected: 'Failed' },
  {
    name: '(no chief) Worker succeeded',
    replicas: { Worker: 1 },
    counts: { Worker: { succeeded: 1 } },
    worker0Completed: true,
    expected: 'Succeeded',
  },
  { name: '(no chief) Worker running', replicas: { Worker: 1 }, counts: { Worker: { active: 1 } }, expected: 'Running' },
  { name: '2 succeeded + 2 active', replicas: { Worker: 4 }, counts: { Worker: { succeeded: 2, active: 2 } }, expected: 'Running' },
  { name: '2 running + 2 failed', replicas: { Worker: 4 }, counts: { Worker: { active: 2, failed: 2 } }, expected: 'Failed' },
  { name: '2 succeeded + 2 failed', replicas: { Worker: 4 }, counts: { Worker: { succeeded: 2, failed: 2 } }, expected: 'Failed' },
  {
    name: 'worker-0 succeeded + 3 active',
    replicas: { Worker: 4 },
    counts: { Worker: { succeeded: 1, active: 3 } },
    worker0Completed: true,
    expected: 'Succeeded',
  },
  {
    name: 'AllWorkers: worker-0 succeeded + 3 active',
    replicas: { Worker: 4 },
    counts: { Worker: { succeeded: 1, active: 3 } },
    worker0Completed: true,
    successPolicy: 'AllWorkers',
    expected: 'Running',
  },
  {
    name: 'AllWorkers: 4 succeeded',
    replicas: { Worker: 4 },
    counts: { Worker: { succeeded: 4 } },
    worker0Completed: true,
    successPolicy: 'AllWorkers',
    expected: 'Succeeded',
  },
  {
    name: 'AllWorkers: worker-0 succeeded, 2 running, 1 failed',
    replicas: { Worker: 4 },
    counts: { Worker: { succeeded: 1, active: 2, failed: 1 } },
    worker0Completed: true,
    successPolicy: 'AllWorkers',
    expected: 'Failed',
  },
  {
    name: 'Chief running + workers failed',
    replicas: { Chief: 1, Worker: 4 },
    counts: { Chief: { active: 1 }, Worker: { failed: 4 } },
    expected: 'Running',
  },
  {
    name: 'Chief running + workers succeeded',
    replicas: { Chief: 1, Worker: 4 },
    counts: { Chief: { active: 1 }, Worker: { succeeded: 4 } },
    expected: 'Running',
  },
  {
    name: 'Chief running + a PS failed',
    replicas: { Chief: 1, PS: 2, Worker: 2 },
    counts: { Chief: { active: 1 }, PS: { active: 1, failed: 1 }, Worker: { active: 2 } },
    expected: 'Failed',
  },
  {
    name: 'Chief failed + workers succeeded',
    replicas: { Chief: 1, Worker: 4 },
    counts: { Chief: { failed: 1 }, Worker: { succeeded: 4 } },
    expected: 'Failed',
  },
  {
    name: 'Chief succeeded + workers failed',
    replicas: { Chief: 1, Worker: 4 },
    counts: { Chief: { succeeded: 1 }, Worker: { failed: 4 } },
    expected: 'Succeeded',
  },
  {
    name: 'Chief failed with ExitCode 130 (restarting)',
    replicas: { Chief: 1 },
    counts: { Chief: { failed: 1 } },
    restarting: true,
    expected: 'Restarting',
  },
];

describe('status decision table (compat §5.1 item 20)', () => {
  // As in status_test.go: a condition of the expected type is in the list (whatever its status).
  it.each(rows)('$name → $expected present', (row) => {
    const decision = decide(row);
    expect(decision.conditions.map((c) => c.type)).toContain(row.expected);
  });

  it('quirk: Chief running + workers failed also fails the job (Failed last)', () => {
    const decision = decide(rows.find((r) => r.name === 'Chief running + workers failed')!);
    expect(decision.conditions.map((c) => [c.type, c.status])).toEqual([
      ['Created', 'True'],
      ['Running', 'False'],
      ['Failed', 'True'],
    ]);
    expect(decision.conditions.at(-1)?.message).toBe('TFJob default/test-tfjob has failed because 4 Worker replica(s) failed.');
  });

  it('quirk: Chief succeeded + workers failed ends with both Succeeded and Failed', () => {
    const decision = decide(rows.find((r) => r.name === 'Chief succeeded + workers failed')!);
    expect(decision.conditions.map((c) => c.type)).toEqual(['Created', 'Succeeded', 'Failed']);
  });

  it('restarting keeps the job from failing and leaves no Failed condition', () => {
    const decision = decide(rows.find((r) => r.restarting)!);
    expect(decision.conditions.some((c) => c.type === 'Failed')).toBe(false);
    expect(decision.completionTime).toBeUndefined();
  });

  it('sets startTime on the first decision, completionTime on success or failure, with exact messages and events', () => {
    const decision = decide({
      name: '',
      replicas: { Worker: 1 },
      counts: { Worker: { succeeded: 1 } },
      worker0Completed: true,
      expected: '',
    });
    expect(decision.startTime).toBe('2024-09-10T10:00:10Z');
    expect(decision.completionTime).toBe('2024-09-10T10:00:10Z');
    expect(decision.conditions.at(-1)).toMatchObject({
      reason: 'TFJobSucceeded',
      message: 'TFJob default/test-tfjob successfully completed.',
    });
    expect(decision.events).toEqual([
      { type: 'Normal', reason: 'TFJobSucceeded', message: 'TFJob default/test-tfjob successfully completed.' },
    ]);
  });

  it('PS never drives Running; a PS/Evaluator-only job never runs or succeeds', () => {
    const decision = decide({
      name: '',
      replicas: { PS: 1, Evaluator: 1 },
      counts: { PS: { active: 1 }, Evaluator: { succeeded: 1 } },
      expected: '',
    });
    expect(decision.conditions.map((c) => c.type)).toEqual(['Created']);
  });

  it('dynamic workers: Worker failures do not fail the job, PS failures still do', () => {
    const base = { ...TOLERANT, worker0FailureFailsJob: false, worker0Failed: false };
    const workerFailed = decideJobStatus({
      ...base,
      replicas: { PS: 1, Worker: 3 },
      counts: { PS: counts({ active: 1 }), Worker: counts({ active: 2, failed: 1 }) },
    });
    expect(workerFailed.conditions.map((c) => c.type)).toEqual(['Running']);
    const psFailed = decideJobStatus({
      ...base,
      replicas: { PS: 1, Worker: 3 },
      counts: { PS: counts({ failed: 1 }), Worker: counts({ active: 3 }) },
    });
    // PS is decided before Worker; once Failed is set the Running update is a no-op.
    expect(psFailed.conditions.map((c) => c.type)).toEqual(['Failed']);
  });
});

describe('elastic jobs: worker 0 failing for good fails a job whose chief it is', () => {
  const base = { ...TOLERANT, worker0FailureFailsJob: true };
  it('worker 1 failed, worker 0 running → still Running', () => {
    const d = decideJobStatus({
      ...base,
      worker0Failed: false,
      replicas: { PS: 1, Worker: 3 },
      counts: { PS: counts({ active: 1 }), Worker: counts({ active: 2, failed: 1 }) },
    });
    expect(d.conditions.map((c) => c.type)).toEqual(['Running']);
  });
  it('worker 0 failed, no Chief → Failed, with the Worker failure message', () => {
    const d = decideJobStatus({
      ...base,
      worker0Failed: true,
      replicas: { Worker: 3 },
      counts: { Worker: counts({ active: 1, failed: 2 }) },
    });
    expect(d.conditions.at(-1)?.type).toBe('Failed');
    expect(d.conditions.at(-1)?.message).toBe('TFJob default/test-tfjob has failed because 2 Worker replica(s) failed.');
  });
  it('worker 0 failed next to a Chief → tolerated (the chief decides)', () => {
    const d = decideJobStatus({
      ...base,
      worker0Failed: true,
      replicas: { Chief: 1, PS: 1, Worker: 3 },
      counts: { Chief: counts({ active: 1 }), PS: counts({ active: 1 }), Worker: counts({ active: 2, failed: 1 }) },
    });
    expect(d.conditions.map((c) => c.type)).toEqual(['Running']);
  });
  it("tf-operator's dynamic workers (not elastic) keep tolerating worker 0", () => {
    const d = decideJobStatus({
      ...base,
      worker0FailureFailsJob: false,
      worker0Failed: true,
      replicas: { PS: 1, Worker: 3 },
      counts: { PS: counts({ active: 1 }), Worker: counts({ active: 2, failed: 1 }) },
    });
    expect(d.conditions.map((c) => c.type)).toEqual(['Running']);
  });
  it('isWorker0Failed reads the pod with index 0', () => {
    expect(isWorker0Failed([newPod('Worker', 0, { phase: 'Failed', exitCode: 1 }), newPod('Worker', 1, { phase: 'Running' })])).toBe(true);
    expect(isWorker0Failed([newPod('Worker', 0, { phase: 'Running' }), newPod('Worker', 1, { phase: 'Failed', exitCode: 1 })])).toBe(false);
  });
});

describe('isWorker0Completed (compat §5.1 item 18)', () => {
  it('1 worker running (+PS) → false', () => {
    expect(isWorker0Completed(true, [newPod('Worker', 0, { phase: 'Running' })])).toBe(false);
  });
  it('1 worker succeeded → true', () => {
    expect(isWorker0Completed(true, [newPod('Worker', 0, { phase: 'Succeeded', exitCode: 0 })])).toBe(true);
  });
  it('Master-only and Chief-only jobs → true (no Worker spec)', () => {
    expect(isWorker0Completed(false, [])).toBe(true);
  });
  it('2 workers: index 0 succeeded, index 1 failed → true', () => {
    expect(
      isWorker0Completed(true, [
        newPod('Worker', 0, { phase: 'Succeeded', exitCode: 0 }),
        newPod('Worker', 1, { phase: 'Failed', exitCode: 1 }),
      ]),
    ).toBe(true);
  });
  it('2 workers: index 0 failed, index 1 running → false', () => {
    expect(
      isWorker0Completed(true, [newPod('Worker', 0, { phase: 'Failed', exitCode: 1 }), newPod('Worker', 1, { phase: 'Running' })]),
    ).toBe(false);
  });
  it('a succeeded pod whose tensorflow container exited non-zero is not completed', () => {
    expect(isWorker0Completed(true, [newPod('Worker', 0, { phase: 'Succeeded', exitCode: 3 })])).toBe(false);
  });
});
