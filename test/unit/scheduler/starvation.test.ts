// The starvation rule and its bound (starvation.ts): under a steady stream of heavier jobs a light
// job starves forever without aging, and with aging is admitted within
//   t_j + STARVELIMIT + Δ + (k + 1) · (R + Δ).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { isStarving, starvationWaitBound } from '../../../src/scheduler/ranking/starvation.ts';
import type { JobSpec, NodeInfo } from '../../../src/scheduler/types.ts';
import { simulate } from './helpers/apply-plan.ts';
import type { SimArrival, SimResult } from './helpers/apply-plan.ts';
import { cpu, Gi, jobSpec, node, paperTestbed } from './helpers/builders.ts';

const PASS = 10_000; // Δ
const RUNTIME = 60_000; // R

/** Heavy jobs (1-cpu workers, elastic 1..4, ω ≈ 0.66) every 10 s; one light job (PS + 3 × 3 cpu, ω ≈ 0.05) at 100 s. */
function heavyStream(): SimArrival[] {
  const arrivals: SimArrival[] = [];
  for (let t = 0; t <= 2_000_000; t += PASS) {
    arrivals.push({
      spec: jobSpec(`heavy-${String(t / PASS).padStart(4, '0')}`, {
        submittedAt: t,
        worker: { cpu: cpu(1), memory: 2 * Gi },
        min: 1,
        max: 4,
      }),
      runtimeMs: RUNTIME,
    });
  }
  arrivals.push({
    spec: jobSpec('light', { submittedAt: 100_000, worker: { cpu: cpu(3), memory: 4 * Gi }, min: 3, max: 3 }),
    runtimeMs: RUNTIME,
  });
  return arrivals;
}

/** k of the bound: jobs ranked ahead of `key` (earlier t, then key) still waiting when it starts starving. */
function aheadWhenStarving(sim: SimResult, spec: JobSpec, starveLimitMs: number): number {
  const start = Math.ceil((spec.submittedAt + starveLimitMs) / PASS) * PASS;
  const waitingThen = sim.waitingAt.get(start) ?? [];
  return waitingThen.filter((k) => k !== spec.key).length;
}

