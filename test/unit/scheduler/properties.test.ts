// Property-based tests over random clusters and jobs (fast-check, fixed seeds so failures replay).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { schedule } from '../../../lab/simulator/policies/registry.ts';
import type { SchedulerConfig } from '../../../src/scheduler/config.ts';
import type { ClusterSnapshot, JobSpec, JobState, Plan } from '../../../src/scheduler/types.ts';
import type { SimPolicyName as PolicyName } from '../../../lab/simulator/policies/registry.ts';
import { applyPlan, overcommittedNodes, placedByPlan, placementAllowed } from './helpers/apply-plan.ts';
import { shuffled, snapshotArb } from './helpers/arbitraries.ts';

const POLICIES: readonly PolicyName[] = ['tf-operator', 'gang-fifo', 'kod2', 'ours'];
// `ours` runs with its defaults or with any combination of its improvements switched off.
const togglesArb = fc.record({
  scaleOutPrefersPsNodes: fc.boolean(),
  scaleOutPacksNodes: fc.boolean(),
  cooldown: fc.boolean(),
  scalingKnee: fc.boolean(),
  pruneNeedlessPreemption: fc.boolean(),
  preemptOnUsableNodesFirst: fc.boolean(),
  backfillWhenHeadBlocked: fc.boolean(),
  admitUntilBlocked: fc.boolean(),
  preemptCheapestFirst: fc.boolean(),
  growBeforeAdmit: fc.boolean(),
  demoteByAttainedService: fc.boolean(),
  suspendDemoted: fc.boolean(),
  suspendForBackfill: fc.boolean(),
  demoteConverged: fc.boolean(),
});
const configArb = fc.record({
  starveLimitMs: fc.constantFrom(20_000, 100_000, 10_000_000),
  scaleOutCooldownMs: fc.constantFrom(0, 60_000),
  // Low enough that the generated attained service (0 to 50,000 worker-seconds) demotes some jobs.
  demoteAfterWorkerSeconds: fc.constantFrom(1_000, 10_000),
  improvements: fc.option(togglesArb, { nil: undefined }),
});
const RUNS = { numRuns: 150, seed: 20261121 } as const;

const workersOf = (snap: ClusterSnapshot, key: string): number =>
  snap.jobs
    .find((j) => j.spec.key === key)!
    .replicas.filter((r) => r.type === snap.jobs.find((j) => j.spec.key === key)!.spec.workers?.type).length;

/**
 * `ours`' demotion band from first principles: 1 once past the attained-service threshold, or
 * reporting Converged, when the matching toggle is on; 0 otherwise (always 0 for `kod2`).
 */
function bandOf(policy: PolicyName, job: JobState, config: SchedulerConfig): number {
  if (policy !== 'ours') return 0;
  const served = config.improvements.demoteByAttainedService && (job.attainedWorkerSeconds ?? 0) > config.demoteAfterWorkerSeconds;
  const converged = config.improvements.demoteConverged && job.progress?.phase === 'Converged';
  return served || converged ? 1 : 0;
}

/** "a ranks strictly above b" from first principles: class, demotion band, reported weight, then t_j, then key. */
function outranks(a: JobSpec, wa: number, b: JobSpec, wb: number, bands: { a: number; b: number } = { a: 0, b: 0 }): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (bands.a !== bands.b) return bands.a < bands.b;
  if (wa !== wb) return wa > wb;
  if (a.submittedAt !== b.submittedAt) return a.submittedAt < b.submittedAt;
  return a.key < b.key;
}

