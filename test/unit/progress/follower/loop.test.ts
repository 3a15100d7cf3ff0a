import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/api/v1/k8s-types.ts';
import { toTFJobEntry, type TFJobEntry } from '../../../../src/api/v1/parse.ts';
import { ProgressLoop, progressStatus, progressTarget, type ProgressRounds } from '../../../../src/progress/follower/loop.ts';
import type { ProgressTarget, RoundReport } from '../../../../src/progress/follower/reader.ts';
import type { MeasuredRate, ProgressView } from '../../../../src/progress/signals/index.ts';
import { Registry } from 'prom-client';
import { ProgressMetrics } from '../../../../src/progress/follower/metrics.ts';
import { silentLogger } from '../../../../src/runtime/logger.ts';
import { parseMetrics, sumOf } from '../../../support/prometheus.ts';

const T0 = Date.UTC(2026, 10, 25);

function job(
  name: string,
  opts: { annotation?: string; finished?: boolean; chief?: boolean; qoe?: Record<string, number> } = {},
): TFJobEntry {
  const replica = { replicas: 1, template: { spec: { containers: [{ name: 'tensorflow', image: 'tf' }] } } };
  return toTFJobEntry({
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: {
      name,
      namespace: 'ns',
      uid: `${name}-uid`,
      ...(opts.annotation === undefined ? {} : { annotations: { 'tfjob-operator.kubeflow.org/progress-replica': opts.annotation } }),
    },
    spec: {
      tfReplicaSpecs: { ...(opts.chief === true ? { Chief: replica } : {}), Worker: { ...replica, replicas: 2 }, PS: replica },
      ...(opts.qoe === undefined ? {} : { qoe: opts.qoe }),
    },
    ...(opts.finished === true ? { status: { conditions: [{ type: 'Succeeded', status: 'True' }] } } : {}),
  });
}

function pod(name: string, jobName: string, phase = 'Running'): Pod {
  const type = /-(worker|ps|chief)-\d+$/.exec(name)?.[1] ?? 'worker';
  return {
    metadata: {
      name,
      namespace: 'ns',
      uid: `${name}-uid`,
      labels: { 'training.kubeflow.org/replica-type': type },
      ownerReferences: [{ apiVersion: 'kubeflow.org/v1', kind: 'TFJob', name: jobName, uid: `${jobName}-uid`, controller: true }],
    },
    status: { phase },
  };
}

const view = (phase: ProgressView['phase'], metric: number, lastUpdate = T0): ProgressView => ({
  phase,
  since: T0,
  metric,
  name: 'accuracy',
  higherIsBetter: true,
  lastUpdate,
  growth: 0.5,
  step: 100,
});

class FakeReader implements ProgressRounds {
  readonly views = new Map<string, ProgressView>();
  readonly rates = new Map<string, MeasuredRate>();
  readonly rounds: string[][] = [];
  next: Partial<RoundReport> = {};

  round(targets: readonly ProgressTarget[]): Promise<RoundReport> {
    this.rounds.push(targets.map((t) => `${t.key}@${t.pod}`));
    const r = { read: targets.map((t) => t.key), deferred: [], phaseChanges: new Map(), problems: new Map(), ...this.next };
    this.next = {};
    return Promise.resolve(r);
  }

  view(key: string): ProgressView | undefined {
    return this.views.get(key);
  }

  rate(key: string): MeasuredRate | undefined {
    return this.rates.get(key);
  }

  pace(key: string): MeasuredRate | undefined {
    return this.rates.get(key);
  }
}

