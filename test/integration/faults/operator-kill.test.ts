// Fault: the operator SIGKILLed at seeded random points during a run of dozens of jobs, again and
// again, and restarted each time (sometimes at once, sometimes after a pause). Every job must still
// succeed, with every invariant of test/support/invariants.ts holding throughout.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { useSharedClusterFixture } from '../../support/fault-scenario.ts';
import { clusterState } from '../../support/kube.ts';
import { OperatorChild } from '../../support/operator-child.ts';
import { rng, scenarioSeed } from '../../support/prng.ts';

const SEED = scenarioSeed(8001);
const JOBS = 30;
const KILLS = 7;

describe('fault: operator SIGKILLed repeatedly mid-run', () => {
  const fx = useSharedClusterFixture('fault-kill', 'fkill', { nodes: 3 });

  it(`keeps every promise across ${KILLS} SIGKILLs during ${JOBS} jobs (seed ${SEED})`, async () => {
    const { namespace: ns, pool } = fx;
    const s = fx.scenario({ name: 'operator-sigkill', seed: SEED, jobs: JOBS });
    const r = rng(SEED);
    const start = () =>
      OperatorChild.start(`kill-${s.operators.length}`, clusterState().kubeconfig, [
        '--namespace',
        ns,
        '--policy',
        'ours',
        '--scheduling-interval',
        '1s',
        '--scale-out-cooldown',
        '2s',
        ...pool.operatorFlags,
      ]);
    s.operators.push(await start());
    await s.start();

    // Kill at random points while jobs arrive, run and finish. Some restarts wait, so the world
    // changes while no operator runs (jobs arrive, workers finish).
    for (let k = 0; k < KILLS; k++) {
      await sleep(r.int(2_000, 9_000));
      const victim = s.operators.at(-1)!;
      const exit = await victim.kill('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
      s.count('sigkill');
      await sleep(r.chance(0.5) ? 0 : r.int(500, 4_000));
      s.operators.push(await start());
    }

    const report = await s.finish({ timeoutMs: 300_000 });
    // The last operator never crashed on its own.
    expect(s.operators.at(-1)!.running, s.operators.at(-1)!.tail()).toBe(true);
    expect(report.violations).toEqual([]);
    expect(report.monitorGaps).toBe(0);
    expect(report.succeeded).toBe(JOBS);
    expect(report.faults.sigkill).toBe(KILLS);
    // Preemption and cleanup really happened (the invariants were exercised, not vacuous).
    expect(Object.keys(report.deletions).length).toBeGreaterThan(0);
    expect(report.memory.maxBytes).toBeLessThan(512 * 2 ** 20);
  }, 600_000);
});