describe('scheduling invariants (property-based)', () => {
  for (const policy of POLICIES) {
    describe(policy, () => {
      it('never over-commits a node and only places replicas where their constraints allow', () => {
        fc.assert(
          fc.property(snapshotArb, configArb, (snap, c) => {
            expect(overcommittedNodes(snap)).toEqual([]);
            const plan = schedule(policy, snap, resolveSchedulerConfig(c));
            const after = applyPlan(snap, plan);
            expect(overcommittedNodes(after)).toEqual([]);
            const nodes = new Map(snap.nodes.map((n) => [n.name, n]));
            for (const { spec, replica } of placedByPlan(snap, plan)) {
              if (replica.node === undefined) continue;
              const n = nodes.get(replica.node);
              expect(n, replica.node).toBeDefined();
              expect(placementAllowed(spec, replica.type, n!), `${spec.key} ${replica.type}:${replica.index} on ${replica.node}`).toBe(
                true,
              );
            }
          }),
          RUNS,
        );
      });

      it('keeps every job within its worker bounds, never preempts fixed replicas, and keeps indices unique', () => {
        fc.assert(
          fc.property(snapshotArb, configArb, (snap, c) => {
            const plan = schedule(policy, snap, resolveSchedulerConfig(c));
            const after = applyPlan(snap, plan);
            const before = new Map(snap.jobs.map((j) => [j.spec.key, j]));
            for (const s of plan.scaleIn) {
              const job = before.get(s.job)!;
              expect(job.phase).toBe('running');
              for (const r of s.remove) {
                expect(r.type).toBe(job.spec.workers?.type);
                expect(job.replicas.some((x) => x.type === r.type && x.index === r.index && x.node === r.node)).toBe(true);
              }
            }
            for (const j of after.jobs) {
              if (j.phase !== 'running') continue;
              const ids = j.replicas.map((r) => `${r.type}:${r.index}`);
              expect(new Set(ids).size).toBe(ids.length);
              // Fixed replicas of running jobs are untouched.
              const fixedBefore = (before.get(j.spec.key)!.phase === 'running' ? before.get(j.spec.key)!.replicas : []).filter(
                (r) => r.type !== j.spec.workers?.type,
              );
              for (const f of fixedBefore) expect(j.replicas).toContainEqual(f);
              const w = j.spec.workers;
              if (w === undefined) continue;
              const count = workersOf(after, j.spec.key);
              const wasRunning = before.get(j.spec.key)!.phase === 'running';
              const hadBefore = wasRunning ? workersOf(snap, j.spec.key) : 0;
              // Never above max; never pushed below min by this plan.
              expect(count).toBeLessThanOrEqual(Math.max(w.max, hadBefore));
              if (plan.scaleIn.some((s) => s.job === j.spec.key)) expect(count).toBeGreaterThanOrEqual(w.min);
              const admitted = plan.admit.find((a) => a.job === j.spec.key);
              if (admitted !== undefined) {
                const initial = admitted.replicas.filter((r) => r.type === w.type).length;
                if (policy === 'tf-operator' || policy === 'gang-fifo') expect(initial).toBe(w.max);
                else expect(initial).toBeGreaterThanOrEqual(w.min);
              }
            }
            // Scale-in never reuses a removed index for a scale-out in the same plan.
            for (const s of plan.scaleIn) {
              const added = plan.scaleOut.filter((o) => o.job === s.job).flatMap((o) => o.add.map((r) => r.index));
              for (const r of s.remove) expect(added).not.toContain(r.index);
            }
          }),
          RUNS,
        );
      });

      it('is deterministic: the same input, in any array order, gives a deep-equal plan', () => {
        fc.assert(
          fc.property(snapshotArb, configArb, fc.integer({ min: 1, max: 2 ** 31 - 1 }), (snap, c, seed) => {
            const config = resolveSchedulerConfig(c);
            const plan = schedule(policy, snap, config);
            expect(schedule(policy, snap, config)).toEqual(plan);
            const again: Plan = schedule(policy, shuffled(snap, seed), config);
            expect(again).toEqual(plan);
            expect(JSON.stringify(again)).toBe(JSON.stringify(plan));
          }),
          RUNS,
        );
      });

      it('reports a weight for every unfinished job and a reason for every job left waiting', () => {
        fc.assert(
          fc.property(snapshotArb, configArb, (snap, c) => {
            const plan = schedule(policy, snap, resolveSchedulerConfig(c));
            const unfinished = snap.jobs
              .filter((j) => j.phase !== 'finished')
              .map((j) => j.spec.key)
              .sort();
            expect(Object.keys(plan.weights).sort()).toEqual(unfinished);
            for (const w of Object.values(plan.weights)) {
              expect(w).toBeGreaterThan(0);
              expect(w).toBeLessThanOrEqual(1);
            }
            const admitted = new Set(plan.admit.map((a) => a.job));
            const stillWaiting = snap.jobs
              .filter((j) => j.phase === 'waiting' && !admitted.has(j.spec.key))
              .map((j) => j.spec.key)
              .sort();
            expect(plan.waiting.map((w) => w.job).sort()).toEqual(stillWaiting);
            for (const w of plan.waiting) expect(w.reason.length).toBeGreaterThan(20);
            for (const a of plan.admit) expect(snap.jobs.find((j) => j.spec.key === a.job)!.phase).toBe('waiting');
          }),
          RUNS,
        );
      });
    });
  }

  for (const policy of ['kod2', 'ours'] as const) {
    it(`${policy}: preempts only for a strictly higher-ranked job of the same or a higher class, and respects the cool-down`, () => {
      fc.assert(
        fc.property(snapshotArb, configArb, (snap, c) => {
          const config = resolveSchedulerConfig(c);
          const plan = schedule(policy, snap, config);
          const spec = new Map(snap.jobs.map((j) => [j.spec.key, j.spec]));
          const state = new Map(snap.jobs.map((j) => [j.spec.key, j]));
          for (const s of plan.scaleIn) {
            const victim = spec.get(s.job)!;
            const forJob = spec.get(s.forJob)!;
            expect(plan.admit.map((a) => a.job)).toContain(s.forJob);
            expect(victim.priority).toBeLessThanOrEqual(forJob.priority);
            const bands = { a: bandOf(policy, state.get(forJob.key)!, config), b: bandOf(policy, state.get(victim.key)!, config) };
            expect(outranks(forJob, plan.weights[forJob.key]!, victim, plan.weights[victim.key]!, bands)).toBe(true);
            const starving = snap.now - forJob.submittedAt >= config.starveLimitMs;
            if (policy === 'ours' && config.improvements.cooldown && forJob.priority === victim.priority && !starving) {
              for (const r of s.remove) expect(r.createdAt === undefined || snap.now - r.createdAt >= config.scaleOutCooldownMs).toBe(true);
            }
          }
        }),
        { numRuns: 500, seed: 20261121 },
      );
    });
  }

  it('ours suspends only whole, suspendable, running jobs past the attained-service threshold, for an admitted job that is not', () => {
    let suspensions = 0;
    fc.assert(
      fc.property(snapshotArb, configArb, (snap, c) => {
        const config = resolveSchedulerConfig(c);
        const plan = schedule('ours', snap, config);
        const state = new Map(snap.jobs.map((j) => [j.spec.key, j]));
        const served = (j: JobState): boolean => (j.attainedWorkerSeconds ?? 0) > config.demoteAfterWorkerSeconds;
        const suspended = new Set(plan.suspend.map((x) => x.job));
        expect(suspended.size).toBe(plan.suspend.length);
        for (const x of plan.suspend) {
          suspensions++;
          const victim = state.get(x.job)!;
          const forJob = state.get(x.forJob)!;
          expect(config.improvements.demoteByAttainedService && config.improvements.suspendDemoted).toBe(true);
          expect(victim.phase).toBe('running');
          expect(victim.spec.suspendable).toBe(true);
          expect(served(victim)).toBe(true);
          expect(served(forJob)).toBe(false);
          expect(victim.spec.priority).toBeLessThanOrEqual(forJob.spec.priority);
          expect(forJob.phase).toBe('waiting');
          expect(plan.admit.map((a) => a.job)).toContain(x.forJob);
          // A suspended job is neither shrunk nor grown nor re-admitted in the same plan.
          expect(plan.scaleIn.some((s) => s.job === x.job)).toBe(false);
          expect(plan.scaleOut.some((s) => s.job === x.job)).toBe(false);
          expect(plan.admit.some((a) => a.job === x.job)).toBe(false);
        }
      }),
      { numRuns: 500, seed: 20261121 },
    );
    // The generators must reach the rule at all, or this property says nothing.
    expect(suspensions).toBeGreaterThan(0);
  });

  it('over several passes with arrivals, no policy over-commits and every bound replica stays feasible', () => {
    fc.assert(
      fc.property(snapshotArb, fc.constantFrom(...POLICIES), (start, policy) => {
        // Replay the generated jobs as arrivals: all waiting, arriving over three passes.
        const arrivals = start.jobs.map((j, i) => ({
          ...j,
          phase: 'waiting' as const,
          replicas: [],
          spec: { ...j.spec, submittedAt: (i % 3) * 1000 },
        }));
        let snap: ClusterSnapshot = { ...start, now: 0, jobs: [] };
        for (let pass = 0; pass < 4; pass++) {
          const now = pass * 1000;
          const known = new Set(snap.jobs.map((j) => j.spec.key));
          snap = { ...snap, now, jobs: [...snap.jobs, ...arrivals.filter((a) => a.spec.submittedAt <= now && !known.has(a.spec.key))] };
          const plan = schedule(policy, snap);
          snap = applyPlan(snap, plan);
          expect(overcommittedNodes(snap)).toEqual([]);
          const nodes = new Map(snap.nodes.map((n) => [n.name, n]));
          for (const j of snap.jobs) {
            for (const r of j.replicas) if (r.node !== undefined) expect(placementAllowed(j.spec, r.type, nodes.get(r.node)!)).toBe(true);
          }
        }
      }),
      { numRuns: 80, seed: 99 },
    );
  });
});