describe('progressTarget', () => {
  const pods = new Map<string, Pod>([
    ['ns/a-worker-0', pod('a-worker-0', 'a')],
    ['ns/b-chief-0', pod('b-chief-0', 'b')],
    ['ns/c-worker-0', pod('c-worker-0', 'c', 'Pending')],
    ['ns/d-ps-0', pod('d-ps-0', 'd')],
    ['ns/e-worker-0', pod('e-worker-0', 'someone-else')],
  ]);
  const lookup = (ns: string, name: string) => pods.get(`${ns}/${name}`);
  const of = (e: TFJobEntry) => (e.ok ? progressTarget(e, lookup) : undefined);

  it('follows the chief, else worker 0, else the annotated replica, once its pod runs and is the job’s', () => {
    expect(of(job('a'))).toEqual({
      key: 'ns/a',
      namespace: 'ns',
      pod: 'a-worker-0',
      podUid: 'a-worker-0-uid',
      container: 'tensorflow',
      workers: 0,
    });
    expect(of(job('b', { chief: true }))).toMatchObject({ pod: 'b-chief-0' });
    expect(of(job('d', { annotation: 'PS-0' }))).toMatchObject({ pod: 'd-ps-0' });
    expect(of(job('c'))).toBeUndefined(); // not running yet
    expect(of(job('e'))).toBeUndefined(); // a pod of that name the job does not own
    expect(of(job('a', { finished: true }))).toBeUndefined();
    expect(of(job('a', { annotation: 'none' }))).toBeUndefined();
    expect(of(job('a', { annotation: 'Worker-7' }))).toEqual({
      key: 'ns/a',
      invalid: expect.stringContaining('has no Worker replica 7') as unknown,
    });
  });
});

describe("progressStatus: the job's declared plan", () => {
  const rate: MeasuredRate = { stepsPerSecond: 2, step: 300, workers: 2, from: T0 - 60_000, to: T0 };

  it('shows planned epochs and steps, the share done, an ETA and the column text from Keras Epoch k/N', () => {
    const s = progressStatus({ ...view('Progressing', 0.5), step: 300, epoch: 3, epochs: 90 }, undefined, rate);
    expect(s).toMatchObject({
      plannedEpochs: 90,
      plannedSteps: 9000,
      fractionDone: '0.033',
      eta: new Date(T0 + 4_350_000).toISOString().replace('.000Z', 'Z'),
      plan: '3/90 epochs (3%)',
    });
  });

  it('takes spec.qoe.totalSteps over the log; no plan, no fields; a diverged job has no ETA', () => {
    expect(progressStatus({ ...view('Progressing', 0.5), step: 300, totalSteps: 600 }, 1200, rate)).toMatchObject({
      plannedSteps: 1200,
      fractionDone: '0.25',
      plan: '300/1200 steps (25%)',
    });
    const none = progressStatus(view('Progressing', 0.5), undefined, rate);
    expect(Object.keys(none).filter((k) => ['plannedEpochs', 'plannedSteps', 'fractionDone', 'eta', 'plan'].includes(k))).toEqual([]);
    expect(progressStatus({ ...view('Diverged', 0.5), step: 300, totalSteps: 600 }, undefined, rate).eta).toBeUndefined();
  });

  it('is published with spec.qoe.totalSteps from the job and the reader pace', async () => {
    const reader = new FakeReader();
    reader.views.set('ns/a', { ...view('Progressing', 0.5), step: 300 });
    reader.rates.set('ns/a', rate);
    const loop = new ProgressLoop({
      jobs: () => [job('a', { qoe: { deadlineSeconds: 86_400, totalSteps: 3000 } })],
      pod: (ns, name) => (name === 'a-worker-0' ? pod('a-worker-0', 'a') : undefined),
      podsOf: () => [],
      followAll: true,
      reader,
      event: () => undefined,
      changed: () => undefined,
      log: silentLogger(),
      now: () => T0,
    });
    await loop.tick();
    expect(loop.statusOf('ns/a')).toMatchObject({ plannedSteps: 3000, fractionDone: '0.1', plan: '300/3000 steps (10%)' });
    expect(loop.statusOf('ns/a')?.eta).toBe(new Date(T0 + 1_350_000).toISOString().replace('.000Z', 'Z'));
    expect(loop.phaseOf('ns/a')).toMatchObject({ planDone: 0.1 });
  });
});

