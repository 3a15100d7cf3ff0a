// A benchmark scenario on a real control plane: fake nodes shaped like the scenario's cluster, the
// operator (in-process, with the chosen policy and compressed timers), the training emulator, and
// the scenario's TFJobs submitted at their (compressed) arrival times. Used by the demo, the
// end-to-end tests and the benchmarks; returns the same figures the simulator reports.
import { CoreV1Api, type V1Taint } from '@kubernetes/client-node';
import { LABEL_NODE_POOL } from '../../src/api/v1/constants.ts';
import type { LocalCluster } from '../local-cluster/index.ts';
import { fakeNodes } from '../local-cluster/index.ts';
import { loadConfig } from '../../src/operator/config.ts';
import type { OperatorPolicyName } from '../../src/scheduler/index.ts';
import { Operator } from '../../src/operator/manager.ts';
import { KubeClients } from '../../src/runtime/kube-client.ts';
import type { Logger } from '../../src/runtime/logger.ts';
import { idealRuntimeSeconds, type Scenario } from '../workloads/index.ts';
import { jobName, tfjobManifest, toQuantities } from './manifests.ts';
import { TrainingEmulator, type EmulatedJob } from './training-emulator.ts';
import { httpStatus } from '../../src/runtime/http-status.ts';

export const POOL_LABEL = LABEL_NODE_POOL;

export interface ScenarioRunOptions {
  readonly cluster: LocalCluster;
  readonly scenario: Scenario;
  readonly policy: OperatorPolicyName;
  /** Scenario seconds per real second (60 = an hour of training in a minute). */
  readonly timeScale: number;
  readonly namespace: string;
  /** Node name prefix; nodes get the label `POOL_LABEL=<prefix>`. */
  readonly nodePrefix: string;
  /** Taint the nodes and give the jobs a toleration and node selector (shared test clusters). */
  readonly dedicatedNodes?: boolean;
  /** Run the operator in this process (default). `false`: something else runs it (real tf-operator). */
  readonly inProcessOperator?: boolean;
  readonly extraOperatorFlags?: readonly string[];
  /** Jobs print their progress into worker 0's log and the operator reads it (--progress-period 30s; else 0s: no reads). */
  readonly progress?: boolean;
  readonly logger: Logger;
  /** Stop waiting after this many scenario seconds (default 4 × the latest ideal finish). */
  readonly horizonSeconds?: number;
  /** Called about every 200 ms with the live state, for displays. */
  readonly onTick?: (jobs: readonly EmulatedJob[], scenarioSeconds: number, operator: Operator | undefined) => void;
  readonly signal?: AbortSignal;
}

export interface RunJobResult {
  readonly name: string;
  readonly label: string;
  readonly submitted: number | null;
  readonly started: number | null;
  readonly finished: number | null;
  readonly jct: number | null;
  readonly waited: number | null;
}

export interface ScenarioRunResult {
  readonly scenario: string;
  readonly policy: OperatorPolicyName;
  readonly timeScale: number;
  readonly jobs: readonly RunJobResult[];
  readonly summary: {
    readonly jctMean: number | null;
    readonly jctP95: number | null;
    readonly makespan: number | null;
    readonly unfinished: number;
    /** Time-weighted mean allocated share of the scenario cluster, per resource. */
    readonly utilisation: Readonly<Record<string, number>>;
  };
  /** What the host added to the model's times (scenario seconds); see pipelineLag. */
  readonly lag: PipelineLag;
  readonly wallSeconds: number;
}

export interface PipelineLag {
  /** Mean time from a job's work done (its pods ended) to its Succeeded condition seen. */
  readonly finishMean: number | null;
  /** Mean time from a pod seen bound to a node to seen Running. */
  readonly podStartMean: number | null;
  /** (finishMean + podStartMean) / mean JCT: the part of the real JCTs the simulator does not model. */
  readonly shareOfJct: number | null;
}

/** Above this share of the mean JCT, the demo says the host was too slow for the time scale. */
export const HOST_LAG_WARNING_SHARE = 0.05;

