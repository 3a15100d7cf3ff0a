// Benchmark (not a test): time of one `schedule()` call per policy on seeded random clusters of
// 100, 1,000 and 5,000 nodes, with 0.4 waiting and 0.2 running jobs per node (5,000 nodes:
// 2,000 waiting, 1,000 running; benchmark.md §5), in three scenarios (`random-cluster.ts`): a busy
// cluster, where most waiting jobs do not fit; a burst into a mostly idle one; and the same burst
// with declared scaling curves and no starving job (what `ours`' gain rules act on). Prints median
// and p99 in ms.
//
//   node bench/scheduling-pass.ts [--runs N] [--sizes 100,1000,5000] [--scenarios busy,burst,elastic] [--seed S]

import { parseArgs } from 'node:util';
import { DEFAULT_SCHEDULER_CONFIG, POLICY_NAMES, schedule } from '../src/scheduler/index.ts';
import { randomSnapshot } from './random-cluster.ts';
import type { Scenario } from './random-cluster.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '' },
    sizes: { type: 'string', default: '100,1000,5000' },
    seed: { type: 'string', default: '20261121' },
    scenarios: { type: 'string', default: 'busy,burst,elastic' },
  },
});

function quantile(sorted: readonly number[], q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i]!;
}

const seed = Number(values.seed);
console.log(`node ${process.version}, seed ${seed}`);
for (const scenario of values.scenarios.split(',') as Scenario[]) {
  console.log(`\nscenario: ${scenario}`);
  console.log('nodes  waiting running  policy        median ms   p99 ms   runs   admitted scaled-in scaled-out waiting');
  for (const nodes of values.sizes.split(',').map(Number)) {
    const size = { nodes, waiting: Math.round(nodes * 0.4), running: Math.round(nodes * 0.2) };
    const snap = randomSnapshot(size, seed, scenario);
    const runningCount = snap.jobs.filter((j) => j.phase === 'running').length;
    const runs = values.runs !== '' ? Number(values.runs) : nodes >= 5000 ? 25 : nodes >= 1000 ? 60 : 200;
    for (const policy of POLICY_NAMES) {
      for (let w = 0; w < 3; w++) schedule(policy, snap, DEFAULT_SCHEDULER_CONFIG);
      const times: number[] = [];
      let plan = schedule(policy, snap, DEFAULT_SCHEDULER_CONFIG);
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        plan = schedule(policy, snap, DEFAULT_SCHEDULER_CONFIG);
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const line = [
        String(nodes).padStart(5),
        String(size.waiting).padStart(8),
        String(runningCount).padStart(7),
        '  ' + policy.padEnd(12),
        quantile(times, 0.5).toFixed(2).padStart(10),
        quantile(times, 0.99).toFixed(2).padStart(8),
        String(runs).padStart(6),
        String(plan.admit.length).padStart(10),
        String(plan.scaleIn.reduce((s, x) => s + x.remove.length, 0)).padStart(9),
        String(plan.scaleOut.reduce((s, x) => s + x.add.length, 0)).padStart(10),
        String(plan.waiting.length).padStart(7),
      ];
      console.log(line.join(' '));
    }
  }
}
