// A worker SpeCon is moving: its slot comes back through the repair step, on the target. Without
// that, the policy's scale-out of the elastic job (one worker short of its maximum) took the same slot
// in the same pass and bound it to another node first (seen on kwok: the move ended elsewhere).
import { describe, expect, it } from 'vitest';
import { DecisionBook } from '../../../../src/operator/scheduling/decisions/book.ts';
import { decide } from '../../../../src/operator/scheduling/pass/decide.ts';
import { JobShapes } from '../../../../src/operator/scheduling/pass/job-shape.ts';
import { takeSnapshot } from '../../../../src/operator/scheduling/pass/snapshot.ts';
import { DEFAULT_SCHEDULER_CONFIG } from '../../../../src/scheduler/index.ts';
import { NS, OPTIONS, T0, node, replicaPod, sources, tfjob } from './fixtures.ts';

const KEY = `${NS}/a`;
const running = { scheduling: { queue: 'Running', enqueueTime: '2026-11-24T09:00:00Z', workers: { current: 2, min: 2, max: 2 } } };

/** Elastic job a (PS and workers 0, 1 of 1 cpu, 2 to 2 workers) on n1; worker 1 was just deleted to move to n3. */
function pass(preferredNode?: (job: string) => string | undefined) {
  const job = tfjob('a', { workers: 2, elastic: { min: 2, max: 2 }, status: running });
  const pods = [replicaPod('a', 'ps', 0, 'n1'), replicaPod('a', 'worker', 0, 'n1')];
  const src = sources({ tfjobs: [job], pods, nodes: [node('n1', '4'), node('n2', '2'), node('n3', '8')] });
  const s = takeSnapshot(src, new DecisionBook(), new JobShapes(), OPTIONS, T0);
  const { plan, repairs } = decide('ours', s.snapshot, s.facts, DEFAULT_SCHEDULER_CONFIG, preferredNode);
  const scaledOut = plan.scaleOut.filter((e) => e.job === KEY).flatMap((e) => e.add.map((r) => r.node));
  const repaired = repairs.filter((r) => r.replica.job === KEY).map((r) => r.node);
  return { scaledOut, repaired };
}

describe('a pass while a worker of the job is being migrated', () => {
  it('places the slot once, by the repair step, on the target; not by a scale-out', () => {
    const moving = pass((job) => (job === KEY ? 'n3' : undefined));
    expect(moving.scaledOut).toEqual([]);
    expect(moving.repaired).toEqual(['n3']);
  });

  it('without a move the pass is as before (the filter touches only a job being moved)', () => {
    const before = pass();
    const otherJobMoving = pass((job) => (job === `${NS}/other` ? 'n3' : undefined));
    expect(otherJobMoving).toEqual(before);
    expect(before.scaledOut.length + before.repaired.length).toBeGreaterThan(0);
  });
});
