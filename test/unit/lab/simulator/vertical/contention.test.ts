import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asyncCpuSpeedFactor, cpuSpeedFactor, shareNodeCpu, type CpuClaim } from '../../../../../lab/simulator/vertical/contention.ts';

const claim = (id: string, requestMillis: number, limitMillis: number, demandMillis: number): CpuClaim => ({
  id,
  requestMillis,
  limitMillis,
  demandMillis,
});

describe('shareNodeCpu', () => {
  it('gives every container what it can use when the node has room for all', () => {
    const got = shareNodeCpu(2000, [claim('a', 250, 2000, 500), claim('b', 250, 300, 900)]);
    expect(got.get('a')).toBe(500);
    expect(got.get('b')).toBe(300); // its limit binds below its demand
  });

  it('splits a contended node by requests (CFS weights)', () => {
    const got = shareNodeCpu(1200, [claim('a', 200, 2000, 2000), claim('b', 100, 2000, 2000)]);
    expect(got.get('a')).toBeCloseTo(800, 9);
    expect(got.get('b')).toBeCloseTo(400, 9);
  });

  it('shares what a capped container leaves among the others (work-conserving)', () => {
    const got = shareNodeCpu(2000, [claim('capped', 250, 200, 2000), claim('b', 250, 2000, 2000), claim('c', 250, 2000, 2000)]);
    expect(got.get('capped')).toBe(200);
    expect(got.get('b')).toBeCloseTo(900, 9);
    expect(got.get('c')).toBeCloseTo(900, 9);
  });

  it('never gives more than a cap or the node, and leaves CPU idle only when every container is at its cap', () => {
    const claims = fc.array(
      fc.record({
        requestMillis: fc.integer({ min: 0, max: 4000 }),
        limitMillis: fc.integer({ min: 0, max: 8000 }),
        demandMillis: fc.integer({ min: 0, max: 8000 }),
      }),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 16000 }), claims, (capacity, cs) => {
        const all = cs.map((c, i) => ({ id: `c${i}`, ...c }));
        const got = shareNodeCpu(capacity, all);
        const sum = [...got.values()].reduce((a, x) => a + x, 0);
        expect(sum).toBeLessThanOrEqual(capacity + 1e-6);
        for (const c of all) expect(got.get(c.id)!).toBeLessThanOrEqual(Math.min(c.limitMillis, c.demandMillis) + 1e-6);
        if (sum < capacity - 1e-6) for (const c of all) expect(got.get(c.id)!).toBeCloseTo(Math.min(c.limitMillis, c.demandMillis), 6);
      }),
    );
  });
});

describe('cpuSpeedFactor', () => {
  it("is the slowest container's share of its demand, at most 1", () => {
    expect(
      cpuSpeedFactor([
        { gotMillis: 500, demandMillis: 2000 },
        { gotMillis: 100, demandMillis: 100 },
      ]),
    ).toBe(0.25);
    expect(cpuSpeedFactor([{ gotMillis: 300, demandMillis: 200 }])).toBe(1);
    expect(cpuSpeedFactor([])).toBe(1);
  });
});

describe('asyncCpuSpeedFactor', () => {
  it("is the mean of the workers' shares (they add up), each at most 1, capped by the slowest PS", () => {
    const full = { gotMillis: 1000, demandMillis: 1000 };
    const starved = { gotMillis: 250, demandMillis: 1000 };
    expect(asyncCpuSpeedFactor([], [full, starved])).toBe(0.625);
    expect(asyncCpuSpeedFactor([], [{ gotMillis: 3000, demandMillis: 1000 }, starved])).toBe(0.625);
    expect(asyncCpuSpeedFactor([{ gotMillis: 50, demandMillis: 250 }], [full, full])).toBe(0.2);
    // One worker: the same as the synchronous rule.
    expect(asyncCpuSpeedFactor([], [starved])).toBe(cpuSpeedFactor([starved]));
  });
});
