// `ours`' throughput-per-resource rules (gain.ts): growth before admission and cheapest
// victims first, hand-computed on the paper's testbed (3 nodes × 10 cpu × 32Gi; cluster share of a
// replica = cpu/30 + memory/96Gi).
import { describe, expect, it } from 'vitest';
import { resolveSchedulerConfig } from '../../../src/scheduler/config.ts';
import { admissionGainDensity, growBeforeAdmitLimit, normalisedSpeed, workerGainDensity } from '../../../src/scheduler/model/gain.ts';
import { schedule } from '../../../src/scheduler/index.ts';
import { buildPassModel } from '../../../src/scheduler/model/pass-model.ts';
import { cpu, describeReplicas, Gi, paperTestbed, running, snapshot, waiting } from './helpers/builders.ts';

const LINEAR = [100, 200, 300, 400];
const FLAT = [100, 100, 100, 100];
const busy = (used: Record<string, number>) =>
  Object.entries(used).map(([n, c]) => ({ key: `other/${n}`, node: n, requests: { cpu: cpu(c) } }));
const without = (...names: ('growBeforeAdmit' | 'preemptCheapestFirst')[]) =>
  resolveSchedulerConfig({ improvements: Object.fromEntries(names.map((n) => [n, false])) });
const workersOf = (plan: ReturnType<typeof schedule>, job: string) =>
  plan.scaleOut.filter((s) => s.job === job).flatMap((s) => describeReplicas(s.add));

describe('gain (normalised speed per unit of cluster share)', () => {
  const model = buildPassModel(
    snapshot(paperTestbed(), [
      waiting('lin', { scalingCurve: LINEAR }),
      waiting('flat', { scalingCurve: FLAT }),
      waiting('short', { scalingCurve: [100, 150] }),
      waiting('none'),
    ]),
    resolveSchedulerConfig(),
  );
  const job = (key: string) => model.jobs.get(key)!;
  // Default shapes: PS 1 cpu / 2Gi (share 1/30 + 2/96), worker 2 cpu / 4Gi (2/30 + 4/96).
  const ps = 1 / 30 + 2 / 96;
  const worker = 2 / 30 + 4 / 96;

  it('normalises throughput by the throughput at the maximum (or the curve’s end)', () => {
    expect(normalisedSpeed(job('lin').workers!, 1)).toBeCloseTo(0.25);
    expect(normalisedSpeed(job('lin').workers!, 0)).toBe(0);
    expect(normalisedSpeed(job('flat').workers!, 1)).toBe(1);
    expect(normalisedSpeed(job('short').workers!, 2)).toBe(1);
    expect(normalisedSpeed(job('short').workers!, 3)).toBeUndefined();
    expect(normalisedSpeed(job('none').workers!, 1)).toBeUndefined();
  });

  it('values a worker by what it adds, and an admission by its minimum configuration’s speed, PS included', () => {
    expect(workerGainDensity(model.state, job('lin').workers!, 2)).toBeCloseTo(0.25 / worker);
    expect(workerGainDensity(model.state, job('flat').workers!, 2)).toBe(0);
    expect(workerGainDensity(model.state, job('none').workers!, 2)).toBeUndefined();
    expect(admissionGainDensity(model.state, job('lin'))).toBeCloseTo(0.25 / (ps + worker));
    expect(admissionGainDensity(model.state, job('flat'))).toBeCloseTo(1 / (ps + worker));
    expect(admissionGainDensity(model.state, job('none'))).toBeUndefined();
  });

  it('grows before admission while each next worker adds more than the threshold, within the limit', () => {
    const w = job('lin').workers!;
    const admitLinear = admissionGainDensity(model.state, job('lin'))!;
    expect(growBeforeAdmitLimit(model.state, w, 1, 4, admitLinear)).toBe(4);
    expect(growBeforeAdmitLimit(model.state, w, 1, 3, admitLinear)).toBe(3);
    // Exactly equal is not more: no growth.
    expect(growBeforeAdmitLimit(model.state, w, 1, 4, 0.25 / worker)).toBe(1);
    expect(growBeforeAdmitLimit(model.state, job('flat').workers!, 1, 4, 0)).toBe(1);
    expect(growBeforeAdmitLimit(model.state, job('none').workers!, 1, 4, 0)).toBe(1);
  });
});

