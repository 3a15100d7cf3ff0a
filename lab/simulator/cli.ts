// `node lab/cli/main.ts simulate`: run policies on a scenario, print the comparison, write JSON and SVG.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { SIM_POLICY_NAMES, type SimPolicyName as PolicyName } from './policies/registry.ts';
import { listScenarioNames, loadScenario, ScenarioError } from '../workloads/scenario.ts';
import type { SchedulePass } from './engine.ts';
import { scenarioCharts } from './charts.ts';
import { BASELINE, comparisonTable, runDocuments, toJson } from './report.ts';
import { runScenario } from './run.ts';
import type { CpuModelOptions } from './vertical/options.ts';
import { cpuModelFrom, studyFrom, VERTICAL_CLI_OPTIONS, VERTICAL_CLI_USAGE } from './vertical/cli-options.ts';
import type { StudyOptions } from './vertical/study.ts';
import { runStudyCli } from './vertical/study-cli.ts';

/** Every policy of the registry, in its order. */
export const POLICIES: readonly PolicyName[] = SIM_POLICY_NAMES;

const OPTIONS = {
  scenario: { type: 'string' },
  policy: { type: 'string', default: 'all' },
  json: { type: 'string' },
  svg: { type: 'string' },
  seed: { type: 'string' },
  'rate-jitter': { type: 'string' },
  'scheduler-config': { type: 'string' },
  quiet: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  ...VERTICAL_CLI_OPTIONS,
} as const;

function usage(): string {
  return [
    'usage: node lab/cli/main.ts simulate --scenario <name|file> [options]',
    '',
    'Simulates scheduling policies with the real scheduling core on a scenario and prints the',
    'figures of docs/simulation-results.md §1 side by side, with ratios to the lower bounds and to tf-operator.',
    '',
    'options:',
    '  --scenario <name|file>  scenario name from scenarios/ or a path to a scenario YAML (required)',
    `  --policy <p>            ${POLICIES.join(' | ')} | all (default: all)`,
    '                          tf-operator is always simulated too, as the reference for the ratios',
    '  --json FILE             write the run documents: one object for one policy, an array for all',
    '  --svg DIR               write JCT CDF, utilisation and queue-length charts to DIR',
    '  --seed N                seed for the per-job rate jitter (default: 1); needs a jitter above 0',
    "  --rate-jitter X         scale each job's rate by 1 ± X (uniform, 0..0.5) instead of the scenario's",
    '                          rateJitter (0 in the committed scenarios: every seed is the same run)',
    "  --scheduler-config FILE YAML/JSON scheduler configuration, partial (default: the core's defaults,",
    '                          see src/scheduler/README.md); the same for every policy',
    ...VERTICAL_CLI_USAGE,
    '  --quiet                 no progress lines on stderr',
    '  -h, --help              this help',
    '',
    `scenarios: ${listScenarioNames().join(', ')}`,
  ].join('\n');
}

export interface CliDependencies {
  /** The scheduling pass of a policy; the real core unless a test injects another. */
  readonly passFor: (policy: PolicyName) => SchedulePass;
  /** What the JSON records as the scheduler configuration. */
  readonly schedulerConfig: unknown;
}

class UsageError extends Error {}

function parsePolicies(value: string): PolicyName[] {
  if (value === 'all') return [...POLICIES];
  const policy = POLICIES.find((p) => p === value);
  if (policy === undefined) throw new UsageError(`--policy must be one of ${POLICIES.join(', ')}, all; got "${value}"`);
  return [policy];
}

function parseJitter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x) || x < 0 || x > 0.5)
    throw new UsageError(`--rate-jitter must be a number in [0, 0.5]; got "${value}"`);
  return x;
}

