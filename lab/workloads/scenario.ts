// Finds, reads and validates a scenario file and turns it into a cluster and its jobs.
// A file may `extends:` another (path relative to itself): the shared constants live once in
// scenarios/base/, and kod2-paper-b32.yaml only says which batch size it runs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import type { ClusterShape, WorkloadJob } from './model.ts';
import type { PhillyApp } from './philly/app.ts';
import type { ScenarioDefinition } from './scenario-schema.ts';
import { buildKod2PaperJobs } from './kod2-paper.ts';
import { loadPhillyApp } from './philly/load.ts';
import { buildPhillyJobs, parseWorkloadCsv } from './philly/workload.ts';
import { canonicalResources } from './resources.ts';
import { assignPlans } from './plans.ts';
import { assignTargets } from './targets.ts';
import { assignTeams } from './teams.ts';
import { describeIssues, scenarioSchema } from './scenario-schema.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SCENARIO_DIR = join(REPO_ROOT, 'scenarios');

/** Fields holding paths: resolved against the file that writes them, so `extends` keeps them valid. */
const PATH_FIELDS = ['workload', 'apps'] as const;

export class ScenarioError extends Error {
  override name = 'ScenarioError';
}

export interface Scenario {
  readonly definition: ScenarioDefinition;
  /** Absolute path of the scenario file. */
  readonly file: string;
  readonly cluster: ClusterShape;
  readonly jobs: readonly WorkloadJob[];
  readonly seed: number;
}

/** Names runnable as `--scenario <name>`: scenarios/*.yaml (base/ holds partial files). */
export function listScenarioNames(): string[] {
  if (!existsSync(SCENARIO_DIR)) return [];
  return readdirSync(SCENARIO_DIR)
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => file.slice(0, -'.yaml'.length))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

/** A name from scenarios/ or a path to a YAML file. */
export function resolveScenarioFile(nameOrPath: string): string {
  const looksLikePath = /[\\/]/.test(nameOrPath) || /\.ya?ml$/.test(nameOrPath);
  const file = looksLikePath ? resolve(nameOrPath) : join(SCENARIO_DIR, `${nameOrPath}.yaml`);
  if (!existsSync(file)) {
    const known = listScenarioNames().join(', ');
    throw new ScenarioError(`scenario "${nameOrPath}" not found (${file}); known scenarios: ${known}`);
  }
  return file;
}

type Plain = Record<string, unknown>;

function isPlainObject(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Objects merge key by key; arrays and scalars of the extending file replace the base's. */
function deepMerge(base: Plain, over: Plain): Plain {
  const out: Plain = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prior = out[key];
    out[key] = isPlainObject(prior) && isPlainObject(value) ? deepMerge(prior, value) : value;
  }
  return out;
}

function readRaw(file: string, chain: readonly string[]): Plain {
  if (chain.includes(file)) throw new ScenarioError(`scenario ${file}: extends cycle (${[...chain, file].join(' → ')})`);
  let parsed: unknown;
  try {
    parsed = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ScenarioError(`scenario ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isPlainObject(parsed)) throw new ScenarioError(`scenario ${file}: expected a YAML mapping at the top level`);
  const own: Plain = { ...parsed };
  for (const field of PATH_FIELDS) {
    const value = own[field];
    if (typeof value === 'string' && !isAbsolute(value)) own[field] = resolve(dirname(file), value);
  }
  const parent = own.extends;
  delete own.extends;
  if (parent === undefined) return own;
  if (typeof parent !== 'string') throw new ScenarioError(`scenario ${file}:\n  field "extends": expected a file path`);
  const parentFile = resolve(dirname(file), parent);
  if (!existsSync(parentFile)) throw new ScenarioError(`scenario ${file}:\n  field "extends": ${parentFile} does not exist`);
  return deepMerge(readRaw(parentFile, [...chain, file]), own);
}

/** Reads and validates; errors name the file and every offending field. */
export function readScenarioDefinition(file: string): ScenarioDefinition {
  const raw = readRaw(file, []);
  const result = scenarioSchema.safeParse(raw);
  if (!result.success) throw new ScenarioError(`scenario ${file} is invalid:\n${describeIssues(result.error)}`);
  return result.data;
}

/** Builds the cluster and jobs of a validated definition. Trace files are read here for Philly. */
export function buildScenario(definition: ScenarioDefinition, file: string, seed: number): Scenario {
  const cluster: ClusterShape = {
    nodeCount: definition.cluster.nodes,
    allocatable: canonicalResources(definition.cluster.allocatable),
    extraPools: definition.cluster.extraPools.map((pool) => ({
      prefix: pool.name,
      count: pool.nodes,
      allocatable: canonicalResources(pool.allocatable),
    })),
  };
  let jobs: WorkloadJob[];
  if (definition.kind === 'kod2-paper') {
    jobs = buildKod2PaperJobs(definition, seed);
  } else {
    const workloadFile = definition.workload;
    if (!existsSync(workloadFile)) throw new ScenarioError(`scenario ${file}:\n  field "workload": ${workloadFile} does not exist`);
    if (!existsSync(definition.apps)) throw new ScenarioError(`scenario ${file}:\n  field "apps": ${definition.apps} does not exist`);
    const rows = parseWorkloadCsv(readFileSync(workloadFile, 'utf8'), relative(REPO_ROOT, workloadFile));
    const apps = new Map<string, PhillyApp>();
    const appFor = (name: string): PhillyApp => {
      let app = apps.get(name);
      if (app === undefined) {
        app = loadPhillyApp(definition.apps, name, definition.maxLocalBatch[name]);
        apps.set(name, app);
      }
      return app;
    };
    jobs = buildPhillyJobs(definition, rows, appFor, seed);
  }
  if (definition.targets !== undefined) jobs = assignTargets(jobs, definition.targets, cluster, definition.startupSeconds, seed);
  if (definition.teams !== undefined) jobs = assignTeams(jobs, definition.teams, definition.queues);
  if (definition.declaredPlans !== undefined) jobs = assignPlans(jobs, definition.declaredPlans, seed);
  return { definition, file, cluster, jobs, seed };
}

/** `rateJitter` overrides the file's in memory (the file is never changed). */
export function loadScenario(nameOrPath: string, seed = 1, rateJitter?: number): Scenario {
  const file = resolveScenarioFile(nameOrPath);
  const definition = readScenarioDefinition(file);
  return buildScenario(rateJitter === undefined ? definition : { ...definition, rateJitter }, file, seed);
}

/** A path as the JSON reports it: relative to the repository when inside it. */
export function displayPath(file: string): string {
  const rel = relative(REPO_ROOT, file);
  return rel.startsWith('..') ? file : rel;
}
