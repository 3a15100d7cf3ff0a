// `ours`' relocation of a converged job's remote workers (relocateConverged, SpeCon Algorithm 4 as
// related-papers §6 F5 maps it) on the paper's testbed (3 × 10 cpu), with hand-computed
// expectations. C (converged, elastic, at its minimum of 2 workers of 2 cpu) has its PS and worker 0
// on node-1 and worker 1 on node-2; other pods leave 2 cpu free on node-1, 4 on node-2, none on
// node-3. W needs a PS of 1 cpu and one worker of 5 cpu: no node has 5 cpu, and scale-in cannot
// take C below its minimum. Moving C's worker 1 next to its PS leaves node-2 6 cpu: W fits there.
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import type { JobState } from '../../../src/scheduler/types.ts';
import { cpu, describeReplicas, node, running, snapshot, waiting } from './helpers/builders.ts';

const HOUR_MS = 3_600_000;
const busy = (used: Record<string, number>) =>
  Object.entries(used).map(([n, c]) => ({ key: `other/${n}`, node: n, requests: { cpu: cpu(c) } }));
const withToggle = resolveSchedulerConfig({ improvements: { relocateConverged: true } });
const CONVERGED = { progress: { phase: 'Converged' as const, since: 0 } };
const nodes = (count: number) => Array.from({ length: count }, (_, i) => node(`node-${i + 1}`, { cpu: cpu(10), memory: 32 * 2 ** 30 }));

/** A converged-or-not job with its PS and worker 0 on `home` and worker 1 on `away`. */
function job(key: string, home: string, away: string, o: { max?: number; workerCreatedAt?: number } & Partial<JobState> = {}): JobState {
  const { max, workerCreatedAt, ...state } = o;
  const spec = running(key, [`PS:0@${home}`, `Worker:0@${home}`, `Worker:1@${away}`], {
    ps: { cpu: cpu(1) },
    worker: { cpu: cpu(2) },
    min: 2,
    max: max ?? 3,
    submittedAt: 0,
    createdAt: 0,
  });
  const replicas = spec.replicas.map((r) => (r.index === 1 && r.type === 'Worker' ? { ...r, createdAt: workerCreatedAt ?? 0 } : r));
  return { ...spec, replicas, ...state };
}
const W = waiting('W', { ps: { cpu: cpu(1) }, worker: { cpu: cpu(5) }, min: 1, max: 1, submittedAt: HOUR_MS });

function converging(c: { max?: number; workerCreatedAt?: number } & Partial<JobState>): ReturnType<typeof snapshot> {
  return snapshot(nodes(3), [job('C', 'node-1', 'node-2', c), W], {
    now: 2 * HOUR_MS,
    otherPods: busy({ 'node-1': 5, 'node-2': 4, 'node-3': 10 }),
  });
}

describe("relocation of converged jobs' remote workers (ours, relocateConverged)", () => {
  it('moves the remote worker next to its PS and admits the head in the room it leaves', () => {
    const plan = schedule('ours', converging(CONVERGED), withToggle);
    expect(plan.scaleIn).toEqual([
      { job: 'C', forJob: 'W', remove: [{ type: 'Worker', index: 1, node: 'node-2', createdAt: 0 }], relocated: true },
    ]);
    expect(plan.scaleOut.map((s) => [s.job, describeReplicas(s.add)])).toEqual([['C', ['Worker:2@node-1']]]);
    expect(plan.admit.map((a) => [a.job, describeReplicas(a.replicas)])).toEqual([['W', ['PS:0@node-2', 'Worker:0@node-2']]]);
  });

  it('is off by default, and needs an elastic job, the Converged phase and a worker past the cool-down', () => {
    const waits = (plan: ReturnType<typeof schedule>) => [plan.admit.length, plan.scaleIn.length, plan.waiting.map((w) => w.job)];
    expect(waits(schedule('ours', converging(CONVERGED), resolveSchedulerConfig()))).toEqual([0, 0, ['W']]);
    // A fixed-size job (min = max) keeps its workers' names and places.
    expect(waits(schedule('ours', converging({ ...CONVERGED, max: 2 }), withToggle))).toEqual([0, 0, ['W']]);
    expect(waits(schedule('ours', converging({ progress: { phase: 'Slowing', since: 0 } }), withToggle))).toEqual([0, 0, ['W']]);
    expect(waits(schedule('ours', converging({ ...CONVERGED, workerCreatedAt: 2 * HOUR_MS - 1_000 }), withToggle))).toEqual([0, 0, ['W']]);
  });

  it('keeps only the moves the head needs: a move tried first and not needed is undone', () => {
    // D (submitted later, so ranked lowest and tried first) has its PS on node-3 (3 cpu free) and
    // worker 1 on node-4 (2 cpu free); C as above. Moving D's worker frees node-4 to 4 cpu, not
    // enough; C's move then frees node-2 to 6 cpu and W goes there, so D's move is put back.
    const snap = snapshot(
      nodes(4),
      [
        job('C', 'node-1', 'node-2', CONVERGED),
        job('D', 'node-3', 'node-4', { ...CONVERGED, spec: { ...job('D', 'node-3', 'node-4').spec, submittedAt: 1000 } }),
        W,
      ],
      { now: 2 * HOUR_MS, otherPods: busy({ 'node-1': 5, 'node-2': 4, 'node-3': 4, 'node-4': 6 }) },
    );
    const plan = schedule('ours', snap, withToggle);
    expect(plan.scaleIn.map((s) => [s.job, s.relocated])).toEqual([['C', true]]);
    // (D may still grow into node-4's room by plain scale-out: that is growth, not a move.)
    expect(plan.scaleOut.filter((s) => s.job === 'C').map((s) => describeReplicas(s.add))).toEqual([['Worker:2@node-1']]);
    expect(plan.admit.map((a) => [a.job, describeReplicas(a.replicas)])).toEqual([['W', ['PS:0@node-2', 'Worker:0@node-2']]]);
  });
});