describe('ProgressLoop', () => {
  it('publishes status.progress, reconciles only jobs whose progress changed, and tells phase changes as events', async () => {
    let now = T0;
    const reader = new FakeReader();
    const jobs = [job('a'), job('b')];
    const pods = new Map([
      ['ns/a-worker-0', pod('a-worker-0', 'a')],
      ['ns/b-worker-0', pod('b-worker-0', 'b')],
    ]);
    const changed: string[] = [];
    const events: string[] = [];
    const loop = new ProgressLoop({
      jobs: () => jobs,
      pod: (ns, name) => pods.get(`${ns}/${name}`),
      podsOf: () => [],
      followAll: true,
      reader,
      event: (_job, type, reason, message) => events.push(`${type} ${reason}: ${message}`),
      changed: (key) => changed.push(key),
      log: silentLogger(),
      period: { initialMs: 30_000, maxMs: 120_000 },
      now: () => now,
    });

    reader.views.set('ns/a', view('Progressing', 0.5));
    reader.next = { phaseChanges: new Map([['ns/a', [undefined, 'Progressing'] as const]]) };
    expect(await loop.tick()).toBe(true);
    expect(reader.rounds).toEqual([['ns/a@a-worker-0', 'ns/b@b-worker-0']]);
    expect(loop.statusOf('ns/a')).toEqual(progressStatus(view('Progressing', 0.5)));
    expect(loop.statusOf('ns/a')).toMatchObject({
      phase: 'Progressing',
      metric: '0.5',
      metricName: 'accuracy',
      since: '2026-11-25T00:00:00Z',
    });
    expect(loop.statusOf('ns/b')).toBeUndefined(); // no signal: nothing written
    // What the scheduler reads: the phase, since and growth, or nothing without a signal.
    expect(loop.phaseOf('ns/a')).toEqual({ phase: 'Progressing', since: view('Progressing', 0.5).since, growth: 0.5 });
    expect(loop.phaseOf('ns/b')).toBeUndefined();
    expect(changed).toEqual(['ns/a']);
    expect(events).toEqual(['Normal ProgressPhaseChanged: Progress phase Progressing: accuracy 0.5, growth 0.5']);

    // Not due yet, same jobs: no round.
    now += 10_000;
    expect(await loop.tick()).toBe(false);
    // Due: the same view again changes nothing.
    now += 25_000;
    expect(await loop.tick()).toBe(true);
    expect(changed).toEqual(['ns/a']);

    // A job stops running: a round at once, and its progress is withdrawn (the reconciler decides what stays).
    pods.delete('ns/b-worker-0');
    pods.delete('ns/a-worker-0');
    now += 1_000;
    expect(await loop.tick()).toBe(true);
    expect(loop.statusOf('ns/a')).toBeUndefined();
    expect(changed).toEqual(['ns/a', 'ns/a']);
  });

  it('writes a new metric of the same phase at every other read of the log, and a new phase at once', async () => {
    let now = T0;
    const reader = new FakeReader();
    const pods = new Map([['ns/a-worker-0', pod('a-worker-0', 'a')]]);
    const changed: string[] = [];
    const loop = new ProgressLoop({
      jobs: () => [job('a')],
      pod: (ns, name) => pods.get(`${ns}/${name}`),
      podsOf: () => [],
      followAll: true,
      reader,
      event: () => undefined,
      changed: (key) => changed.push(key),
      log: silentLogger(),
      period: { initialMs: 30_000, maxMs: 120_000 },
      now: () => now,
    });
    const round = async (v: ProgressView) => {
      reader.views.set('ns/a', v);
      expect(await loop.tick()).toBe(true);
      now += 30_000;
    };
    await round(view('Progressing', 0.5, T0));
    expect(changed).toEqual(['ns/a']);
    // The next read, a better metric: not written yet (the status keeps the last one).
    await round(view('Progressing', 0.6, T0 + 30_000));
    expect(changed).toEqual(['ns/a']);
    expect(loop.statusOf('ns/a')?.metric).toBe('0.5');
    // The second read since the last write: written.
    await round(view('Progressing', 0.7, T0 + 60_000));
    expect(changed).toEqual(['ns/a', 'ns/a']);
    expect(loop.statusOf('ns/a')?.metric).toBe('0.7');
    // A phase change at the next read: written at once.
    await round({ ...view('Slowing', 0.71, T0 + 90_000), since: T0 + 90_000 });
    expect(changed).toEqual(['ns/a', 'ns/a', 'ns/a']);
    expect(loop.statusOf('ns/a')?.phase).toBe('Slowing');
    // A new epoch at the next read: written at once (once per epoch, not per read).
    await round({ ...view('Slowing', 0.72, T0 + 120_000), since: T0 + 90_000, epoch: 4 });
    expect(changed).toHaveLength(4);
    expect(loop.statusOf('ns/a')?.epoch).toBe(4);
  });

  it('shows the smoothed and the latest value apart, and a divergence as phase Diverged with a warning event', async () => {
    let now = T0;
    const reader = new FakeReader();
    const events: string[] = [];
    const loop = new ProgressLoop({
      jobs: () => [job('a')],
      pod: (ns, name) => (name === 'a-worker-0' ? pod(name, 'a') : undefined),
      podsOf: () => [],
      followAll: true,
      reader,
      event: (_job, type, reason, message) => events.push(`${type} ${reason}: ${message}`),
      changed: () => undefined,
      log: silentLogger(),
      period: { initialMs: 30_000, maxMs: 120_000 },
      now: () => now,
    });
    reader.views.set('ns/a', { ...view('Progressing', 0.75466), latest: 0.8066 });
    await loop.tick();
    expect(loop.statusOf('ns/a')).toMatchObject({ metric: '0.75466', latest: '0.8066' });

    // Diverged before any finite value: no metric to show.
    now += 30_000;
    reader.views.set('ns/a', { phase: 'Diverged', since: T0, lastUpdate: T0, metric: Number.NaN, name: 'loss', higherIsBetter: false });
    reader.next = {
      phaseChanges: new Map([['ns/a', ['Progressing', 'Diverged'] as const]]),
      diverged: new Map([['ns/a', 'Keras loss is not finite']]),
    };
    await loop.tick();
    expect(loop.statusOf('ns/a')).toEqual({
      phase: 'Diverged',
      since: '2026-11-25T00:00:00Z',
      metricName: 'loss',
      higherIsBetter: false,
      lastUpdate: '2026-11-25T00:00:00Z',
    });
    expect(loop.phaseOf('ns/a')?.phase).toBe('Diverged');
    expect(events).toContain(
      "Warning Diverged: Training diverged: Keras loss is not finite; the job's progress phase is Diverged until a finite value is logged",
    );
  });

  it('doubles the period while every followed job has converged, and warns about an unreadable log at most every ten minutes', async () => {
    let now = T0;
    const reader = new FakeReader();
    const jobs = [job('a')];
    const pods = new Map([['ns/a-worker-0', pod('a-worker-0', 'a')]]);
    const warnings: string[] = [];
    const loop = new ProgressLoop({
      jobs: () => jobs,
      pod: (ns, name) => pods.get(`${ns}/${name}`),
      podsOf: () => [],
      followAll: true,
      reader,
      event: (_job, type, reason, message) => {
        if (type === 'Warning') warnings.push(`${reason}: ${message}`);
      },
      changed: () => undefined,
      log: silentLogger(),
      period: { initialMs: 30_000, maxMs: 120_000 },
      now: () => now,
    });
    reader.views.set('ns/a', view('Converged', 0.9));
    reader.next = { problems: new Map([['ns/a', 'cannot read the log of pod a-worker-0: HTTP 403']]) };
    await loop.tick(); // first round; period stays 30 s (a new job set)
    now += 30_000;
    expect(await loop.tick()).toBe(true); // all converged: next period 60 s
    now += 30_000;
    expect(await loop.tick()).toBe(false);
    now += 30_000;
    reader.next = { problems: new Map([['ns/a', 'cannot read the log of pod a-worker-0: HTTP 403']]) };
    expect(await loop.tick()).toBe(true);
    expect(warnings).toEqual(['ProgressUnreadable: cannot read the log of pod a-worker-0: HTTP 403']);
    now += 10 * 60_000;
    reader.next = { problems: new Map([['ns/a', 'cannot read the log of pod a-worker-0: HTTP 403']]) };
    await loop.tick();
    expect(warnings).toHaveLength(2);
  });
});

