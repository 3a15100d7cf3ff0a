// Experiment driver (not a test): runs scheduler variants over many scenarios and seeds with the
// simulator, sequentially, and prints mean JCT (and p95, makespan, unfinished) per run, plus each
// variant's geometric-mean ratio to a reference variant. Used to choose the defaults of `ours`
// (docs/simulation-results.md); every number there can be regenerated with it.
//
//   node bench/policy-sweep.ts [--scenarios a,b|all] [--seeds 1,2,3] [--jitter 0.2]
//                              [--variant name=policy[:config.yaml]]... [--reference name] [--json FILE]
//                              [--declared-plans none|perfect|realistic]
//
// Defaults: every scenario in scenarios/, seed 1, the scenario's own rateJitter, variants
// kod2 and ours (default configuration), reference kod2. `--jitter X` overrides the scenario's
// rateJitter in memory only (the files are never changed), so that seeds actually differ;
// `--declared-plans M` likewise sets what the jobs declare of their own length (lab/workloads/plans.ts).

import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readSchedulerConfig, corePass } from '../lab/simulator/core.ts';
import { lowerBounds } from '../lab/simulator/bounds.ts';
import { simulatePolicy } from '../lab/simulator/run.ts';
import { summarize, type Summary } from '../lab/simulator/figures.ts';
import { isSimPolicyName, type SimPolicyName as PolicyName } from '../lab/simulator/policies/registry.ts';
import { cliArgs } from './lib/args.ts';
import { buildScenario, listScenarioNames, readScenarioDefinition, resolveScenarioFile } from '../lab/workloads/scenario.ts';

const { values } = parseArgs({
  args: cliArgs(),
  options: {
    scenarios: { type: 'string', default: 'all' },
    seeds: { type: 'string', default: '1' },
    jitter: { type: 'string' },
    'declared-plans': { type: 'string' },
    variant: { type: 'string', multiple: true },
    reference: { type: 'string' },
    json: { type: 'string' },
  },
});

interface Variant {
  readonly name: string;
  readonly policy: PolicyName;
  readonly configFile: string | undefined;
}

function parseVariant(text: string): Variant {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new Error(`--variant must be name=policy[:config.yaml]; got "${text}"`);
  const name = text.slice(0, eq);
  const rest = text.slice(eq + 1);
  const colon = rest.indexOf(':');
  const policy = colon < 0 ? rest : rest.slice(0, colon);
  if (!isSimPolicyName(policy)) throw new Error(`unknown policy "${policy}"`);
  return { name, policy, configFile: colon < 0 ? undefined : rest.slice(colon + 1) };
}

const variants: Variant[] = (values.variant ?? ['kod2=kod2', 'ours=ours']).map(parseVariant);
const reference = values.reference ?? variants[0]!.name;
const scenarios = values.scenarios === 'all' ? listScenarioNames() : values.scenarios.split(',');
const seeds = values.seeds.split(',').map(Number);
const jitter = values.jitter === undefined ? undefined : Number(values.jitter);
const PLAN_MODELS = ['none', 'perfect', 'realistic'] as const;
const plansArg = values['declared-plans'];
const plans = PLAN_MODELS.find((m) => m === plansArg);
if (plansArg !== undefined && plans === undefined) throw new Error(`--declared-plans must be ${PLAN_MODELS.join(', ')}; got "${plansArg}"`);
const DEFAULT_PLANS = { undeclared: 0.3, earlyStop: 0.4, stopAt: [0.4, 0.9] as [number, number] };
const passes = new Map(variants.map((v) => [v.name, corePass(v.policy, readSchedulerConfig(v.configFile))]));

interface Row {
  readonly scenario: string;
  readonly seed: number;
  readonly variant: string;
  readonly meanJct: number | null;
  readonly meanJctInclUnfinished: number | null;
  readonly p95Jct: number | null;
  readonly makespan: number | null;
  readonly unfinished: number;
  readonly preemptedWorkers: number;
  readonly scaleOuts: number;
  /** Performance-target figures (scenarios with `targets`; docs/results/log.md §1c). */
  readonly qoe: Summary['qoe'];
  /** The longest any job waited in the queue at once (s): submission or a suspension to admission. */
  readonly longestQueueStay: number | null;
  readonly suspensions: number;
}

