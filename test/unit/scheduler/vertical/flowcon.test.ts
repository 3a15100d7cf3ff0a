// FlowCon as a pure rule: growth efficiency, the three lists, the limits set from them, the interval's
// back-off, and what it leaves alone (no progress, opt-out, limits someone else set, no room).
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FLOWCON_CONFIG,
  EMPTY_FLOWCON_STATE,
  flowConRound,
  nextList,
  relativeGain,
  type ContainerCpu,
  type EvaluationPoint,
  type FlowConJob,
  type FlowConState,
} from '../../../../src/scheduler/vertical/flowcon/index.ts';

const NODE = { name: 'n1', allocatableMillis: 2000 };
const T0 = Date.UTC(2026, 10, 28, 12);
const S = 1000;

function cpu(pod: string, o: Partial<ContainerCpu> = {}): ContainerCpu {
  return { pod, container: 'tensorflow', node: 'n1', requestMillis: 200, limitMillis: 1000, templateLimitMillis: 1000, ...o };
}
const loss = (value: number, time: number): EvaluationPoint => ({ time, value, name: 'loss', higherIsBetter: false });
const job = (
  key: string,
  evaluation: EvaluationPoint | undefined,
  containers = [cpu(`${key}-worker-0`)],
  o: Partial<FlowConJob> = {},
): FlowConJob => ({
  key,
  containers,
  ...(evaluation ? { evaluation } : {}),
  ...o,
});

/** Two rounds 20 s apart: the first only starts every job's interval. */
function twoRounds(first: FlowConJob[], second: FlowConJob[], prev: FlowConState = EMPTY_FLOWCON_STATE) {
  const r1 = flowConRound({ now: T0, jobs: first, nodes: [NODE] }, prev);
  return { r1, r2: flowConRound({ now: T0 + 20 * S, jobs: second, nodes: [NODE] }, r1.state) };
}

describe('growth', () => {
  it.each([
    // from, to, higher is better, relative gain
    [1.0, 0.8, false, 0.2],
    [0.5, 0.6, true, 0.2],
    [0.8, 1.0, false, 0], // a loss going up is no growth (the paper's |ΔE| would count it)
    [0.6, 0.5, true, 0],
    [0, 0, false, 0],
  ])('relativeGain %f → %f (higher is better: %s) = %f', (from, to, higher, want) => {
    const p = (value: number): EvaluationPoint => ({ time: 0, value, name: 'm', higherIsBetter: higher });
    expect(relativeGain(p(from), p(to))).toBeCloseTo(want, 9);
  });

  it.each([
    ['New', 0.06, 'New'],
    ['New', 0.04, 'Watching'],
    ['Watching', 0.04, 'Completing'],
    ['Completing', 0.01, 'Completing'],
    ['Completing', 0.05, 'New'], // at α counts as growing (Algorithm 1 line 10: ≥ α)
    ['Watching', 0.2, 'New'],
  ] as const)('list %s with gain %f per core → %s', (from, perCore, to) => {
    expect(nextList(from, perCore, DEFAULT_FLOWCON_CONFIG)).toBe(to);
  });
});