describe('ProgressLoop with performance targets', () => {
  it('without --progress-period follows only jobs with a target, counts their running workers, and hands their rate to the scheduler', async () => {
    const reader = new FakeReader();
    const jobs = [job('a', { qoe: { stepsPerSecond: 10 } }), job('b')];
    const all = [
      pod('a-worker-0', 'a'),
      pod('a-worker-1', 'a'),
      pod('a-worker-2', 'a', 'Pending'),
      pod('a-ps-0', 'a'),
      pod('b-worker-0', 'b'),
    ];
    const pods = new Map(all.map((p) => [`ns/${p.metadata!.name!}`, p]));
    const loop = new ProgressLoop({
      jobs: () => jobs,
      pod: (ns, name) => pods.get(`${ns}/${name}`),
      podsOf: (key) => all.filter((p) => key === `ns/${p.metadata!.ownerReferences![0]!.name}`),
      followAll: false,
      reader,
      event: () => undefined,
      changed: () => undefined,
      log: silentLogger(),
      period: { initialMs: 30_000, maxMs: 120_000 },
      now: () => T0,
    });
    let targets: readonly ProgressTarget[] = [];
    const round = reader.round.bind(reader);
    reader.round = (t) => {
      targets = t;
      return round(t);
    };
    await loop.tick();
    expect(targets.map((t) => [t.key, t.workers])).toEqual([['ns/a', 2]]);
    const rate = { stepsPerSecond: 12, step: 500, workers: 2, from: T0 - 60_000, to: T0 };
    reader.rates.set('ns/a', rate);
    expect(loop.stepRateOf('ns/a')).toEqual(rate);
  });

  it('doubles the period while every targeted job meets its target, and starts over when one stops (DQoES Algorithm 2)', async () => {
    let now = T0;
    const reader = new FakeReader();
    const jobs = [job('a', { qoe: { stepsPerSecond: 10 } })];
    const pods = new Map([['ns/a-worker-0', pod('a-worker-0', 'a')]]);
    let cls = 'Satisfied';
    const loop = new ProgressLoop({
      jobs: () => jobs,
      pod: (ns, name) => pods.get(`${ns}/${name}`),
      podsOf: () => [],
      followAll: false,
      qoeClassOf: () => cls,
      reader,
      event: () => undefined,
      changed: () => undefined,
      log: silentLogger(),
      period: { initialMs: 30_000, maxMs: 120_000 },
      now: () => now,
    });
    await loop.tick(); // a new job set: 30 s
    now += 30_000;
    expect(await loop.tick()).toBe(true); // satisfied: next period 60 s
    now += 30_000;
    expect(await loop.tick()).toBe(false);
    now += 30_000;
    expect(await loop.tick()).toBe(true); // still satisfied: 120 s
    cls = 'Behind';
    now += 60_000;
    expect(await loop.tick()).toBe(false);
    now += 60_000;
    expect(await loop.tick()).toBe(true); // |S| fell: back to 30 s
    now += 30_000;
    expect(await loop.tick()).toBe(true);
    // A changed target is a new round at once.
    jobs[0] = job('a', { qoe: { stepsPerSecond: 20 } });
    now += 1_000;
    expect(await loop.tick()).toBe(true);
  });
});

