// `ours`' demotions (attained service, Converged phase) and suspension of whole demoted jobs, on the
// paper's testbed (3 × 10 cpu) with hand-computed expectations. Weights with a 1 cpu PS and one
// minimum worker: a 2 cpu worker gives ω ≈ 0.41, a 3 cpu worker less, so without demotion the
// 3 cpu job is the scale-in victim.
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import type { SchedulerConfigOverrides } from '../../../src/scheduler/config.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import type { JobState } from '../../../src/scheduler/types.ts';
import { cpu, describeReplicas, node, paperTestbed, running, snapshot, waiting } from './helpers/builders.ts';

const PS = { cpu: cpu(1) };
const TWO = { cpu: cpu(2) };
const THREE = { cpu: cpu(3) };
const HOUR = 3600;
const busy = (used: Record<string, number>) =>
  Object.entries(used).map(([n, c]) => ({ key: `other/${n}`, node: n, requests: { cpu: cpu(c) } }));
const config = (improvements: SchedulerConfigOverrides['improvements'] = {}) => resolveSchedulerConfig({ improvements });

/**
 * A (2 cpu workers, heavier) fills node-1 with its PS and 4 workers; B (3 cpu workers) holds node-2
 * with its PS and 3 workers; node-3 is taken by other pods. W (like A, arrived later) waits for
 * 3 cpu on one node. Without demotion W may only preempt B (A ranks above it: same weight, earlier).
 */
function twoRunning(a: Partial<JobState>): ReturnType<typeof snapshot> {
  return snapshot(
    paperTestbed(),
    [
      {
        ...running('A', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-1', 'Worker:2@node-1', 'Worker:3@node-1'], {
          ps: PS,
          worker: TWO,
          submittedAt: 0,
          createdAt: 0,
        }),
        ...a,
      },
      running('B', ['PS:0@node-2', 'Worker:0@node-2', 'Worker:1@node-2', 'Worker:2@node-2'], {
        ps: PS,
        worker: THREE,
        submittedAt: 0,
        createdAt: 0,
      }),
      waiting('W', { ps: PS, worker: TWO, submittedAt: 1000 }),
    ],
    { now: 4 * HOUR * 1000, otherPods: busy({ 'node-3': 10 }) },
  );
}

describe('attained-service demotion (ours)', () => {
  it('without demotion the lighter job is the victim', () => {
    const plan = schedule('ours', twoRunning({ attainedWorkerSeconds: 3 * HOUR }), config({ demoteByAttainedService: false }));
    expect(plan.scaleIn.map((s) => s.job)).toEqual(['B']);
    expect(plan.suspend).toEqual([]);
  });

  it('a job past the threshold ranks below every other of its class: it is scaled in first, whatever its weight', () => {
    const plan = schedule('ours', twoRunning({ attainedWorkerSeconds: 3 * HOUR }), config());
    expect(plan.scaleIn.map((s) => [s.job, s.forJob])).toEqual([['A', 'W']]);
    expect(plan.admit.map((a) => a.job)).toEqual(['W']);
    expect(plan.suspend).toEqual([]);
  });

  it('below the threshold nothing changes', () => {
    const plan = schedule('ours', twoRunning({ attainedWorkerSeconds: 1.5 * HOUR }), config());
    expect(plan.scaleIn.map((s) => s.job)).toEqual(['B']);
  });

  it('kod2 never demotes', () => {
    const plan = schedule('kod2', twoRunning({ attainedWorkerSeconds: 100 * HOUR }));
    expect(plan.scaleIn.map((s) => s.job)).toEqual(['B']);
  });

  it('a Converged job ranks as demoted (demoteConverged), and only then', () => {
    const converged = { progress: { phase: 'Converged' as const, since: 0 } };
    expect(schedule('ours', twoRunning(converged), config()).scaleIn.map((s) => s.job)).toEqual(['A']);
    expect(schedule('ours', twoRunning(converged), config({ demoteConverged: false })).scaleIn.map((s) => s.job)).toEqual(['B']);
    const slowing = { progress: { phase: 'Slowing' as const, since: 0 } };
    expect(schedule('ours', twoRunning(slowing), config()).scaleIn.map((s) => s.job)).toEqual(['B']);
  });

  it('a Diverged job (NaN loss) ranks as demoted and never grows (demoteConverged), and only then', () => {
    const diverged = { progress: { phase: 'Diverged' as const, since: 0 } };
    expect(schedule('ours', twoRunning(diverged), config()).scaleIn.map((s) => s.job)).toEqual(['A']);
    expect(schedule('ours', twoRunning(diverged), config({ demoteConverged: false })).scaleIn.map((s) => s.job)).toEqual(['B']);
    // J alone on the testbed, 1 of at most 4 workers: it grows unless it diverged.
    const alone = (p: Partial<JobState>) =>
      snapshot(paperTestbed(), [{ ...running('J', ['PS:0@node-3', 'Worker:0@node-3'], { ps: PS, worker: TWO }), ...p }]);
    expect(schedule('ours', alone({}), config()).scaleOut.map((s) => s.job)).toEqual(['J']);
    expect(schedule('ours', alone(diverged), config()).scaleOut).toEqual([]);
    expect(schedule('ours', alone(diverged), config({ demoteConverged: false })).scaleOut.map((s) => s.job)).toEqual(['J']);
  });
});