const rows: Row[] = [];
const fmt = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : x.toFixed(0));
console.log(
  `seeds ${seeds.join(',')}, jitter ${jitter ?? 'scenario'}, declared plans ${plans ?? 'scenario'}; mean JCT incl. unfinished (s) / p95 (s) / unfinished`,
);
console.log(['scenario'.padEnd(22), 'seed', ...variants.map((v) => v.name.padStart(20))].join(' '));
for (const name of scenarios) {
  const file = resolveScenarioFile(name);
  const definition = readScenarioDefinition(file);
  const jittered = jitter === undefined ? definition : { ...definition, rateJitter: jitter };
  const def =
    plans === undefined ? jittered : { ...jittered, declaredPlans: { ...DEFAULT_PLANS, ...jittered.declaredPlans, model: plans } };
  for (const seed of seeds) {
    const scenario = buildScenario(def, file, seed);
    const bounds = lowerBounds(scenario.jobs, scenario.cluster, def.startupSeconds);
    const horizon = def.horizonFactor * bounds.makespan;
    const cells: string[] = [];
    for (const v of variants) {
      const result = simulatePolicy(scenario, v.policy, passes.get(v.name)!, horizon);
      const s = summarize(result, bounds);
      const row: Row = {
        scenario: def.name,
        seed,
        variant: v.name,
        meanJct: s.jct?.mean ?? null,
        meanJctInclUnfinished: s.jctInclUnfinished?.mean ?? null,
        p95Jct: s.jct?.p95 ?? null,
        makespan: s.makespan,
        unfinished: s.unfinished,
        preemptedWorkers: s.preemptedWorkers,
        scaleOuts: s.scaleOuts,
        qoe: s.qoe,
        longestQueueStay: result.jobs.reduce<number | null>(
          (m, j) => (j.longestQueueStay === null ? m : Math.max(m ?? 0, j.longestQueueStay)),
          null,
        ),
        suspensions: result.jobs.reduce((n, j) => n + j.suspensions, 0),
      };
      rows.push(row);
      cells.push(`${fmt(row.meanJctInclUnfinished)}/${fmt(row.p95Jct)}/${row.unfinished}`.padStart(20));
    }
    console.log([def.name.padEnd(22), String(seed).padStart(4), ...cells].join(' '));
  }
}

// Geometric mean over runs of each variant's mean JCT (incl. unfinished) ÷ the reference's, and
// how many runs it wins / loses by more than 0.5 %.
console.log(`\nvs ${reference}: geometric mean of mean-JCT ratios, worst ratio, wins/losses (> 0.5 %)`);
for (const v of variants) {
  let logSum = 0;
  let n = 0;
  let worst = 0;
  let worstAt = '';
  let wins = 0;
  let losses = 0;
  for (const r of rows.filter((x) => x.variant === v.name)) {
    const ref = rows.find((x) => x.variant === reference && x.scenario === r.scenario && x.seed === r.seed);
    if (ref?.meanJctInclUnfinished == null || r.meanJctInclUnfinished === null) continue;
    const q = r.meanJctInclUnfinished / ref.meanJctInclUnfinished;
    logSum += Math.log(q);
    n++;
    if (q > worst) {
      worst = q;
      worstAt = `${r.scenario}#${r.seed}`;
    }
    if (q < 0.995) wins++;
    if (q > 1.005) losses++;
  }
  console.log(
    `${v.name.padEnd(24)} ${Math.exp(logSum / Math.max(1, n)).toFixed(4)}  worst ${worst.toFixed(3)} (${worstAt})  ${wins}/${losses}`,
  );
}
if (values.json !== undefined) writeFileSync(values.json, JSON.stringify(rows, null, 2) + '\n');