describe('ProgressLoop: spec.qoe.targetMetric', () => {
  it('tells the scheduler and the controller once the smoothed metric reached the target, in its direction', async () => {
    const reader = new FakeReader();
    const jobs = [job('a', { qoe: { targetMetric: 0.9 } })];
    const pods = new Map([['ns/a-worker-0', pod('a-worker-0', 'a')]]);
    const loop = new ProgressLoop({
      jobs: () => jobs,
      pod: (ns, name) => pods.get(`${ns}/${name}`),
      podsOf: () => [],
      followAll: false,
      reader,
      event: () => undefined,
      changed: () => undefined,
      log: silentLogger(),
      period: { initialMs: 30_000, maxMs: 120_000 },
      now: () => T0,
    });
    reader.views.set('ns/a', view('Progressing', 0.85));
    await loop.tick();
    expect(loop.targetReachedOf('ns/a')).toBeUndefined();
    expect(loop.phaseOf('ns/a')).toEqual({ phase: 'Progressing', since: T0, growth: 0.5 });
    reader.views.set('ns/a', view('Progressing', 0.91));
    expect(loop.targetReachedOf('ns/a')).toBe('accuracy 0.91 reached the target 0.9');
    expect(loop.phaseOf('ns/a')).toEqual({ phase: 'Progressing', since: T0, growth: 0.5, targetReached: true });
    // A loss goes the other way.
    reader.views.set('ns/a', { ...view('Progressing', 0.95), name: 'loss', higherIsBetter: false });
    expect(loop.targetReachedOf('ns/a')).toBeUndefined();
  });
});