/** A on node-1 at its minimum: PS + 2 workers of 4 cpu = 9 cpu, min = max = 2. */
const aOnNode1 = (createdAt: number): JobState =>
  running('A', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-1'], {
    ps: PS,
    worker: { cpu: cpu(4) },
    min: 2,
    max: 2,
    submittedAt: 0,
    createdAt,
  });

/**
 * A holds node-1 at its minimum (PS + 2 workers of 4 cpu = 9 cpu, min 2); other pods fill node-2 and
 * node-3; W needs 5 cpu on one node. Scale-in cannot help: only suspending A can.
 */
function atMinimum(a: Partial<JobState>, o: { suspendable?: boolean; createdAt?: number } = {}): ReturnType<typeof snapshot> {
  const spec = aOnNode1(o.createdAt ?? 0);
  return snapshot(
    paperTestbed(),
    [
      { ...spec, spec: { ...spec.spec, ...(o.suspendable === false ? {} : { suspendable: true }) }, ...a },
      waiting('W', { ps: PS, worker: { cpu: cpu(4) }, submittedAt: 1000 }),
    ],
    { now: 4 * HOUR * 1000, otherPods: busy({ 'node-2': 10, 'node-3': 10 }) },
  );
}

describe('suspension of whole demoted jobs (ours)', () => {
  it('a suspendable job past the threshold goes back to the queue when scale-in cannot admit the head', () => {
    const plan = schedule('ours', atMinimum({ attainedWorkerSeconds: 3 * HOUR }), config());
    expect(plan.suspend).toEqual([{ job: 'A', forJob: 'W' }]);
    expect(plan.scaleIn).toEqual([]);
    // W takes A's node: its PS and minimum worker, plus one worker more by scale-out (max 4, 5 cpu idle).
    expect(plan.admit.map((a) => [a.job, describeReplicas(a.replicas)])).toEqual([
      ['W', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-1']],
    ]);
  });

  it('is never done to a job that did not opt in, one below the threshold, a Converged one, or with the toggle off', () => {
    const cases = [
      schedule('ours', atMinimum({ attainedWorkerSeconds: 3 * HOUR }, { suspendable: false }), config()),
      schedule('ours', atMinimum({ attainedWorkerSeconds: HOUR }), config()),
      schedule('ours', atMinimum({ progress: { phase: 'Converged', since: 0 } }), config()),
      schedule('ours', atMinimum({ attainedWorkerSeconds: 3 * HOUR }), config({ suspendDemoted: false })),
      schedule('kod2', atMinimum({ attainedWorkerSeconds: 3 * HOUR })),
    ];
    for (const plan of cases) {
      expect(plan.suspend).toEqual([]);
      expect(plan.admit).toEqual([]);
      expect(plan.waiting.map((w) => w.job)).toEqual(['W']);
    }
  });

  it('spares a job whose replicas have held their node for less than the cool-down (it has just resumed)', () => {
    const now = 4 * HOUR * 1000;
    const plan = schedule('ours', atMinimum({ attainedWorkerSeconds: 3 * HOUR }, { createdAt: now - 30_000 }), config());
    expect(plan.suspend).toEqual([]);
    expect(plan.admit).toEqual([]);
  });

  it('spares a job with a replica placed but not created yet (its pod may be on its way)', () => {
    const pendingPs = atMinimum({ attainedWorkerSeconds: 3 * HOUR });
    const [a, w] = pendingPs.jobs;
    const marked = { ...a!, replicas: a!.replicas.map((r) => (r.type === 'PS' ? { ...r, pending: true } : r)) };
    const plan = schedule('ours', { ...pendingPs, jobs: [marked, w!] }, config());
    expect(plan.suspend).toEqual([]);
    expect(plan.admit).toEqual([]);
  });

  it('a suspended job waits behind new jobs and is admitted again when room frees', () => {
    // After the suspension: A waits (old t_j, demoted) next to a new job N of the same shape; one slot.
    const nodes = paperTestbed();
    const a: JobState = {
      ...waiting('A', { ps: PS, worker: { cpu: cpu(4) }, min: 2, max: 2, submittedAt: 0 }),
      attainedWorkerSeconds: 3 * HOUR,
    };
    const n = waiting('N', { ps: PS, worker: { cpu: cpu(4) }, min: 2, max: 2, submittedAt: HOUR * 1000 });
    const plan = schedule(
      'ours',
      snapshot(nodes, [a, n], { now: 4 * HOUR * 1000, otherPods: busy({ 'node-2': 10, 'node-3': 10 }) }),
      config(),
    );
    // A is starving by its old t_j, yet demoted: the new job goes first.
    expect(plan.admit.map((x) => x.job)).toEqual(['N']);
    const alone = schedule(
      'ours',
      snapshot(nodes, [a], { now: 4 * HOUR * 1000, otherPods: busy({ 'node-2': 10, 'node-3': 10 }) }),
      config(),
    );
    expect(alone.admit.map((x) => x.job)).toEqual(['A']);
  });
});

/**
 * The head H (1 cpu PS and worker, zone b only) is blocked: node-2, the only zone-b node, is held by
 * B at its minimum, which did not opt in to suspension. W (5 cpu, ranked below H: lighter) waits
 * behind it for backfill; node-1 is held by A (demoted, suspendable), node-3 by other pods.
 */
function blockedHead(waitedMs: number): ReturnType<typeof snapshot> {
  const now = 4 * HOUR * 1000;
  const a = aOnNode1(0);
  const zoneB = { nodeSelector: { zone: 'b' } };
  const b = running('B', ['PS:0@node-2', 'Worker:0@node-2', 'Worker:1@node-2', 'Worker:2@node-2'], {
    ps: PS,
    worker: THREE,
    min: 3,
    max: 3,
    constraints: zoneB,
    submittedAt: 0,
    createdAt: 0,
  });
  return snapshot(
    [node('node-1', { cpu: cpu(10) }), node('node-2', { cpu: cpu(10) }, { labels: { zone: 'b' } }), node('node-3', { cpu: cpu(10) })],
    [
      { ...a, spec: { ...a.spec, suspendable: true }, attainedWorkerSeconds: 3 * HOUR },
      b,
      waiting('H', { ps: PS, worker: { cpu: cpu(1) }, constraints: zoneB, submittedAt: now - 10 * 60_000 }),
      waiting('W', { ps: PS, worker: { cpu: cpu(4) }, submittedAt: now - waitedMs }),
    ],
    { now, otherPods: busy({ 'node-3': 10 }) },
  );
}

describe('suspension for a backfill job (ours, suspendForBackfill)', () => {
  it('a job that backfill cannot place, waiting past the cool-down, has the demoted job suspended for it', () => {
    const plan = schedule('ours', blockedHead(5 * 60_000), config());
    expect(plan.suspend).toEqual([{ job: 'A', forJob: 'W' }]);
    expect(plan.admit.map((a) => a.job)).toEqual(['W']);
    expect(plan.waiting.map((w) => w.job)).toEqual(['H']);
  });

  it('not for a job that has just arrived, nor with the toggle off', () => {
    for (const plan of [
      schedule('ours', blockedHead(30_000), config()),
      schedule('ours', blockedHead(5 * 60_000), config({ suspendForBackfill: false })),
    ]) {
      expect(plan.suspend).toEqual([]);
      expect(plan.admit).toEqual([]);
      expect(plan.waiting.map((w) => w.job)).toEqual(['H', 'W']);
    }
  });
});
