// Decision fingerprint of the scheduling core, for checking that a performance change leaves every
// decision as it was: prints (or writes) the full plans that every policy produces on the seeded
// random clusters of bench/random-cluster.ts at a few sizes, without queues and with three queues
// (two lending to each other in a cohort, one alone; a borrowing limit, weights, some suspendable
// jobs). Capture before a change, re-run after, and diff the two files; they must be identical.
// The oracles are left out: they need the remaining work only the simulator knows (its half of
// the check covers them).
//
//   node hack/decision-fingerprint.ts [--sizes 100,1000,3000] [--seed S] [--out FILE]
//
// (The simulator's outputs are the other half of the check: `node lab/cli/main.ts simulate
// --scenario <s> --json FILE --quiet` per scenario, see hack/decision-check.sh.)
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { randomSnapshot, type Scenario } from '../bench/random-cluster.ts';
import { DEFAULT_SCHEDULER_CONFIG } from '../src/scheduler/index.ts';
import { SIM_POLICY_NAMES, SIM_POLICY_REGISTRY, schedule } from '../lab/simulator/policies/registry.ts';
import type { ClusterSnapshot } from '../src/scheduler/types.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100,1000,3000' },
    seed: { type: 'string', default: '20261121' },
    out: { type: 'string' },
  },
});

const scenarios: readonly Scenario[] = ['busy', 'burst', 'elastic'];

function withQueues(snap: ClusterSnapshot): ClusterSnapshot {
  const total = (r: string): number => snap.nodes.reduce((s, node) => s + (node.allocatable[r] ?? 0), 0);
  const nominalQuota = { cpu: Math.floor(total('cpu') / 3), memory: Math.floor(total('memory') / 3) };
  const queues = [
    { name: 'q0', cohort: 'c', nominalQuota, weight: 1, borrowingLimit: { cpu: Math.floor(total('cpu') / 12) } },
    { name: 'q1', cohort: 'c', nominalQuota, weight: 2 },
    { name: 'q2', nominalQuota, weight: 1 },
  ];
  const jobs = snap.jobs.map((j, i) => ({ ...j, spec: { ...j.spec, queue: `q${i % 3}`, ...(i % 7 === 0 ? { suspendable: true } : {}) } }));
  return { ...snap, queues, jobs };
}

const policies = SIM_POLICY_NAMES.filter((p) => !SIM_POLICY_REGISTRY[p].oracle);
const lines: string[] = [];
for (const scenario of scenarios) {
  for (const nodes of values.sizes.split(',').map(Number)) {
    const size = { nodes, waiting: Math.round(nodes * 0.4), running: Math.round(nodes * 0.2) };
    const plain = randomSnapshot(size, Number(values.seed), scenario);
    for (const [queues, snap] of [
      [false, plain],
      [true, withQueues(plain)],
    ] as const) {
      for (const policy of policies) {
        const plan = schedule(policy, snap, DEFAULT_SCHEDULER_CONFIG);
        lines.push(JSON.stringify({ scenario, nodes, queues, policy, plan }));
      }
    }
  }
}
const text = lines.join('\n') + '\n';
if (values.out === undefined) process.stdout.write(text);
else writeFileSync(values.out, text);