describe('growth before admission (ours)', () => {
  // R runs PS + 1 worker on node-1 (max 4, linear). node-2 and node-3 are full but 4 cpu on
  // node-2: room for R's next 2 workers, or for W's PS and worker (3 cpu), not both.
  const snap = (curveR: readonly number[] | undefined, curveW: readonly number[] | undefined, now = 100_000, node2Used = 6) =>
    snapshot(
      paperTestbed(),
      [
        running('R', ['PS:0@node-1', 'Worker:0@node-1'], {
          ...(curveR === undefined ? {} : { scalingCurve: curveR }),
          submittedAt: 0,
          createdAt: 0,
        }),
        waiting('W', { ...(curveW === undefined ? {} : { scalingCurve: curveW }), submittedAt: 50_000 }),
      ],
      { now, otherPods: busy({ 'node-1': 7, 'node-2': node2Used, 'node-3': 10 }) },
    );

  it('widens a linearly scaling job rather than start another at one worker (its PS is overhead); kod2 admits', () => {
    const ours = schedule('ours', snap(LINEAR, LINEAR));
    expect(ours.admit).toEqual([]);
    expect(workersOf(ours, 'R')).toEqual(['Worker:1@node-2', 'Worker:2@node-2']);
    expect(ours.waiting.map((w) => w.job)).toEqual(['W']);
    for (const plan of [schedule('kod2', snap(LINEAR, LINEAR)), schedule('ours', snap(LINEAR, LINEAR), without('growBeforeAdmit'))]) {
      expect(plan.admit.map((a) => [a.job, describeReplicas(a.replicas)])).toEqual([['W', ['PS:0@node-2', 'Worker:0@node-2']]]);
    }
  });

  it('admits first when the waiting job gains more (its minimum already runs at full speed)', () => {
    const plan = schedule('ours', snap(LINEAR, FLAT));
    expect(plan.admit.map((a) => a.job)).toEqual(['W']);
  });

  it('keeps KOD2’s order when a curve is missing, or a job starves', () => {
    expect(schedule('ours', snap(LINEAR, undefined)).admit.map((a) => a.job)).toEqual(['W']);
    expect(schedule('ours', snap(undefined, LINEAR)).admit.map((a) => a.job)).toEqual(['W']);
    // W starving (waited the 30-minute default): no growth first.
    expect(schedule('ours', snap(LINEAR, LINEAR, 50_000 + 30 * 60_000)).admit.map((a) => a.job)).toEqual(['W']);
  });

  it('does not grow a job first while a job of a higher class waits', () => {
    const s = snap(LINEAR, LINEAR);
    const higher = { ...s, jobs: s.jobs.map((j) => (j.spec.key === 'W' ? { ...j, spec: { ...j.spec, priority: 10 } } : j)) };
    expect(schedule('ours', higher).admit.map((a) => a.job)).toEqual(['W']);
  });

  it('stops at the knee even where workers past it would still beat the admission', () => {
    // node-2 has room for 3 workers. R's 4th worker adds 10 < 0.25 × 100: the knee stops R at 3
    // workers; W, whose 1 of 4 workers buys little, still waits (2 cpu left, it needs 3).
    const kneeR = [100, 200, 300, 310];
    const slowStartW = [10, 100, 200, 400];
    const plan = schedule('ours', snap(kneeR, slowStartW, 100_000, 4));
    expect(workersOf(plan, 'R')).toEqual(['Worker:1@node-2', 'Worker:2@node-2']);
    expect(plan.admit).toEqual([]);
    const noKnee = schedule('ours', snap(kneeR, slowStartW, 100_000, 4), resolveSchedulerConfig({ improvements: { scalingKnee: false } }));
    expect(workersOf(noKnee, 'R')).toEqual(['Worker:1@node-2', 'Worker:2@node-2', 'Worker:3@node-2']);
  });
});

describe('cheapest victims first (ours)', () => {
  // A (3 cpu workers, the lowest weight) and B (2 cpu workers) each run PS + 3 workers; node-3 is
  // full. H (1 cpu worker) outranks both and needs 2 cpu: one worker of either makes room.
  const snap = (curveA: readonly number[] | undefined, curveB: readonly number[] | undefined) =>
    snapshot(
      paperTestbed(),
      [
        running('A', ['PS:0@node-1', 'Worker:0@node-1', 'Worker:1@node-1', 'Worker:2@node-1'], {
          worker: { cpu: cpu(3), memory: 4 * Gi },
          ...(curveA === undefined ? {} : { scalingCurve: curveA }),
          createdAt: 0,
        }),
        running('B', ['PS:0@node-2', 'Worker:0@node-2', 'Worker:1@node-2', 'Worker:2@node-2'], {
          ...(curveB === undefined ? {} : { scalingCurve: curveB }),
          createdAt: 0,
        }),
        waiting('H', { worker: { cpu: cpu(1), memory: 2 * Gi }, submittedAt: 10_000 }),
      ],
      { now: 200_000, otherPods: busy({ 'node-2': 3, 'node-3': 10 }) },
    );
  const victims = (plan: ReturnType<typeof schedule>) => plan.scaleIn.map((s) => [s.job, describeReplicas(s.remove)]);

  it('takes the worker that adds least to its job, not the lowest-ranked job’s; kod2 takes by rank', () => {
    // A linear (its 3rd worker adds a quarter of its speed), B saturated at 2 (its 3rd adds nothing).
    const s = snap(LINEAR, [100, 200, 200, 200]);
    expect(victims(schedule('kod2', s))).toEqual([['A', ['Worker:2@node-1']]]);
    expect(victims(schedule('ours', s, without('preemptCheapestFirst')))).toEqual([['A', ['Worker:2@node-1']]]);
    expect(victims(schedule('ours', s))).toEqual([['B', ['Worker:2@node-2']]]);
  });

  it('keeps rank order among victims without a curve, after those with one', () => {
    expect(victims(schedule('ours', snap(undefined, undefined)))).toEqual([['A', ['Worker:2@node-1']]]);
    expect(victims(schedule('ours', snap(undefined, LINEAR)))).toEqual([['B', ['Worker:2@node-2']]]);
  });
});