function parseSeed(value: string): number {
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--seed must be a non-negative integer; got "${value}"`);
  }
  return Number(value);
}

async function loadCore(configFile: string | undefined): Promise<CliDependencies> {
  const core = await import('./core.ts');
  try {
    const config = core.readSchedulerConfig(configFile);
    return { passFor: (policy) => core.corePass(policy, config), schedulerConfig: config };
  } catch (error) {
    if (error instanceof core.SchedulerConfigError) throw new UsageError(error.message);
    throw error;
  }
}

export async function main(argv: string[], dependencies?: CliDependencies): Promise<number> {
  let args;
  let policies: PolicyName[];
  let seed: number;
  let jitter: number | undefined;
  let cpu: CpuModelOptions | undefined;
  let study: StudyOptions | undefined;
  try {
    args = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }).values;
    if (args.help) {
      console.log(usage());
      return 0;
    }
    study = studyFrom(args);
    if (study === undefined && args.scenario === undefined) throw new UsageError('--scenario is required');
    cpu = cpuModelFrom(args);
    policies = parsePolicies(args.policy);
    seed = parseSeed(args.seed ?? '1');
    jitter = parseJitter(args['rate-jitter']);
  } catch (error) {
    console.error(`simulate: ${error instanceof Error ? error.message : String(error)}\n\n${usage()}`);
    return 2;
  }
  // The papers' one-node experiment needs no scenario.
  if (study !== undefined || args.scenario === undefined) return study === undefined ? 2 : runStudyCli(study, dependencies?.passFor);

  let scenario;
  try {
    scenario = loadScenario(args.scenario, seed, jitter);
    if (args.seed !== undefined && scenario.definition.rateJitter === 0) {
      throw new ScenarioError(
        `--seed changes nothing: ${scenario.definition.name} has rateJitter 0, so every seed is the same run; add --rate-jitter (e.g. 0.2)`,
      );
    }
  } catch (error) {
    if (error instanceof ScenarioError) {
      console.error(`simulate: ${error.message}`);
      return 2;
    }
    throw error;
  }

  let deps: CliDependencies;
  try {
    deps = dependencies ?? (await loadCore(args['scheduler-config']));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`simulate: ${error.message}`);
    return 2;
  }
  const simulated: PolicyName[] = policies.includes(BASELINE) ? policies : [BASELINE, ...policies];
  let lastReport = Date.now();
  const scenarioRun = runScenario(scenario, {
    policies: simulated,
    passFor: deps.passFor,
    ...(cpu === undefined ? {} : { cpu }),
    onEvent: (policy, status) => {
      if (args.quiet || Date.now() - lastReport < 2000) return;
      lastReport = Date.now();
      console.error(
        `simulate ${scenario.definition.name} ${policy}: t=${(status.now / 3600).toFixed(2)}h of ` +
          `${(status.horizon / 3600).toFixed(2)}h horizon, ${status.finished}/${status.total} jobs finished, ${status.events} events`,
      );
    },
  });
  const baseline = scenarioRun.runs.find((r) => r.policy === BASELINE);
  console.log(comparisonTable(scenarioRun, baseline));

  const documents = runDocuments(scenarioRun, deps.schedulerConfig, baseline).filter((doc) => policies.includes(doc.policy));
  if (args.json !== undefined) {
    mkdirSync(dirname(args.json), { recursive: true });
    writeFileSync(args.json, toJson(documents.length === 1 ? documents[0] : documents));
    console.error(`simulate: wrote ${args.json}`);
  }
  if (args.svg !== undefined) {
    mkdirSync(args.svg, { recursive: true });
    for (const [file, svg] of scenarioCharts(scenarioRun)) writeFileSync(join(args.svg, file), svg);
    console.error(`simulate: wrote charts to ${args.svg}`);
  }
  const unconverged = scenarioRun.runs.filter((r) => r.result.unconvergedEvents > 0);
  for (const r of unconverged) {
    console.error(`simulate: warning: ${r.policy} still changed its plan after the pass limit at ${r.result.unconvergedEvents} events`);
  }
  return 0;
}
