// Every option of the operator, in `--help` order: one table from which `--help`, parsing
// (config.ts) and the README's configuration table (hack/gen-config-docs.ts) are derived.
import { MAX_ELASTIC_WORKERS } from '../api/v1/elastic.ts';
import { DEFAULT_OPERATOR_POLICY, OPERATOR_POLICY_NAMES } from '../scheduler/policies/registry.ts';
import { VERTICAL_POLICIES } from './vertical/policy.ts';

export type Kind = 'string' | 'number' | 'boolean' | 'list' | 'duration';

export interface OptionSpec {
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
    flag: 'vertical-policy',
    env: 'TFJOB_VERTICAL_POLICY',
    kind: 'string',
    default: 'none',
    help: `in-place CPU limits of running jobs' containers (pods/resize; requests never change): ${VERTICAL_POLICIES.join(' | ')} (FlowCon: by growth efficiency; dqoes: from jobs ahead of their spec.qoe target to jobs behind on the same node; specon: FlowCon plus moving a converging elastic job's worker off a node where a faster job is CPU-starved, to a node with room); none = off`,
  },
  {
    flag: 'vertical-interval',
    env: 'TFJOB_VERTICAL_INTERVAL',
    kind: 'duration',
    default: '20s',
    help: "first interval between vertical rounds (FlowCon's itval: doubles while every job is Completing; DQoES: doubles after three rounds in which ahead and behind jobs both came closer to their targets, back at once when a job leaves Satisfied; back to this when jobs come or go)",
  },
  {
    flag: 'flowcon-alpha',
    env: 'TFJOB_FLOWCON_ALPHA',
    kind: 'number',
    default: 0.05,
    help: "FlowCon's α: a job whose metric improves by less than this fraction per core over an interval is slowing",
  },
  {
    flag: 'flowcon-cpu',
    env: 'TFJOB_FLOWCON_CPU',
    kind: 'string',
    default: 'allowed',
    help: "the CPU FlowCon divides a job's gain by: allowed (its limits × time) | used (its containers' CPU usage, read from each node's kubelet summary through the API server's node proxy: needs get on nodes/proxy: config/rbac/optional, or the chart's nodeStatsAccess; a node it cannot read falls back to allowed)",
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
    flag: 'refused-node-avoid-for',
    env: 'TFJOB_REFUSED_NODE_AVOID_FOR',
    kind: 'duration',
    default: '10m',
    help: "a node whose kubelet refused a job's pod (OutOfcpu, ...), or on which kube-scheduler refused it (--replace-refused-after), is left out of that job's placements this long (ours)",
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