describe('starvation', () => {
  it('is reached exactly at STARVELIMIT', () => {
    const config = resolveSchedulerConfig({ starveLimitMs: 1000 });
    const spec = jobSpec('j', { submittedAt: 500 });
    expect(isStarving(spec, 1499, config)).toBe(false);
    expect(isStarving(spec, 1500, config)).toBe(true);
  });

  for (const policy of ['kod2', 'ours'] as const) {
    it(`${policy}: without aging a light job waits forever under a steady stream of heavier jobs`, () => {
      const sim = simulate(policy, resolveSchedulerConfig({ starveLimitMs: 1e15 }), paperTestbed(), heavyStream(), PASS, 1_000_000);
      expect(sim.admittedAt.has('light')).toBe(false);
      // The stream itself keeps flowing, so the cluster is not simply stuck.
      expect(sim.finishedAt.size).toBeGreaterThan(50);
    });

    it(`${policy}: with aging the light job is admitted within the bound`, () => {
      const starveLimitMs = 120_000;
      const config = resolveSchedulerConfig({ starveLimitMs });
      const arrivals = heavyStream();
      const sim = simulate(policy, config, paperTestbed(), arrivals, PASS, 1_000_000);
      const light = arrivals.find((a) => a.spec.key === 'light')!.spec;
      const admitted = sim.admittedAt.get('light');
      expect(admitted).toBeDefined();
      const k = aheadWhenStarving(sim, light, starveLimitMs);
      const bound = light.submittedAt + starvationWaitBound(config, k, RUNTIME, PASS);
      expect(admitted!).toBeLessThanOrEqual(bound);
      // And aging is what did it: the light job was not admitted before it starved.
      expect(admitted!).toBeGreaterThanOrEqual(light.submittedAt + starveLimitMs);
    });
  }

  for (const policy of ['kod2', 'ours'] as const) {
    it(`${policy}: a starving head that preemption cannot help is reserved for: nothing is admitted before it`, () => {
      // One 10-cpu node; non-elastic 2-cpu jobs every 10 s, 60 s each, keep it full. The light job
      // needs 9 cpu: only a reservation lets completions add up to that much room.
      const nodes = [node('only', { cpu: cpu(10), memory: 64 * Gi })];
      const arrivals: SimArrival[] = [];
      for (let t = 0; t <= 600_000; t += PASS) {
        arrivals.push({
          spec: jobSpec(`small-${String(t / PASS).padStart(3, '0')}`, {
            submittedAt: t,
            worker: { cpu: cpu(1), memory: Gi },
            min: 1,
            max: 1,
          }),
          runtimeMs: RUNTIME,
        });
      }
      arrivals.push({
        spec: jobSpec('light', { submittedAt: 50_000, worker: { cpu: cpu(8), memory: Gi }, min: 1, max: 1 }),
        runtimeMs: RUNTIME,
      });
      const starveLimitMs = 100_000;
      const config = resolveSchedulerConfig({ starveLimitMs });
      const sim = simulate(policy, config, nodes, arrivals, PASS, 600_000);
      const light = arrivals.at(-1)!.spec;
      const admitted = sim.admittedAt.get('light');
      expect(admitted).toBeDefined();
      const k = aheadWhenStarving(sim, light, starveLimitMs);
      expect(admitted!).toBeLessThanOrEqual(light.submittedAt + starvationWaitBound(config, k, RUNTIME, PASS));
      // Nothing that arrived after it was admitted between its starving and its admission.
      for (const [key, at] of sim.admittedAt) {
        const spec = arrivals.find((a) => a.spec.key === key)!.spec;
        if (spec.submittedAt > light.submittedAt) expect(at < light.submittedAt + starveLimitMs || at >= admitted!, key).toBe(true);
      }
    });
  }

  it('ours backfills around a starving head’s reserved nodes, kod2 admits nothing; both within the bound', () => {
    // Two 10-cpu nodes; the light job needs a whole node (9 cpu); non-elastic 2-cpu jobs arrive
    // every 10 s and run 60 s, more than the cluster holds.
    const nodes = [node('a', { cpu: cpu(10), memory: 64 * Gi }), node('b', { cpu: cpu(10), memory: 64 * Gi })];
    const arrivals: SimArrival[] = [];
    for (let t = 0; t <= 600_000; t += PASS) {
      for (const k of [0, 1]) {
        arrivals.push({
          spec: jobSpec(`small-${String(t / PASS).padStart(3, '0')}-${k}`, {
            submittedAt: t,
            worker: { cpu: cpu(1), memory: Gi },
            min: 1,
            max: 1,
          }),
          runtimeMs: RUNTIME,
        });
      }
    }
    arrivals.push({
      spec: jobSpec('light', { submittedAt: 50_000, worker: { cpu: cpu(8), memory: Gi }, min: 1, max: 1 }),
      runtimeMs: RUNTIME,
    });
    const starveLimitMs = 100_000;
    const config = resolveSchedulerConfig({ starveLimitMs });
    const light = arrivals.at(-1)!.spec;
    const admittedDuringWait = (policy: 'kod2' | 'ours') => {
      const placements: { job: string; nodes: string[] }[] = [];
      let lightAt: number | undefined;
      const sim = simulate(policy, config, nodes, arrivals, PASS, 600_000, (after, plan) => {
        if (after.now < light.submittedAt + starveLimitMs || lightAt !== undefined) return;
        for (const a of plan.admit) {
          if (a.job === 'light') lightAt = after.now;
          else placements.push({ job: a.job, nodes: a.replicas.map((r) => r.node ?? '-') });
        }
      });
      const admitted = sim.admittedAt.get('light');
      expect(admitted, policy).toBeDefined();
      const k = aheadWhenStarving(sim, light, starveLimitMs);
      expect(admitted!).toBeLessThanOrEqual(light.submittedAt + starvationWaitBound(config, k, RUNTIME, PASS));
      return placements;
    };
    expect(admittedDuringWait('kod2')).toEqual([]);
    const ours = admittedDuringWait('ours');
    // ours kept admitting, and never onto the light job's reserved node ("a": most idle first, then name).
    expect(ours.length).toBeGreaterThan(0);
    for (const p of ours)
      expect(
        p.nodes.every((n) => n === 'b'),
        p.job,
      ).toBe(true);
  });

  it('bounds every job’s wait over random arrival streams (single class, runtimes ≤ R, all fit an empty cluster, curves or not)', () => {
    const nodes: NodeInfo[] = [node('a', { cpu: cpu(8), memory: 32 * Gi }), node('b', { cpu: cpu(8), memory: 32 * Gi })];
    const jobArb = fc.record({
      slot: fc.integer({ min: 0, max: 20 }),
      psCpu: fc.integer({ min: 1, max: 2 }),
      workerCpu: fc.integer({ min: 1, max: 3 }),
      min: fc.integer({ min: 1, max: 2 }),
      extra: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3 })),
      runtimeSlots: fc.integer({ min: 1, max: 6 }),
      // Steps of a declared scaling curve (none for some jobs), so ours' curve-based rules act too.
      curveSteps: fc.option(fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 5, maxLength: 5 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(jobArb, { minLength: 1, maxLength: 24 }),
        fc.constantFrom('kod2' as const, 'ours' as const),
        fc.integer({ min: 2, max: 8 }),
        (jobs, policy, limitSlots) => {
          const starveLimitMs = limitSlots * PASS;
          const config = resolveSchedulerConfig({ starveLimitMs });
          const maxRuntime = 6 * PASS;
          const arrivals: SimArrival[] = jobs.map((j, i) => ({
            // PS + min workers ≤ 2 + 2·3 = 8 cpu: fits one node of an empty cluster.
            spec: jobSpec(`j${String(i).padStart(2, '0')}`, {
              submittedAt: j.slot * PASS,
              ps: { cpu: cpu(j.psCpu), memory: Gi },
              worker: { cpu: cpu(j.workerCpu), memory: Gi },
              min: j.min,
              max: j.min + j.extra,
              ...(j.curveSteps === undefined
                ? {}
                : {
                    scalingCurve: j.curveSteps
                      .slice(0, j.min + j.extra)
                      .map((_, k, xs) => 10 + xs.slice(0, k + 1).reduce((a, b) => a + b, 0)),
                  }),
            }),
            runtimeMs: j.runtimeSlots * PASS,
          }));
          const horizon = 21 * PASS + starveLimitMs + (jobs.length + 2) * (maxRuntime + PASS);
          const sim = simulate(policy, config, nodes, arrivals, PASS, horizon);
          for (const a of arrivals) {
            const k = aheadWhenStarving(sim, a.spec, starveLimitMs);
            const bound = a.spec.submittedAt + starvationWaitBound(config, k, maxRuntime, PASS);
            const admitted = sim.admittedAt.get(a.spec.key);
            expect(admitted, `${a.spec.key} admitted`).toBeDefined();
            expect(admitted!).toBeLessThanOrEqual(bound);
          }
        },
      ),
      { seed: 7, numRuns: 80 },
    );
  });
});
