// The long soak variants of the fault and bad-input scenarios (the CI runs one bounded round each):
//
//   node test/soak/soak.ts faults [--rounds 10] [--seed 9000] [--files test/integration/faults]
//       every fault scenario, once per round, each round with the next seed (FAULT_SEED);
//   node test/soak/soak.ts bad-input [--rounds 3] [--count 20000] [--seed 9100]
//       the hostile corpus, COUNT inputs per round, a new seed each round.
//
// Each round is a `vitest run --project integration` (its own control plane); the scenarios append
// one JSON line each to a report file, which this script sums up at the end: faults injected, jobs
// completed, invariant violations (must be 0), bad inputs per outcome. Exit status 1 on any failure.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../../lab/local-cluster/index.ts';

const [mode = 'faults', ...rest] = process.argv.slice(2);
const { values } = parseArgs({
  args: rest,
  options: {
    rounds: { type: 'string' },
    seed: { type: 'string' },
    count: { type: 'string', default: '20000' },
    files: { type: 'string', default: 'test/integration/faults' },
  },
});
if (mode !== 'faults' && mode !== 'bad-input') throw new Error(`unknown mode ${mode} (faults | bad-input)`);
const rounds = Number(values.rounds ?? (mode === 'faults' ? 10 : 3));
const firstSeed = Number(values.seed ?? (mode === 'faults' ? 9000 : 9100));
const report = path.join(mkdtempSync(path.join(os.tmpdir(), 'soak-')), 'report.jsonl');
const files = mode === 'faults' ? values.files.split(',') : ['test/integration/bad-input/corpus.test.ts'];

let failedRounds = 0;
for (let r = 0; r < rounds; r++) {
  const seed = firstSeed + r;
  process.stderr.write(`[soak] ${mode} round ${r + 1}/${rounds}, seed ${seed}\n`);
  const res = spawnSync('npx', ['vitest', 'run', '--project', 'integration', ...files], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      FAULT_SEED: String(seed),
      FAULT_REPORT_FILE: report,
      ...(mode === 'bad-input' ? { BAD_INPUT_COUNT: values.count } : {}),
    },
  });
  if (res.status !== 0) failedRounds += 1;
}

interface Line {
  scenario?: string;
  faults?: Record<string, number>;
  jobs?: number;
  succeeded?: number;
  violations?: unknown[];
  inputs?: number;
  clientRejected?: number;
  byOutcome?: Record<string, number>;
  unhandled?: unknown[];
  unnamedRejections?: unknown[];
}
const lines = existsSync(report)
  ? readFileSync(report, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('['))
      .map((l) => JSON.parse(l.slice(l.indexOf(' ') + 1)) as Line)
  : [];
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
if (mode === 'faults') {
  const scenarios = lines.filter((l) => l.scenario !== undefined);
  const byScenario = new Map<string, Line[]>();
  for (const l of scenarios) byScenario.set(l.scenario!, [...(byScenario.get(l.scenario!) ?? []), l]);
  const table = [...byScenario].map(([name, ls]) => ({
    scenario: name,
    runs: ls.length,
    faultsInjected: sum(ls.map((l) => sum(Object.values(l.faults ?? {})))),
    jobs: sum(ls.map((l) => l.jobs ?? 0)),
    completed: sum(ls.map((l) => l.succeeded ?? 0)),
    violations: sum(ls.map((l) => l.violations?.length ?? 0)),
  }));
  console.log(
    JSON.stringify(
      {
        rounds,
        failedRounds,
        scenarios: table,
        totals: {
          faultsInjected: sum(table.map((t) => t.faultsInjected)),
          completed: sum(table.map((t) => t.completed)),
          violations: sum(table.map((t) => t.violations)),
        },
      },
      null,
      2,
    ),
  );
} else {
  const runs = lines.filter((l) => l.inputs !== undefined);
  const outcomes: Record<string, number> = {};
  for (const l of runs) for (const [k, v] of Object.entries(l.byOutcome ?? {})) outcomes[k] = (outcomes[k] ?? 0) + v;
  console.log(
    JSON.stringify(
      {
        rounds,
        failedRounds,
        inputs: sum(runs.map((l) => l.inputs ?? 0)),
        clientRejected: sum(runs.map((l) => l.clientRejected ?? 0)),
        outcomes,
        unhandled: sum(runs.map((l) => l.unhandled?.length ?? 0)),
        unnamedRejections: sum(runs.map((l) => l.unnamedRejections?.length ?? 0)),
      },
      null,
      2,
    ),
  );
}
process.exitCode = failedRounds > 0 ? 1 : 0;