describe('flowConRound', () => {
  it('a first round only starts intervals; the second gives the fast learner the node by growth efficiency', () => {
    const { r1, r2 } = twoRounds(
      [job('ns/fast', loss(1.0, T0)), job('ns/slow', loss(1.0, T0))],
      // Both had 1 core for 20 s: fast gained 50 % (0.5/core/interval), slow 1 % (0.01 < α).
      [job('ns/fast', loss(0.5, T0 + 19 * S)), job('ns/slow', loss(0.99, T0 + 19 * S))],
    );
    expect(r1.changes).toEqual([]);
    expect(r1.verdicts.map((v) => [v.job, v.list])).toEqual([
      ['ns/fast', 'New'],
      ['ns/slow', 'New'],
    ]);
    const v = new Map(r2.verdicts.map((x) => [x.job, x]));
    expect(v.get('ns/fast')?.gainPerCore).toBeCloseTo(0.5, 9);
    expect(v.get('ns/fast')?.growthEfficiency).toBeCloseTo(0.5 / 20, 9); // per CPU-second: 1 core × 20 s
    expect(v.get('ns/slow')?.list).toBe('Watching');
    // fast is New: its share is 0.025/(0.025+0.0005) of 2 cores = 1961m; slow (Watching) keeps its 1000m.
    expect(r2.changes.map((c) => [c.pod, c.fromMillis, c.toMillis])).toEqual([['ns/fast-worker-0', 1000, 1961]]);
    expect(r2.changes[0]!.reason).toMatch(/^FlowCon: New, gain 0.5\/core/);
  });

  it('a Completing job is held to its share, at least 1/(β·n) of the node, never below its request', () => {
    let state = EMPTY_FLOWCON_STATE;
    let fast = 1.0;
    let slow = 1.0;
    const limits = new Map([
      ['ns/fast', 1000],
      ['ns/slow', 1000],
    ]);
    let last = flowConRound({ now: T0, jobs: [], nodes: [NODE] }, state);
    for (let i = 0; i <= 3; i++) {
      const now = T0 + i * 20 * S;
      const jobs = [
        job('ns/fast', loss(fast, now), [
          cpu('ns/fast-worker-0', { limitMillis: limits.get('ns/fast')!, setByUsMillis: limits.get('ns/fast')! }),
        ]),
        job('ns/slow', loss(slow, now), [
          cpu('ns/slow-worker-0', { limitMillis: limits.get('ns/slow')!, setByUsMillis: limits.get('ns/slow')! }),
        ]),
      ];
      last = flowConRound({ now, jobs, nodes: [NODE] }, state);
      state = last.state;
      for (const c of last.changes) limits.set(c.job, c.toMillis);
      fast *= 0.6;
      slow *= 0.999;
    }
    expect(last.verdicts.map((v) => [v.job, v.list])).toEqual([
      ['ns/fast', 'New'],
      ['ns/slow', 'Completing'],
    ]);
    // slow's own share is tiny; 1/(β·n) = 1/(2·2) of 2000m = 500m.
    expect(limits.get('ns/slow')).toBe(500);
    expect(limits.get('ns/fast')).toBeGreaterThan(1900);
    // With a request above that floor, the request is the floor.
    const r = flowConRound(
      {
        now: T0 + 80 * S,
        jobs: [
          job('ns/fast', loss(fast, T0 + 80 * S)),
          job('ns/slow', loss(slow, T0 + 80 * S), [
            cpu('ns/slow-worker-0', { requestMillis: 700, limitMillis: 500 + 500, templateLimitMillis: 1000 }),
          ]),
        ],
        nodes: [NODE],
      },
      state,
    );
    const slowChange = r.changes.find((c) => c.job === 'ns/slow');
    expect(slowChange?.toMillis).toBe(700);
    // A Completing job whose floor lies above its limit is held where it is, not raised.
    const small = flowConRound(
      {
        now: T0 + 80 * S,
        jobs: [
          job('ns/fast', loss(fast, T0 + 80 * S)),
          job('ns/slow', loss(slow, T0 + 80 * S), [cpu('ns/slow-worker-0', { limitMillis: 300, templateLimitMillis: 300 })]),
        ],
        nodes: [NODE],
      },
      state,
    );
    expect(small.verdicts.find((v) => v.job === 'ns/slow')?.list).toBe('Completing');
    expect(small.changes.filter((c) => c.job === 'ns/slow')).toEqual([]);
  });

  it('every job Completing: all get the whole node and the interval doubles, up to its cap; a new job resets it', () => {
    let state = EMPTY_FLOWCON_STATE;
    const intervals: number[] = [];
    let changesWhenAllCompleting: number[] = [];
    for (let i = 0; i < 8; i++) {
      const now = T0 + i * 20 * S;
      const value = 1 - i * 0.001; // 0.1 % per interval: below α
      const r = flowConRound({ now, jobs: [job('ns/a', loss(value, now)), job('ns/b', loss(value, now))], nodes: [NODE] }, state);
      state = r.state;
      intervals.push(r.intervalMs);
      if (r.verdicts.every((v) => v.list === 'Completing') && r.changes.length > 0)
        changesWhenAllCompleting = r.changes.map((c) => c.toMillis);
    }
    // Round 0 New, round 1 Watching, round 2 Completing: from round 2 on the interval doubles, up to 320 s.
    expect(intervals).toEqual([20_000, 20_000, 40_000, 80_000, 160_000, 320_000, 320_000, 320_000]);
    expect(changesWhenAllCompleting).toEqual([2000, 2000]);
    const joined = flowConRound(
      {
        now: T0 + 200 * S,
        jobs: [job('ns/a', loss(0.9, T0 + 200 * S)), job('ns/b', loss(0.9, T0 + 200 * S)), job('ns/c', loss(3, T0 + 200 * S))],
        nodes: [NODE],
      },
      state,
    );
    expect(joined.intervalMs).toBe(20_000);
  });

  it('no new value since the interval started: the interval goes on and the allowed CPU keeps counting', () => {
    const r1 = flowConRound({ now: T0, jobs: [job('ns/a', loss(1, T0))], nodes: [NODE] });
    const r2 = flowConRound({ now: T0 + 20 * S, jobs: [job('ns/a', loss(1, T0))], nodes: [NODE] }, r1.state);
    expect(r2.verdicts[0]).toEqual({ job: 'ns/a', list: 'New' });
    expect(r2.changes).toEqual([]);
    // At 40 s: 1 core for 40 s, gain 20 % → 0.2 per core per interval, 0.005 per CPU-second.
    const r3 = flowConRound({ now: T0 + 40 * S, jobs: [job('ns/a', loss(0.8, T0 + 39 * S))], nodes: [NODE] }, r2.state);
    expect(r3.verdicts[0]!.growthEfficiency).toBeCloseTo(0.2 / 40, 9);
    expect(r3.verdicts[0]!.gainPerCore).toBeCloseTo(0.2, 9);
  });

  it('the interval after a limit change accrues CPU at the new limit, not the one before the round', () => {
    const r1 = flowConRound({ now: T0, jobs: [job('ns/a', loss(1, T0))], nodes: [NODE] });
    const r2 = flowConRound({ now: T0 + 20 * S, jobs: [job('ns/a', loss(0.5, T0 + 19 * S))], nodes: [NODE] }, r1.state);
    // The only New job on the node gets all of it: 1000m → 2000m.
    expect(r2.changes.map((c) => [c.fromMillis, c.toMillis])).toEqual([[1000, 2000]]);
    const raised = [cpu('ns/a-worker-0', { limitMillis: 2000, setByUsMillis: 2000 })];
    const r3 = flowConRound({ now: T0 + 40 * S, jobs: [job('ns/a', loss(0.4, T0 + 39 * S), raised)], nodes: [NODE] }, r2.state);
    // 2 cores for 20 s, gain 20 %: 0.2 / 40 core-seconds, 0.1 per core (at the old 1 core: twice both).
    expect(r3.verdicts[0]!.growthEfficiency).toBeCloseTo(0.2 / 40, 9);
    expect(r3.verdicts[0]!.gainPerCore).toBeCloseTo(0.1, 9);
  });

  it('with a CPU usage counter, growth is per CPU-second used (the paper), not allowed', () => {
    const at = (t: number, value: number, usedMs: number) =>
      job('ns/a', loss(value, T0 + t * S), undefined, { cpuUsedMilliSeconds: usedMs });
    const r1 = flowConRound({ now: T0, jobs: [at(0, 1, 40_000)], nodes: [NODE] });
    // Allowed 1 core for 20 s, used 5 core-seconds (a quarter core): gain 20 % per 5 CPU-seconds.
    const r2 = flowConRound({ now: T0 + 20 * S, jobs: [at(19, 0.8, 45_000)], nodes: [NODE] }, r1.state);
    expect(r2.verdicts[0]!.growthEfficiency).toBeCloseTo(0.2 / 5, 9);
    expect(r2.verdicts[0]!.gainPerCore).toBeCloseTo(0.8, 9);
    expect(r2.changes[0]?.reason).toMatch(/^FlowCon: New, gain 0.8\/core used per interval/);
    // The counter started again (a re-created container): this interval falls back to the CPU allowed.
    const limit = r2.changes[0]?.toMillis ?? 1000;
    const raised = [cpu('ns/a-worker-0', { limitMillis: limit, setByUsMillis: limit })];
    const r3 = flowConRound(
      { now: T0 + 40 * S, jobs: [job('ns/a', loss(0.64, T0 + 39 * S), raised, { cpuUsedMilliSeconds: 1_000 })], nodes: [NODE] },
      r2.state,
    );
    expect(r3.verdicts[0]!.growthEfficiency).toBeCloseTo(0.2 / ((limit / 1000) * 20), 9);
  });

  it.each([
    ['no progress information', job('ns/a', undefined), 'no progress information'],
    ['opted out', job('ns/a', loss(1, T0), undefined, { optOut: true }), 'opted out (cpu-resize annotation)'],
    ['Guaranteed (limit = request)', job('ns/a', loss(1, T0), [cpu('p', { requestMillis: 1000 })]), 'no CPU limit above its request'],
    ['limit set by someone else', job('ns/a', loss(1, T0), [cpu('p', { limitMillis: 700 })]), 'its CPU limit was set by someone else'],
    ['no running containers', job('ns/a', loss(1, T0), []), 'no running containers'],
  ])('%s: left alone, and never changed', (_, j, why) => {
    const later = { ...j, ...(j.evaluation ? { evaluation: loss(0.1, T0 + 19 * S) } : {}) };
    const { r1, r2 } = twoRounds([j, job('ns/b', loss(1, T0))], [later, job('ns/b', loss(0.5, T0 + 19 * S))]);
    expect(r1.verdicts.find((v) => v.job === 'ns/a')).toEqual({ job: 'ns/a', leftAlone: why });
    expect(r2.changes.filter((c) => c.job === 'ns/a')).toEqual([]);
  });

  it('limits stay within [request, node allocatable] and changes below the minimum step are not made', () => {
    const big = { name: 'n1', allocatableMillis: 1030 };
    const r1 = flowConRound({ now: T0, jobs: [job('ns/a', loss(1, T0))], nodes: [big] });
    const r2 = flowConRound({ now: T0 + 20 * S, jobs: [job('ns/a', loss(0.5, T0 + 19 * S))], nodes: [big] }, r1.state);
    // Alone and New: the whole node, 1030m, is only 30m above its 1000m: not worth a write.
    expect(r2.changes).toEqual([]);
    const r3 = flowConRound({ now: T0 + 20 * S, jobs: [job('ns/a', loss(0.5, T0 + 19 * S))], nodes: [NODE] }, r1.state);
    expect(r3.changes.map((c) => c.toMillis)).toEqual([2000]);
  });

  it("splits a job's share on a node among its containers there by their requests; other nodes' containers follow their own node", () => {
    const two = [cpu('w0', { requestMillis: 300 }), cpu('w1', { requestMillis: 100 }), cpu('w2', { node: 'n2' })];
    const nodes = [NODE, { name: 'n2', allocatableMillis: 4000 }];
    const r1 = flowConRound({ now: T0, jobs: [job('ns/a', loss(1, T0), two)], nodes });
    const r2 = flowConRound({ now: T0 + 20 * S, jobs: [job('ns/a', loss(0.5, T0 + 19 * S), two)], nodes }, r1.state);
    expect(r2.changes.map((c) => [c.pod, c.toMillis])).toEqual([
      ['w0', 1500],
      ['w1', 500],
      ['w2', 4000],
    ]);
  });

  it('is deterministic whatever the order of jobs', () => {
    const a = [job('ns/a', loss(1, T0)), job('ns/b', loss(2, T0), [cpu('b0')])];
    const b = [job('ns/a', loss(0.5, T0 + 19 * S)), job('ns/b', loss(1.9, T0 + 19 * S), [cpu('b0')])];
    const x = twoRounds(a, b).r2;
    const y = twoRounds([...a].reverse(), [...b].reverse()).r2;
    expect(y.changes).toEqual(x.changes);
    expect(y.verdicts).toEqual(x.verdicts);
  });

  it('starts at the configured interval, also while no job has progress information yet', () => {
    const config = { ...DEFAULT_FLOWCON_CONFIG, initialIntervalMs: 2_000 };
    const r1 = flowConRound({ now: T0, jobs: [job('ns/a', undefined)], nodes: [NODE] }, undefined, config);
    expect(r1.intervalMs).toBe(2_000);
    const r2 = flowConRound({ now: T0 + 2 * S, jobs: [job('ns/a', undefined)], nodes: [NODE] }, r1.state, config);
    expect(r2.intervalMs).toBe(2_000);
  });
});