/**
 * The simulator finishes a job when its work is done and starts a replica at once; the real run
 * also waits for kwok, the operator and the watches, in real time multiplied by the time scale. On a
 * loaded host that lag grows and the real JCTs drift from the model's: measured here so the demo can
 * say so instead of reporting the drift as a scheduling difference.
 */
export function pipelineLag(
  jobs: readonly { readonly workDoneAt?: number; readonly finished?: number }[],
  podStarts: readonly number[],
  jctMean: number | null,
): PipelineLag {
  const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);
  const finishMean = mean(
    jobs.flatMap((j) => (j.workDoneAt === undefined || j.finished === undefined ? [] : [Math.max(0, j.finished - j.workDoneAt)])),
  );
  const podStartMean = mean(podStarts);
  const total = (finishMean ?? 0) + (podStartMean ?? 0);
  return { finishMean, podStartMean, shareOfJct: jctMean === null || jctMean <= 0 ? null : total / jctMean };
}

export async function runScenarioOnCluster(opts: ScenarioRunOptions): Promise<ScenarioRunResult> {
  const { cluster, scenario, namespace, nodePrefix } = opts;
  if ((scenario.cluster.extraPools ?? []).length > 0) {
    throw new Error(`scenario ${scenario.definition.name}: cluster.extraPools is simulator-only; the emulator runs one node shape`);
  }
  const kc = cluster.kubeConfig();
  const clients = new KubeClients(kc, { rateLimit: { qps: 0, burst: 1 } });
  const core = clients.api(CoreV1Api);
  const wallStart = performance.now();

  await core.createNamespace({ body: { metadata: { name: namespace } } }).catch((err: unknown) => {
    if (httpStatus(err) !== 409) throw err;
  });
  const dedicated = opts.dedicatedNodes ?? false;
  const taint: V1Taint = { key: POOL_LABEL, value: nodePrefix, effect: 'NoSchedule' };
  await cluster.createNodes(
    fakeNodes(nodePrefix, scenario.cluster.nodeCount, {
      capacity: toQuantities(scenario.cluster.allocatable),
      labels: { [POOL_LABEL]: nodePrefix },
      ...(dedicated ? { taints: [taint] } : {}),
    }),
  );
  // Pods need the namespace's default ServiceAccount (created by kube-controller-manager).
  for (let i = 0; i < 300; i++) {
    try {
      await core.readNamespacedServiceAccount({ name: 'default', namespace });
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  let operator: Operator | undefined;
  if (opts.inProcessOperator ?? true) {
    const { config } = loadConfig({
      argv: [
        '--namespace',
        namespace,
        '--policy',
        opts.policy,
        '--time-scale',
        String(opts.timeScale),
        '--node-selector',
        `${POOL_LABEL}=${nodePrefix}`,
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
        // The jobs print progress only with `progress`; otherwise the operator reads no logs (the default is 30s).
        '--progress-period',
        opts.progress === true ? '30s' : '0s',
        ...(opts.extraOperatorFlags ?? []),
      ],
      env: {},
    });
    operator = new Operator(config, { kubeConfig: kc, logger: opts.logger });
    await operator.start();
  }

  const emulator = new TrainingEmulator({
    kc,
    clients,
    namespace,
    jobs: scenario.jobs,
    timeScale: opts.timeScale,
    startupSeconds: scenario.definition.startupSeconds,
    ...(opts.progress === true ? { progressLogs: true } : {}),
    logger: opts.logger,
  });
  await emulator.start();

  const manifests = scenario.jobs.map((job) => ({
    job,
    body: withPlacementPool(
      tfjobManifest(job, { namespace, cluster: scenario.cluster, declareScalingCurve: scenario.definition.declareScalingCurves }),
      nodePrefix,
      dedicated,
    ),
  }));
  const horizon =
    opts.horizonSeconds ??
    4 *
      Math.max(...scenario.jobs.map((j) => j.submitSeconds + idealRuntimeSeconds(j, scenario.cluster, scenario.definition.startupSeconds)));
  const pending = [...manifests].sort((a, b) => a.job.submitSeconds - b.job.submitSeconds);
  const custom = kc.makeApiClient((await import('@kubernetes/client-node')).CustomObjectsApi);
  // The API server compiles a CRD's schema and validation rules on first use, which takes seconds of
  // real time for the TFJob CRD: warm it up with a dry run so it does not count as scenario time.
  if (manifests[0] !== undefined) {
    await custom.createNamespacedCustomObject({
      group: 'kubeflow.org',
      version: 'v1',
      plural: 'tfjobs',
      namespace,
      body: manifests[0].body,
      dryRun: 'All',
    });
  }
  try {
    let lastTick = 0;
    emulator.startClock();
    while (!emulator.allFinished() && emulator.now() < horizon) {
      if (opts.signal?.aborted === true) break;
      const now = emulator.now();
      while (pending.length > 0 && pending[0]!.job.submitSeconds <= now) {
        const next = pending.shift()!;
        const at = emulator.now();
        await custom.createNamespacedCustomObject({ group: 'kubeflow.org', version: 'v1', plural: 'tfjobs', namespace, body: next.body });
        emulator.submitted(jobName(next.job), at);
      }
      if (performance.now() - lastTick >= 200) {
        lastTick = performance.now();
        opts.onTick?.([...emulator.jobs.values()], now, operator);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    opts.onTick?.([...emulator.jobs.values()], emulator.now(), operator);
  } finally {
    emulator.stop();
    await operator?.stop();
  }
  return summarise(opts, emulator, (performance.now() - wallStart) / 1000);
}

/** Keeps a scenario's pods on its own nodes (node selector, plus a toleration for tainted pools). */
function withPlacementPool(manifest: Record<string, unknown>, pool: string, dedicated: boolean): Record<string, unknown> {
  const spec = manifest.spec as { tfReplicaSpecs: Record<string, { template: { spec: Record<string, unknown> } }> };
  for (const replica of Object.values(spec.tfReplicaSpecs)) {
    replica.template.spec.nodeSelector = { [POOL_LABEL]: pool };
    if (dedicated) replica.template.spec.tolerations = [{ key: POOL_LABEL, operator: 'Equal', value: pool, effect: 'NoSchedule' }];
  }
  return manifest;
}

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

function summarise(opts: ScenarioRunOptions, emulator: TrainingEmulator, wallSeconds: number): ScenarioRunResult {
  const jobs: RunJobResult[] = [...emulator.jobs.values()].map((j) => ({
    name: j.name,
    label: j.workload.label,
    submitted: j.submitted ?? null,
    started: j.started ?? null,
    finished: j.finished ?? null,
    jct: j.finished !== undefined && j.submitted !== undefined ? j.finished - j.submitted : null,
    waited: j.started !== undefined && j.submitted !== undefined ? j.started - j.submitted : null,
  }));
  const jcts = jobs.flatMap((j) => (j.jct === null ? [] : [j.jct])).sort((a, b) => a - b);
  const submits = jobs.flatMap((j) => (j.submitted === null ? [] : [j.submitted]));
  const finishes = jobs.flatMap((j) => (j.finished === null ? [] : [j.finished]));
  const mean = emulator.meanAllocated();
  const utilisation: Record<string, number> = {};
  for (const [k, total] of Object.entries(opts.scenario.cluster.allocatable)) {
    utilisation[k] = total > 0 ? (mean[k] ?? 0) / (total * opts.scenario.cluster.nodeCount) : 0;
  }
  const unfinished = jobs.filter((j) => j.finished === null).length;
  const jctMean = jcts.length === 0 ? null : jcts.reduce((a, b) => a + b, 0) / jcts.length;
  return {
    scenario: opts.scenario.definition.name,
    policy: opts.policy,
    timeScale: opts.timeScale,
    jobs,
    summary: {
      jctMean,
      jctP95: percentile(jcts, 0.95),
      makespan: unfinished === 0 && submits.length > 0 ? Math.max(...finishes) - Math.min(...submits) : null,
      unfinished,
      utilisation,
    },
    lag: pipelineLag([...emulator.jobs.values()], emulator.lag().podStarts, jctMean),
    wallSeconds,
  };
}
