// The operator's configuration, from (lowest to highest precedence) defaults, an optional YAML/JSON
// file (--config), environment variables and command-line flags. One table (config-options.ts)
// describes every option, so `--help`, parsing and the README's configuration table cannot drift apart. The result is
// validated with zod; an error names the option and where its value came from.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { schedulerConfigSchema, type SchedulerConfig } from '../scheduler/config.ts';
import { isPlacingPolicy, OPERATOR_POLICY_NAMES } from '../scheduler/policies/registry.ts';
import type { ElasticOptions } from '../reconciler/tfjob/index.ts';
import { MAX_ELASTIC_WORKERS } from '../api/v1/elastic.ts';
import { OPTIONS, type OptionSpec } from './config-options.ts';
import { VERTICAL_POLICIES } from './vertical/policy.ts';

export { OPTIONS, type OptionSpec } from './config-options.ts';

const durationRe = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/;
export function parseDuration(text: string): number {
  const m = durationRe.exec(text.trim());
  if (m === null) throw new Error(`"${text}" is not a duration (e.g. 500ms, 30s, 5m, 1h)`);
  const n = Number(m[1]);
  const unit = m[2] ?? 'ms';
  return n * ({ ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const)[unit as 'ms' | 's' | 'm' | 'h'];
}

const quantityRe = /^\d+(\.\d+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/;

const operatorConfigSchema = z
  .object({
    kubeconfig: z.string(),
    namespace: z.array(z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a namespace name')),
    policy: z.enum(OPERATOR_POLICY_NAMES),
    controllerThreads: z.number().int().min(1).max(256),
    kubeApiQps: z.number().min(0),
    kubeApiBurst: z.number().int().min(1),
    metricsBindAddress: z.string(),
    healthProbeBindAddress: z.string(),
    leaderElect: z.boolean(),
    leaderElectionId: z.string().min(1),
    leaderElectionNamespace: z.string().min(1),
    leaderElectionLeaseDuration: z.number().positive(),
    leaderElectionRenewDeadline: z.number().positive(),
    leaderElectionRetryPeriod: z.number().positive(),
    identity: z.string(),
    clusterDomain: z.string(),
    legacyLabels: z.boolean(),
    starveLimit: z.number().positive(),
    scaleOutCooldown: z.number().nonnegative(),
    demoteAfter: z.number().positive(),
    weightSlope: z.number().positive(),
    weightWorkerExponent: z.number().nonnegative(),
    weightReferenceShare: z.number().positive(),
    defaultMinWorkers: z.number().int().min(0),
    defaultMaxWorkers: z.number().int().min(0),
    maxWorkersPerJob: z.number().int().min(1).max(MAX_ELASTIC_WORKERS),
    progressPeriod: z.number().nonnegative(),
    notTrainingAfter: z.number().nonnegative(),
    qoeRateWindow: z.number().positive(),
    progressReadsPerSecond: z.number().positive(),
    resizeConvergedCpu: z.number().min(0).lt(1),
    verticalPolicy: z.enum(VERTICAL_POLICIES),
    verticalInterval: z.number().positive(),
    flowconAlpha: z.number().positive().lt(1),
    flowconCpu: z.enum(['allowed', 'used']),
    defaultCpuRequest: z.string().regex(quantityRe, 'must be a Kubernetes quantity such as 100m or 1'),
    defaultMemoryRequest: z.string().regex(quantityRe, 'must be a Kubernetes quantity such as 256Mi'),
    nodeSelector: z.string().regex(/^$|^[^,=]+=[^,=]*(,[^,=]+=[^,=]*)*$/, 'must be k=v[,k2=v2]'),
    nodeLostGrace: z.number().nonnegative(),
    replaceRefusedAfter: z.number().nonnegative(),
    refusedNodeAvoidFor: z.number().positive(),
    schedulingInterval: z.number().positive(),
    schedulingDebounce: z.number().nonnegative(),
    timeScale: z.number().positive(),
    enableScheme: z.array(z.string()),
    logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']),
  })
  .refine((c) => c.defaultMaxWorkers === 0 || c.defaultMaxWorkers >= c.defaultMinWorkers, {
    message: 'default-max-workers must be ≥ default-min-workers',
    path: ['defaultMaxWorkers'],
  })
  .refine((c) => c.leaderElectionRenewDeadline < c.leaderElectionLeaseDuration, {
    message: 'must be shorter than leader-election-lease-duration',
    path: ['leaderElectionRenewDeadline'],
  })
  .refine((c) => c.verticalPolicy === 'none' || c.resizeConvergedCpu === 0, {
    message: 'sets CPU limits in place as --resize-converged-cpu does: use one of them',
    path: ['verticalPolicy'],
  })
  .refine((c) => (c.verticalPolicy !== 'flowcon' && c.verticalPolicy !== 'specon') || c.progressPeriod > 0, {
    message: "flowcon and specon read every running job's progress: --progress-period must be > 0",
    path: ['verticalPolicy'],
  })
  .refine((c) => c.verticalPolicy !== 'specon' || isPlacingPolicy(c.policy), {
    message: "specon moves workers through the operator's placement: --policy must be one that places pods (not tf-operator)",
    path: ['verticalPolicy'],
  })
  .refine((c) => c.enableScheme.every((s) => s.toLowerCase() === 'tfjob'), {
    message: 'only "tfjob" is served by this operator',
    path: ['enableScheme'],
  });

export type OperatorConfig = z.infer<typeof operatorConfigSchema>;

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function text(raw: unknown): string {
  return typeof raw === 'string' ? raw : JSON.stringify(raw);
}

function convert(spec: OptionSpec, raw: unknown, source: string): unknown {
  if (raw === undefined) return undefined;
  const where = `${source} ${spec.flag}`;
  switch (spec.kind) {
    case 'boolean':
      if (typeof raw === 'boolean') return raw;
      if (raw === 'true' || raw === '1' || raw === '') return true;
      if (raw === 'false' || raw === '0') return false;
      throw new Error(`${where}: "${text(raw)}" is not a boolean`);
    case 'number': {
      const n = typeof raw === 'number' ? raw : Number(raw);
      if (typeof raw === 'string' && raw.trim() === '') throw new Error(`${where}: empty number`);
      if (!Number.isFinite(n)) throw new Error(`${where}: "${text(raw)}" is not a number`);
      return n;
    }
    case 'duration':
      if (typeof raw === 'number') return raw;
      try {
        return parseDuration(text(raw));
      } catch (err) {
        throw new Error(`${where}: ${(err as Error).message}`, { cause: err });
      }
    case 'list':
      if (Array.isArray(raw)) return raw.map(text);
      return text(raw)
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
    case 'string':
      return text(raw);
  }
}

export interface ConfigSources {
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses `--flag value`, `--flag=value`, `--bool`/`--no-bool` and `--config FILE`. */
function parseFlags(argv: readonly string[]): { values: Map<string, string | boolean>; configFile?: string; help: boolean } {
  const known = new Map<string, OptionSpec>(OPTIONS.map((o) => [o.flag, o]));
  const values = new Map<string, string | boolean>();
  let configFile: string | undefined;
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    let name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    let value: string | boolean | undefined = eq < 0 ? undefined : arg.slice(eq + 1);
    if (name === 'config') {
      configFile = value === undefined ? argv[++i] : value;
      if (configFile === undefined) throw new ConfigError('--config needs a file');
      continue;
    }
    let spec = known.get(name);
    if (spec === undefined && name.startsWith('no-') && known.get(name.slice(3))?.kind === 'boolean') {
      name = name.slice(3);
      spec = known.get(name);
      value = false;
    }
    if (spec === undefined) throw new ConfigError(`unknown flag --${name} (see --help)`);
    if (value === undefined) {
      if (spec.kind === 'boolean') value = true;
      else {
        value = argv[++i];
        if (value === undefined) throw new ConfigError(`--${name} needs a value`);
      }
    }
    values.set(name, value);
  }
  return { values, configFile, help };
}

export function loadConfig(sources: ConfigSources): { config: OperatorConfig; help: boolean } {
  const flags = parseFlags(sources.argv);
  let file: Record<string, unknown> = {};
  if (flags.configFile !== undefined) {
    let parsed: unknown;
    try {
      parsed = parseYaml(readFileSync(flags.configFile, 'utf8'));
    } catch (err) {
      throw new ConfigError(`cannot read config file ${flags.configFile}: ${(err as Error).message}`);
    }
    if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed)))
      throw new ConfigError(`config file ${flags.configFile} must be a mapping`);
    file = (parsed ?? {}) as Record<string, unknown>;
    const knownKeys = new Set<string>(OPTIONS.map((o) => camel(o.flag)));
    for (const key of Object.keys(file)) {
      if (!knownKeys.has(key)) throw new ConfigError(`config file ${flags.configFile}: unknown key "${key}"`);
    }
  }
  const merged: Record<string, unknown> = {};
  try {
    for (const spec of OPTIONS as readonly OptionSpec[]) {
      const key = camel(spec.flag);
      const envValue = spec.env === undefined ? undefined : sources.env[spec.env];
      merged[key] =
        convert(spec, flags.values.get(spec.flag), 'flag --') ??
        convert(spec, envValue === '' && spec.kind !== 'string' ? undefined : envValue, `env ${spec.env ?? ''} for`) ??
        convert(spec, file[key], 'config file key for') ??
        convert(spec, spec.default, 'default of');
    }
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const result = operatorConfigSchema.safeParse(merged);
  if (!result.success) {
    const issues = result.error.issues.map((i) => {
      const key = String(i.path[0] ?? '');
      const flag = OPTIONS.find((o) => camel(o.flag) === key)?.flag ?? key;
      return `--${flag}: ${i.message}`;
    });
    throw new ConfigError(`invalid configuration:\n  ${issues.join('\n  ')}`);
  }
  return { config: result.data, help: flags.help };
}

export function helpText(): string {
  const lines = (OPTIONS as readonly OptionSpec[]).map((o) => {
    const def = Array.isArray(o.default) ? o.default.join(',') : String(o.default);
    const env = o.env === undefined ? '' : ` [env ${o.env}]`;
    return `  --${o.flag.padEnd(32)} ${o.help} (default: ${def === '' ? '""' : def})${env}`;
  });
  return `usage: tfjob-operator run [options]

Runs the TFJob operator against the cluster of the current kubeconfig.
Options come from flags, then environment variables, then --config FILE (YAML keys in camelCase),
then the defaults below.

  --config FILE                      YAML or JSON file with any option below
${lines.join('\n')}`;
}

/** The scheduling core's configuration derived from the operator's (timers scaled by --time-scale). */
export function schedulerConfigFrom(config: OperatorConfig): SchedulerConfig {
  return schedulerConfigSchema.parse({
    starveLimitMs: config.starveLimit / config.timeScale,
    scaleOutCooldownMs: config.scaleOutCooldown / config.timeScale,
    // Attained service is counted in real worker-seconds (the operator's clock), like the other durations.
    demoteAfterWorkerSeconds: config.demoteAfter / 1000 / config.timeScale,
    weight: { slope: config.weightSlope, workerExponent: config.weightWorkerExponent, referenceShare: config.weightReferenceShare },
  });
}

/** How elastic jobs are sized: the TFJob reconciler and the scheduling loop get the same. */
export function elasticOptions(config: OperatorConfig): ElasticOptions {
  const declared = config.defaultMinWorkers > 0 || config.defaultMaxWorkers > 0;
  return {
    ...(declared ? { defaultElastic: { min: config.defaultMinWorkers, max: config.defaultMaxWorkers } } : {}),
    workerLimit: config.maxWorkersPerJob,
  };
}
