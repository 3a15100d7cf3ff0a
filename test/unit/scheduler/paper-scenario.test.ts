// The paper's experiment in miniature: 3 nodes of 10 cpu / 32Gi, 10 TFJobs (1 PS + 1..4 workers)
// submitted every 30 s, cycling four models. Every policy runs pass after pass; the invariants
// must hold at every pass, and the baselines must show the behaviour the paper describes.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULER_CONFIG } from '../../../src/scheduler/config.ts';
import type { SimPolicyName as PolicyName } from '../../../lab/simulator/policies/registry.ts';
import { overcommittedNodes, simulate } from './helpers/apply-plan.ts';
import type { SimArrival } from './helpers/apply-plan.ts';
import { cpu, Gi, jobSpec, paperTestbed } from './helpers/builders.ts';

const MODELS = [
  { name: 'cnn-rand', ps: { cpu: cpu(0.5), memory: 1 * Gi }, worker: { cpu: cpu(1), memory: 2 * Gi } },
  { name: 'vgg-16', ps: { cpu: cpu(2), memory: 4 * Gi }, worker: { cpu: cpu(3), memory: 8 * Gi } },
  { name: 'resnet-50', ps: { cpu: cpu(1), memory: 2 * Gi }, worker: { cpu: cpu(2), memory: 6 * Gi } },
  { name: 'resnext-110', ps: { cpu: cpu(1), memory: 2 * Gi }, worker: { cpu: cpu(2), memory: 4 * Gi } },
];

const arrivals: SimArrival[] = Array.from({ length: 10 }, (_, i) => {
  const m = MODELS[i % MODELS.length]!;
  return {
    spec: jobSpec(`kubeflow/${m.name}-${i}`, { submittedAt: i * 30_000, ps: m.ps, worker: m.worker, min: 1, max: 4 }),
    runtimeMs: 300_000,
  };
});

function run(policy: PolicyName) {
  let maxPending = 0;
  let overcommitted: string[] = [];
  let unboundOutsideTf = 0;
  const sim = simulate(policy, DEFAULT_SCHEDULER_CONFIG, paperTestbed(), arrivals, 10_000, 3_600_000, (after) => {
    overcommitted = overcommitted.concat(overcommittedNodes(after));
    const pending = after.jobs.filter((j) => j.phase === 'running').flatMap((j) => j.replicas.filter((r) => r.node === undefined));
    maxPending = Math.max(maxPending, pending.length);
    if (policy !== 'tf-operator') unboundOutsideTf += pending.length;
  });
  return { sim, maxPending, overcommitted, unboundOutsideTf };
}

describe('kod2-paper scenario', () => {
  for (const policy of ['gang-fifo', 'kod2', 'ours'] as const) {
    it(`${policy}: every job runs and finishes, no node is ever over-committed, no pod is left unbound`, () => {
      const r = run(policy);
      expect(r.overcommitted).toEqual([]);
      expect(r.unboundOutsideTf).toBe(0);
      expect(r.sim.finishedAt.size).toBe(10);
    });
  }

  it('kod2 and ours run jobs elastically: some job grows beyond its minimum and some is preempted or waits', () => {
    for (const policy of ['kod2', 'ours'] as const) {
      const r = run(policy);
      const scaledOut = r.sim.plans.some(
        (p) => p.scaleOut.length > 0 || p.admit.some((a) => a.replicas.filter((x) => x.type === 'Worker').length > 1),
      );
      expect(scaledOut).toBe(true);
      const contention = r.sim.plans.some((p) => p.scaleIn.length > 0 || p.waiting.length > 0);
      expect(contention).toBe(true);
    }
  });

  it('tf-operator creates every pod at once and leaves some Pending: partial allocation, as in the paper', () => {
    const r = run('tf-operator');
    expect(r.overcommitted).toEqual([]);
    expect(r.maxPending).toBeGreaterThan(0);
    // All 10 jobs were admitted (their pods created) at submission.
    for (const a of arrivals) expect(r.sim.admittedAt.get(a.spec.key)).toBe(a.spec.submittedAt);
  });
});
