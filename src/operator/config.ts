// The operator's configuration, from (lowest to highest precedence) defaults, an optional YAML/JSON
// file (--config), environment variables and command-line flags. One table describes every option,
// so `--help`, parsing and the README's configuration table cannot drift apart. The result is
// validated with zod; an error names the option and where its value came from.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { schedulerConfigSchema, type SchedulerConfig } from '../scheduler/config.ts';
import { DEFAULT_OPERATOR_POLICY, OPERATOR_POLICY_NAMES } from '../scheduler/policies/registry.ts';
import type { ElasticOptions } from '../reconciler/tfjob/index.ts';
import { MAX_ELASTIC_WORKERS } from '../api/v1/elastic.ts';

type Kind = 'string' | 'number' | 'boolean' | 'list' | 'duration';

interface OptionSpec {
  /** Flag name without dashes; the config-file key is its camelCase form. */
  readonly flag: string;
  readonly env?: string;
  readonly kind: Kind;
  readonly default: string | number | boolean | readonly string[];
  readonly help: string;
}

/** Every option, in `--help` order. Durations accept `500ms`, `30s`, `5m`, `1h` or plain milliseconds. */
export const OPTIONS = [
  {
    flag: 'kubeconfig',
    env: 'KUBECONFIG',
    kind: 'string',
    default: '',
    help: 'kubeconfig file; empty = in-cluster config, then ~/.kube/config',
  },
  {
    flag: 'namespace',
    env: 'KUBEFLOW_NAMESPACE',
    kind: 'list',
    default: [],
    help: 'namespaces to manage (comma-separated); empty = all namespaces',
  },
  {
    flag: 'policy',
    env: 'TFJOB_POLICY',
    kind: 'string',
    default: DEFAULT_OPERATOR_POLICY,
    help: `scheduling policy: ${OPERATOR_POLICY_NAMES.join(' | ')} (no queueing, pods to the default scheduler)`,
  },
  { flag: 'controller-threads', env: 'TFJOB_CONTROLLER_THREADS', kind: 'number', default: 4, help: 'concurrent TFJob reconciles' },
  {
    flag: 'kube-api-qps',
    env: 'TFJOB_KUBE_API_QPS',
    kind: 'number',
    default: 50,
    help: 'client-side rate limit on API requests per second (0 = unlimited)',
  },
  { flag: 'kube-api-burst', env: 'TFJOB_KUBE_API_BURST', kind: 'number', default: 100, help: 'client-side burst of API requests' },
  {
    flag: 'metrics-bind-address',
    env: 'TFJOB_METRICS_BIND_ADDRESS',
    kind: 'string',
    default: ':8080',
    help: 'address of /metrics ("0" disables)',
  },
  {
    flag: 'health-probe-bind-address',
    env: 'TFJOB_HEALTH_PROBE_BIND_ADDRESS',
    kind: 'string',
    default: ':8081',
    help: 'address of /healthz and /readyz ("0" disables)',
  },
  {
    flag: 'leader-elect',
    env: 'TFJOB_LEADER_ELECT',
    kind: 'boolean',
    default: false,
    help: 'elect a leader on a Lease so only one replica acts',
  },
  {
    flag: 'leader-election-id',
    env: 'TFJOB_LEADER_ELECTION_ID',
    kind: 'string',
    default: 'tfjob-operator.kubeflow.org',
    help: 'name of the Lease',
  },
  {
    flag: 'leader-election-namespace',
    env: 'POD_NAMESPACE',
    kind: 'string',
    default: 'tfjob-operator-system',
    help: "namespace of the Lease (the operator's own)",
  },
  {
    flag: 'leader-election-lease-duration',
    kind: 'duration',
    default: '15s',
    help: 'how long a standby waits before taking over an unrenewed lease',
  },
  {
    flag: 'leader-election-renew-deadline',
    kind: 'duration',
    default: '10s',
    help: 'how long the leader keeps acting without a successful renew',
  },
  { flag: 'leader-election-retry-period', kind: 'duration', default: '2s', help: 'interval between lease acquire/renew attempts' },
  {
    flag: 'identity',
    env: 'POD_NAME',
    kind: 'string',
    default: '',
    help: "this replica's identity for leader election and events (default: hostname + random suffix)",
  },
  {
    flag: 'cluster-domain',
    env: 'CUSTOM_CLUSTER_DOMAIN',
    kind: 'string',
    default: '',
    help: "domain appended to replica hosts in TF_CONFIG (tf-operator's CUSTOM_CLUSTER_DOMAIN)",
  },
  {
    flag: 'legacy-labels',
    env: 'TFJOB_LEGACY_LABELS',
    kind: 'boolean',
    default: false,
    help: 'also put pre-v1.6 labels (group-name, job-name, replica-type, ...) on pods for old clients',
  },
  {
    flag: 'starve-limit',
    env: 'TFJOB_STARVE_LIMIT',
    kind: 'duration',
    default: '30m',
    help: 'STARVELIMIT: waiting time after which a job is promoted and may preempt its class',
  },
  {
    flag: 'scale-out-cooldown',
    env: 'TFJOB_SCALE_OUT_COOLDOWN',
    kind: 'duration',
    default: '60s',
    help: 'a worker added by scale-out is not preempted by the same class for this long (ours)',
  },
  {
    flag: 'demote-after',
    env: 'TFJOB_DEMOTE_AFTER',
    kind: 'duration',
    default: '2h',
    help: 'a job whose workers held this much service (worker-time: 2h = 2 workers for 1h) ranks below the others of its class (ours)',
  },
  { flag: 'weight-slope', kind: 'number', default: 2.5, help: 'weight heuristic: slope s of the logit' },
  { flag: 'weight-worker-exponent', kind: 'number', default: 0.5, help: 'weight heuristic: γ, influence of the minimum worker count' },
  { flag: 'weight-reference-share', kind: 'number', default: 0.1, help: 'weight heuristic: cluster share of a job whose weight is 0.5' },
  {
    flag: 'default-min-workers',
    env: 'TFJOB_DEFAULT_MIN_WORKERS',
    kind: 'number',
    default: 0,
    help: 'min workers for jobs that declare none; 0 = fixed size (Worker.replicas), i.e. not elastic',
  },
  {
    flag: 'default-max-workers',
    env: 'TFJOB_DEFAULT_MAX_WORKERS',
    kind: 'number',
    default: 0,
    help: 'max workers for jobs that declare none; 0 = Worker.replicas',
  },
  {
    flag: 'max-workers-per-job',
    env: 'TFJOB_MAX_WORKERS_PER_JOB',
    kind: 'number',
    default: MAX_ELASTIC_WORKERS,
    help: `most workers an elastic job may grow to, whatever its max says, at most ${MAX_ELASTIC_WORKERS} (every replica's TF_CONFIG lists every worker slot; fixed-size jobs are not bounded)`,
  },
  {
    flag: 'progress-period',
    env: 'TFJOB_PROGRESS_PERIOD',
    kind: 'duration',
    default: '30s',
    help: "first period of reading each running job's progress from its log (status.progress, events, and policy ours schedules with the phase); doubles while every job has converged; 0 = off (jobs with spec.qoe are still read, every 30s)",
  },
  {
    flag: 'not-training-after',
    env: 'TFJOB_NOT_TRAINING_AFTER',
    kind: 'duration',
    default: '10m',
    help: 'a Running job whose pods all run but which printed no progress line for this long (since the later of its last pod starting and its last line) gets status.progress.notTraining and a NotTraining event; judged only for jobs that printed progress once or declare a training style; 0 = off',
  },
  {
    flag: 'qoe-rate-window',
    env: 'TFJOB_QOE_RATE_WINDOW',
    kind: 'duration',
    default: '5m',
    help: "span a job's step rate is measured over (spec.qoe); after its workers change, a fifteenth of it settles and a tenth must pass before a new rate",
  },
  {
    flag: 'progress-reads-per-second',
    env: 'TFJOB_PROGRESS_READS_PER_SECOND',
    kind: 'number',
    default: 10,
    help: 'budget of pods/log reads for progress, per second of the period, over all jobs',
  },
  {
    flag: 'resize-converged-cpu',
    env: 'TFJOB_RESIZE_CONVERGED_CPU',
    kind: 'number',
    default: 0,
    help: "fraction (0 < F < 1) of its CPU limit a Converged job's worker keeps, lowered in place through pods/resize (Kubernetes >= 1.33; never below the request; only containers with a CPU limit above it); 0 = off",
  },
  {
    flag: 'default-cpu-request',
    env: 'TFJOB_DEFAULT_CPU_REQUEST',
    kind: 'string',
    default: '100m',
    help: 'cpu assumed for placement of a replica container that requests none',
  },
  {
    flag: 'default-memory-request',
    env: 'TFJOB_DEFAULT_MEMORY_REQUEST',
    kind: 'string',
    default: '256Mi',
    help: 'memory assumed for placement of a replica container that requests none',
  },
  {
    flag: 'node-selector',
    env: 'TFJOB_NODE_SELECTOR',
    kind: 'string',
    default: '',
    help: 'label selector (k=v,k2=v2) of the nodes the operator places pods on; empty = all nodes',
  },
  {
    flag: 'node-lost-grace',
    env: 'TFJOB_NODE_LOST_GRACE',
    kind: 'duration',
    default: '60s',
    help: 'pods on a node NotReady this long (or deleted) are removed and placed again elsewhere',
  },
  {
    flag: 'replace-refused-after',
    env: 'TFJOB_REPLACE_REFUSED_AFTER',
    kind: 'duration',
    default: '60s',
    help: 'a pod kube-scheduler refuses this long on the node chosen for it is placed again on another node (0 = never)',
  },
  {
    flag: 'scheduling-interval',
    kind: 'duration',
    default: '10s',
    help: 'scheduling pass timer (starvation aging, cool-downs), besides event-driven passes',
  },
  {
    flag: 'scheduling-debounce',
    kind: 'duration',
    default: '200ms',
    help: 'events within this window are coalesced into one scheduling pass',
  },
  {
    flag: 'time-scale',
    env: 'TFJOB_TIME_SCALE',
    kind: 'number',
    default: 1,
    help: 'divide every scheduling timer by this (compressed-time demos and benchmarks)',
  },
  {
    flag: 'enable-scheme',
    kind: 'list',
    default: ['tfjob'],
    help: 'accepted for compatibility with training-operator; only tfjob is served',
  },
  { flag: 'log-level', env: 'LOG_LEVEL', kind: 'string', default: 'info', help: 'trace | debug | info | warn | error' },
] as const satisfies readonly OptionSpec[];

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
    defaultCpuRequest: z.string().regex(quantityRe, 'must be a Kubernetes quantity such as 100m or 1'),
    defaultMemoryRequest: z.string().regex(quantityRe, 'must be a Kubernetes quantity such as 256Mi'),
    nodeSelector: z.string().regex(/^$|^[^,=]+=[^,=]*(,[^,=]+=[^,=]*)*$/, 'must be k=v[,k2=v2]'),
    nodeLostGrace: z.number().nonnegative(),
    replaceRefusedAfter: z.number().nonnegative(),
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
