// `ours`' relocation of a converged job's remote workers (relocateConverged, SpeCon Algorithm 4 as
// related-papers §6 F5 maps it) on the paper's testbed (3 × 10 cpu), with hand-computed
// expectations. C (converged, at its minimum of 2 workers of 2 cpu) has its PS and worker 0 on
// node-1 and worker 1 on node-2; other pods leave 2 cpu free on node-1, 4 on node-2, none on
// node-3. W needs a PS of 1 cpu and one worker of 5 cpu: no node has 5 cpu, and scale-in cannot
// take C below its minimum. Moving C's worker 1 next to its PS leaves node-2 6 cpu: W fits there.
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import type { JobState } from '../../../src/scheduler/types.ts';
import { cpu, describeReplicas, paperTestbed, running, snapshot, waiting } from './helpers/builders.ts';

const HOUR_MS = 3_600_000;
const busy = (used: Record<string, number>) =>
  Object.entries(used).map(([n, c]) => ({ key: `other/${n}`, node: n, requests: { cpu: cpu(c) } }));
const withToggle = resolveSchedulerConfig({ improvements: { relocateConverged: true } });

function converging(c: Partial<JobState>, workerCreatedAt = 0): ReturnType<typeof snapshot> {
  const spec = running('C', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-2'], {
    ps: { cpu: cpu(1) },
    worker: { cpu: cpu(2) },
    min: 2,
    max: 2,
    submittedAt: 0,
    createdAt: 0,
  });
  const replicas = spec.replicas.map((r) => (r.index === 1 ? { ...r, createdAt: workerCreatedAt } : r));
  return snapshot(
    paperTestbed(),
    [{ ...spec, replicas, ...c }, waiting('W', { ps: { cpu: cpu(1) }, worker: { cpu: cpu(5) }, min: 1, max: 1, submittedAt: HOUR_MS })],
    { now: 2 * HOUR_MS, otherPods: busy({ 'node-1': 5, 'node-2': 4, 'node-3': 10 }) },
  );
}
const CONVERGED = { progress: { phase: 'Converged' as const, since: 0 } };

describe("relocation of converged jobs' remote workers (ours, relocateConverged)", () => {
  it('moves the remote worker next to its PS and admits the head in the room it leaves', () => {
    const plan = schedule('ours', converging(CONVERGED), withToggle);
    expect(plan.scaleIn).toEqual([
      { job: 'C', forJob: 'W', remove: [{ type: 'Worker', index: 1, node: 'node-2', createdAt: 0 }], relocated: true },
    ]);
    expect(plan.scaleOut.map((s) => [s.job, describeReplicas(s.add)])).toEqual([['C', ['Worker:2@node-1']]]);
    expect(plan.admit.map((a) => [a.job, describeReplicas(a.replicas)])).toEqual([['W', ['PS:0@node-2', 'Worker:0@node-2']]]);
  });

  it('is off by default, and needs the Converged phase and a worker past the cool-down', () => {
    const waits = (plan: ReturnType<typeof schedule>) => [plan.admit.length, plan.scaleIn.length, plan.waiting.map((w) => w.job)];
    expect(waits(schedule('ours', converging(CONVERGED), resolveSchedulerConfig()))).toEqual([0, 0, ['W']]);
    expect(waits(schedule('ours', converging({ progress: { phase: 'Slowing', since: 0 } }), withToggle))).toEqual([0, 0, ['W']]);
    expect(waits(schedule('ours', converging(CONVERGED, 2 * HOUR_MS - 1_000), withToggle))).toEqual([0, 0, ['W']]);
  });
});
