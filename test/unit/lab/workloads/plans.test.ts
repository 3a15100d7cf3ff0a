// What simulated jobs declare of their own length (lab/workloads/plans.ts).
import { describe, expect, it } from 'vitest';
import { assignPlans } from '../../../../lab/workloads/plans.ts';
import type { WorkloadJob } from '../../../../lab/workloads/model.ts';

const jobs: WorkloadJob[] = Array.from({ length: 2000 }, (_, i) => ({ name: `j${i}`, work: 1000 + i }) as unknown as WorkloadJob);
const model = { undeclared: 0.3, earlyStop: 0.4, stopAt: [0.4, 0.9] as [number, number] };

describe('declared plans', () => {
  it('none declares nothing, perfect declares the true work', () => {
    expect(assignPlans(jobs, { ...model, model: 'none' }, 1).every((j) => j.plannedWork === undefined)).toBe(true);
    expect(assignPlans(jobs, { ...model, model: 'perfect' }, 1).every((j) => j.plannedWork === j.work)).toBe(true);
  });

  it('realistic: about the undeclared share declares nothing; an early stopper plans work ÷ its stop point, never less than its work', () => {
    const out = assignPlans(jobs, { ...model, model: 'realistic' }, 1);
    const none = out.filter((j) => j.plannedWork === undefined).length / out.length;
    const early = out.filter((j) => j.plannedWork !== undefined && j.plannedWork > j.work);
    expect(none).toBeGreaterThan(0.26);
    expect(none).toBeLessThan(0.34);
    expect(early.length / (out.length * 0.7)).toBeGreaterThan(0.35);
    expect(early.length / (out.length * 0.7)).toBeLessThan(0.45);
    for (const j of early) {
      expect(j.work / j.plannedWork!).toBeGreaterThanOrEqual(0.4);
      expect(j.work / j.plannedWork!).toBeLessThanOrEqual(0.9);
    }
    // Seeded: the same seed gives the same plans, another seed others.
    expect(assignPlans(jobs, { ...model, model: 'realistic' }, 1)).toEqual(out);
    expect(assignPlans(jobs, { ...model, model: 'realistic' }, 2)).not.toEqual(out);
  });
});
