// Load, CI-sized: LOAD_JOBS TFJobs (default 300) submitted within LOAD_WINDOW_S seconds (default 60)
// on LOAD_NODES kwok nodes (default 60). Every job reaches a terminal state, no key is left queued or
// in flight, every invariant holds; queue depth and RSS are reported. The full run (2,000 jobs on
// 500 nodes) is bench/soak-load.ts.
import { describe, expect, it } from 'vitest';
import { useSharedClusterFixture } from '../../support/fault-scenario.ts';
import { adminKubeConfig, clusterState } from '../../support/kube.ts';
import { runLoad } from '../../support/load-run.ts';
import { scenarioSeed } from '../../support/prng.ts';

const JOBS = Number(process.env.LOAD_JOBS ?? 300);
const NODES = Number(process.env.LOAD_NODES ?? 60);
const WINDOW_S = Number(process.env.LOAD_WINDOW_S ?? 60);
const SEED = scenarioSeed(8200);

describe('load: a burst of TFJobs on many nodes', () => {
  const fx = useSharedClusterFixture('load', 'load', {
    nodes: NODES,
    node: { cpu: '4', memory: '16Gi' },
    operatorArgs: ['--scheduling-interval', '2s', '--kube-api-qps', '200', '--kube-api-burst', '400'],
  });

  it(`runs ${JOBS} jobs submitted within ${WINDOW_S}s on ${NODES} nodes to completion`, async () => {
    const { namespace: ns, pool, operator, highClass } = fx;
    const report = await runLoad({
      kc: adminKubeConfig(),
      namespace: ns,
      pool,
      operator,
      jobs: JOBS,
      submitWithinMs: WINDOW_S * 1000,
      seed: SEED,
      timeoutMs: 600_000,
      highClass,
      auditLog: clusterState().auditLog,
    });
    process.stderr.write(`[load] ${JSON.stringify(report)}\n`);
    expect(operator.running, operator.tail()).toBe(true);
    expect(report.unfinished).toEqual([]);
    expect(report.succeeded).toBe(JOBS);
    expect(report.violations).toEqual([]);
    expect(report.monitorGaps).toBe(0);
    // No stuck keys: nothing queued, nothing in flight once everything finished.
    expect(report.finalQueueDepth).toBe(0);
    expect(report.finalUnfinishedWorkSeconds).toBe(0);
    expect(report.peakRssMiB).toBeLessThan(1024);
  }, 900_000);
});
