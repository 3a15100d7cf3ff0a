// Decision fingerprint of the scheduling core, for checking that a performance change leaves every
// decision as it was: prints (or writes) the full plans that every policy produces on the seeded
// random clusters of bench/random-cluster.ts at a few sizes. Capture before a change, re-run after,
// and diff the two files; they must be identical.
//
//   node hack/decision-fingerprint.ts [--sizes 100,1000,3000] [--seed S] [--out FILE]
//
// (The simulator's outputs are the other half of the check: `node src/cli/main.ts simulate
// --scenario <s> --json FILE --quiet` per scenario, see hack/decision-check.sh.)
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { randomSnapshot, type Scenario } from '../bench/random-cluster.ts';
import { DEFAULT_SCHEDULER_CONFIG, POLICY_NAMES, schedule } from '../src/scheduler/index.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100,1000,3000' },
    seed: { type: 'string', default: '20261121' },
    out: { type: 'string' },
  },
});

const scenarios: readonly Scenario[] = ['busy', 'burst', 'elastic'];
const lines: string[] = [];
for (const scenario of scenarios) {
  for (const nodes of values.sizes.split(',').map(Number)) {
    const size = { nodes, waiting: Math.round(nodes * 0.4), running: Math.round(nodes * 0.2) };
    const snap = randomSnapshot(size, Number(values.seed), scenario);
    for (const policy of POLICY_NAMES) {
      const plan = schedule(policy, snap, DEFAULT_SCHEDULER_CONFIG);
      lines.push(JSON.stringify({ scenario, nodes, policy, plan }));
    }
  }
}
const text = lines.join('\n') + '\n';
if (values.out === undefined) process.stdout.write(text);
else writeFileSync(values.out, text);