describe('ProgressMetrics', () => {
  it('counts reads by result and shows what the budget left unread and the period', async () => {
    const registry = new Registry();
    const reader = new FakeReader();
    const jobs = [job('a'), job('b'), job('c')];
    const pods = new Map<string, Pod>(['a', 'b', 'c'].map((n) => [`ns/${n}-worker-0`, pod(`${n}-worker-0`, n)]));
    const loop = new ProgressLoop({
      jobs: () => jobs,
      pod: (ns, name) => pods.get(`${ns}/${name}`),
      podsOf: () => [],
      followAll: true,
      reader,
      metrics: new ProgressMetrics(registry),
      event: () => undefined,
      changed: () => undefined,
      log: silentLogger(),
      period: { initialMs: 30_000, maxMs: 120_000 },
      now: () => T0,
    });
    // A budget of two reads: c waits for the next round; b's log held bad lines.
    reader.next = {
      read: ['ns/a', 'ns/b'],
      deferred: ['ns/c'],
      problems: new Map([['ns/b', 'bad lines']]),
      skipped: new Map([
        ['malformed', 2],
        ['unread', 5],
      ]),
    };
    expect(await loop.tick()).toBe(true);
    const samples = parseMetrics(await registry.metrics());
    expect(sumOf(samples, 'tfjob_operator_progress_log_reads_total', { result: 'ok' })).toBe(1);
    expect(sumOf(samples, 'tfjob_operator_progress_log_reads_total', { result: 'problem' })).toBe(1);
    expect(sumOf(samples, 'tfjob_operator_progress_followed_jobs')).toBe(3);
    expect(sumOf(samples, 'tfjob_operator_progress_deferred_jobs')).toBe(1);
    expect(sumOf(samples, 'tfjob_operator_progress_period_seconds')).toBe(30);
    expect(sumOf(samples, 'tfjob_operator_progress_round_duration_seconds_count')).toBe(1);
    expect(sumOf(samples, 'tfjob_operator_progress_lines_skipped_total', { reason: 'malformed' })).toBe(2);
    expect(sumOf(samples, 'tfjob_operator_progress_lines_skipped_total', { reason: 'unread' })).toBe(5);
  });
});
