// Benchmark (not a test), docs/benchmarks.md §2.2: 500 TFJobs of 1 PS + 4 workers created at once
// against a real apiserver with 200 kwok nodes (32 cpu / 128Gi each; every job fits). Measures, from
// the first create:
//   - until every pod exists with spec.nodeName (ours: the operator places pods itself, so every
//     admitted pod is created bound; training-operator: pods created unbound, bound by kube-scheduler),
//   - until every TFJob has a Running condition,
//   - API requests by verb of the system (its /metrics rest_client_requests_total) and of
//     kube-scheduler, CPU seconds and peak RSS of both processes.
// Systems: `ours` (this operator, default policy) at client rate limits --qps (default 50/100 and a
// higher setting), `tf-operator` (this operator in compatible mode + kube-scheduler, optional), and
// `training-operator` (Kubeflow v1.7.0 + kube-scheduler; its client limit is fixed at 20 QPS / 30).
// `--apiserver unlimited` lifts the apiserver's in-flight limits and gives kube-scheduler and
// kube-controller-manager 1000 QPS (LocalCluster noRateLimits).
//
//   node bench/burst.ts [--jobs 500] [--nodes 200] [--systems ours,training-operator] [--qps default,500/1000]
//                       [--apiserver default,unlimited] [--repeats 3] [--out DIR] [--operator-rev HEAD]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { fakeNodes, LocalCluster } from '../lab/local-cluster/index.ts';
import { installCrd } from '../lab/local-cluster/crd.ts';
import { Informer } from '../src/runtime/informer.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { lineChart, type Series } from '../lab/simulator/svg.ts';
import { cliArgs } from './lib/args.ts';
import type { Sample } from '../test/support/prometheus.ts';
import { diffCounts, requestsByMethod, total } from './lib/prom.ts';
import {
  cpuSeconds,
  kubeSchedulerMetrics,
  peakRssBytes,
  startOperatorProcess,
  startTrainingOperator,
  upstreamCrdFile,
  type SystemProcess,
} from './lib/processes.ts';
import { header, resultDir, writeJson, writeText } from './lib/results.ts';
import { snapshotSource, type SourceTree } from './lib/snapshot.ts';
import { percentile, round, roundSpread, spread } from './lib/stats.ts';
import { createNamespace, driverClients, pool, simpleTfjob, tfjobsPath } from './lib/workload.ts';

const SCHEMA = 'burst/v1';
const NAMESPACE = 'burst';
const SYSTEMS = ['ours', 'tf-operator', 'training-operator'] as const;
type System = (typeof SYSTEMS)[number];

/**
 * `plain`: templates with nothing but requests (ours binds every pod by nodeName). `scheduler-bound`:
 * each template also has a soft topology spread constraint (ScheduleAnyway: it never blocks), one of
 * the constraints ours leaves to kube-scheduler, so every pod goes through kube-scheduler's binding.
 */
const POD_KINDS = ['plain', 'scheduler-bound'] as const;
type PodKind = (typeof POD_KINDS)[number];
const SOFT_SPREAD = {
  topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway' }],
};

interface Config {
  readonly system: System;
  readonly pods: PodKind;
  /** `default` or `<qps>/<burst>` (our operator only). */
  readonly qps: string;
  readonly apiserver: 'default' | 'unlimited';
}

function label(c: Config): string {
  return `${c.system}${c.system === 'training-operator' ? '' : ` qps=${c.qps}`} apiserver=${c.apiserver}${c.pods === 'plain' ? '' : ` pods=${c.pods}`}`;
}

interface RunRecord {
  readonly config: Config;
  readonly label: string;
  readonly repeat: number;
  readonly startedAt: string;
  readonly loadAverage: number;
  readonly createSeconds: number;
  /** First create → first / last pod with spec.nodeName (null: not all within the timeout). */
  readonly firstBoundSeconds: number | null;
  readonly allBoundSeconds: number | null;
  readonly podsBound: number;
  readonly podsExpected: number;
  /** First create → every TFJob has condition Running=True. */
  readonly allRunningSeconds: number | null;
  /** [seconds since first create, pods with nodeName]. */
  readonly timeline: readonly (readonly [number, number])[];
  /**
   * Pods first seen without a node, then bound (by kube-scheduler): how many, and the time between
   * the two watch events (ms; median and p99). Pods created bound are not counted.
   */
  readonly bindDelayMs: { readonly pods: number; readonly median: number | null; readonly p99: number | null };
  readonly requests: {
    readonly systemAtBound: Record<string, number>;
    readonly systemAtRunning: Record<string, number>;
    readonly schedulerAtBound: Record<string, number>;
    readonly schedulerAtRunning: Record<string, number>;
  };
  readonly cpuSeconds: { readonly system: number; readonly scheduler: number };
  readonly peakRssBytes: { readonly system: number };
  readonly deadComponents: readonly string[];
}

function parse() {
  const { values } = parseArgs({
    args: cliArgs(),
    options: {
      jobs: { type: 'string', default: '500' },
      workers: { type: 'string', default: '4' },
      nodes: { type: 'string', default: '200' },
      'node-cpu': { type: 'string', default: '32' },
      'node-memory': { type: 'string', default: '128Gi' },
      systems: { type: 'string', default: 'ours,training-operator' },
      qps: { type: 'string', default: 'default,500/1000' },
      apiserver: { type: 'string', default: 'default' },
      pods: { type: 'string', default: 'plain' },
      repeats: { type: 'string', default: '3' },
      concurrency: { type: 'string', default: '32' },
      'timeout-seconds': { type: 'string', default: '900' },
      out: { type: 'string' },
      'operator-rev': { type: 'string', default: 'HEAD' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(
      'usage: node bench/burst.ts [--jobs 500] [--nodes 200] [--systems ours,training-operator] [--qps default,500/1000] [--apiserver default,unlimited] [--pods plain,scheduler-bound] [--repeats 3] [--out DIR] [--operator-rev HEAD|worktree|REV]',
    );
    process.exit(0);
  }
  const systems = values.systems.split(',') as System[];
  for (const s of systems) if (!SYSTEMS.includes(s)) throw new Error(`unknown system ${s}`);
  const apiservers = values.apiserver.split(',').map((a): Config['apiserver'] => {
    if (a !== 'default' && a !== 'unlimited') throw new Error(`--apiserver: default or unlimited, not ${a}`);
    return a;
  });
  const qps = values.qps.split(',');
  for (const q of qps) if (q !== 'default' && !/^\d+\/\d+$/.test(q)) throw new Error(`--qps: default or <qps>/<burst>, not ${q}`);
  const podKinds = values.pods.split(',').map((p): PodKind => {
    const kind = POD_KINDS.find((k) => k === p);
    if (kind === undefined) throw new Error(`--pods: plain or scheduler-bound, not ${p}`);
    return kind;
  });
  const configs: Config[] = [];
  for (const pods of podKinds) {
    for (const apiserver of apiservers) {
      for (const system of systems) {
        if (system === 'training-operator') configs.push({ system, qps: 'fixed 20/30', apiserver, pods });
        else for (const q of qps) configs.push({ system, qps: q, apiserver, pods });
      }
    }
  }
  return {
    jobs: Number(values.jobs),
    workers: Number(values.workers),
    nodes: Number(values.nodes),
    nodeCpu: values['node-cpu'],
    nodeMemory: values['node-memory'],
    configs,
    repeats: Number(values.repeats),
    concurrency: Number(values.concurrency),
    timeoutMs: Number(values['timeout-seconds']) * 1000,
    out: values.out,
    operatorRev: values['operator-rev'],
  };
}

type Options = ReturnType<typeof parse>;

function delayQuantiles(values: readonly number[]): { median: number | null; p99: number | null } {
  if (values.length === 0) return { median: null, p99: null };
  const sorted = [...values].sort((a, b) => a - b);
  return { median: round(percentile(sorted, 50), 1), p99: round(percentile(sorted, 99), 1) };
}

async function oneRun(opts: Options, config: Config, repeat: number, logDir: string, source: SourceTree): Promise<RunRecord> {
  const tag = `${config.system}-${config.qps.replace(/\W+/g, '_')}-${config.apiserver}-${config.pods}-r${repeat}`;
  const startedAt = new Date();
  const loadAverage = round(os.loadavg()[0] ?? 0, 2);
  const cluster = await LocalCluster.start({
    scheduler: true,
    noRateLimits: config.apiserver === 'unlimited',
    onProgress: () => undefined,
  });
  let proc: SystemProcess | undefined;
  let tracker: Informer<V1Pod> | undefined;
  try {
    const kc = cluster.kubeConfig();
    const clients = driverClients(kc);
    await cluster.createNodes(fakeNodes('node', opts.nodes, { capacity: { cpu: opts.nodeCpu, memory: opts.nodeMemory } }), {
      timeoutMs: 180_000,
    });
    await createNamespace(clients, NAMESPACE);
    if (config.system === 'training-operator') {
      await installCrd(kc, upstreamCrdFile());
      proc = await startTrainingOperator({ kubeconfig: cluster.kubeconfigPath, logFile: path.join(logDir, `${tag}.log`) });
    } else {
      await installCrd(kc);
      const rate =
        config.qps === 'default' ? [] : ['--kube-api-qps', config.qps.split('/')[0]!, '--kube-api-burst', config.qps.split('/')[1]!];
      proc = await startOperatorProcess({
        kubeconfig: cluster.kubeconfigPath,
        logFile: path.join(logDir, `${tag}.log`),
        root: source.root,
        args: ['--policy', config.system, ...rate],
      });
    }
    const schedulerMetrics = kubeSchedulerMetrics(cluster);
    const schedulerPid = cluster.state.processes['kube-scheduler']?.pid ?? 0;
    const requests = async (f: () => Promise<Sample[]>) => requestsByMethod(await f());

    // The driver's view of the pods: when each first had a node.
    const expected = opts.jobs * (1 + opts.workers);
    let t0 = 0;
    let bound = 0;
    let lastBoundAt = 0;
    let firstBoundAt = 0;
    const seen = new Set<string>();
    const unboundSince = new Map<string, number>();
    const bindDelays: number[] = [];
    const timeline: [number, number][] = [];
    const core = clients.api(CoreV1Api);
    tracker = new Informer<V1Pod>(
      kc,
      {
        list: ({ limit, continueToken }) => core.listNamespacedPod({ namespace: NAMESPACE, limit, _continue: continueToken }),
        watchPath: `/api/v1/namespaces/${NAMESPACE}/pods`,
      },
      { name: 'burst-pods', logger: createLogger({ level: 'silent' }) },
    );
    tracker.on((type, pod) => {
      const uid = pod.metadata?.uid ?? '';
      if (type === 'delete') return;
      if (pod.spec?.nodeName === undefined) {
        if (!unboundSince.has(uid)) unboundSince.set(uid, performance.now());
        return;
      }
      if (seen.has(uid)) return;
      const since = unboundSince.get(uid);
      if (since !== undefined) bindDelays.push(performance.now() - since);
      seen.add(uid);
      bound++;
      lastBoundAt = performance.now();
      if (bound === 1) firstBoundAt = lastBoundAt;
      if (bound % 50 === 0 || bound === expected) timeline.push([round((lastBoundAt - t0) / 1000, 2), bound]);
    });
    tracker.start();
    await tracker.waitForSync();

    const beforeSystem = await requests(() => proc!.metrics());
    const beforeScheduler = await requests(schedulerMetrics);
    const cpuBefore = { system: cpuSeconds(proc.process.pid), scheduler: cpuSeconds(schedulerPid) };
    const names = Array.from({ length: opts.jobs }, (_, i) => `burst-${String(i).padStart(4, '0')}`);
    const shape = {
      workers: opts.workers,
      ps: { cpu: '1', memory: '2Gi' },
      worker: { cpu: '2', memory: '4Gi' },
      ...(config.pods === 'scheduler-bound' ? { podSpec: SOFT_SPREAD } : {}),
    };

    // The apiserver compiles a CRD's schema on first use (seconds for these large schemas): not part of the burst.
    await clients.request('POST', `${tfjobsPath(NAMESPACE)}?dryRun=All`, simpleTfjob('warm-up', NAMESPACE, shape));

    t0 = performance.now();
    timeline.push([0, 0]);
    await pool(names, opts.concurrency, (name) => clients.request('POST', tfjobsPath(NAMESPACE), simpleTfjob(name, NAMESPACE, shape)));
    const createSeconds = (performance.now() - t0) / 1000;

    const deadline = t0 + opts.timeoutMs;
    while (bound < expected && performance.now() < deadline) await sleep(50);
    const allBound = bound >= expected;
    const atBound = { system: await requests(() => proc!.metrics()), scheduler: await requests(schedulerMetrics) };

    // Then every job Running (status written by the operator once its pods run).
    let allRunningSeconds: number | null = null;
    while (performance.now() < deadline) {
      const list = await clients.request<{ items: { status?: { conditions?: { type: string; status: string }[] } }[] }>(
        'GET',
        tfjobsPath(NAMESPACE),
      );
      const running = list.items.filter(
        (j) => j.status?.conditions?.some((c) => c.type === 'Running' && c.status === 'True') === true,
      ).length;
      if (running >= opts.jobs) {
        allRunningSeconds = (performance.now() - t0) / 1000;
        break;
      }
      await sleep(500);
    }
    const atRunning = { system: await requests(() => proc!.metrics()), scheduler: await requests(schedulerMetrics) };
    const cpuAfter = { system: cpuSeconds(proc.process.pid), scheduler: cpuSeconds(schedulerPid) };
    return {
      config,
      label: label(config),
      repeat,
      startedAt: startedAt.toISOString(),
      loadAverage,
      createSeconds: round(createSeconds, 2),
      firstBoundSeconds: firstBoundAt === 0 ? null : round((firstBoundAt - t0) / 1000, 2),
      allBoundSeconds: allBound ? round((lastBoundAt - t0) / 1000, 2) : null,
      podsBound: bound,
      podsExpected: expected,
      allRunningSeconds: allRunningSeconds === null ? null : round(allRunningSeconds, 2),
      timeline,
      bindDelayMs: { pods: bindDelays.length, ...delayQuantiles(bindDelays) },
      requests: {
        systemAtBound: diffCounts(atBound.system, beforeSystem),
        systemAtRunning: diffCounts(atRunning.system, beforeSystem),
        schedulerAtBound: diffCounts(atBound.scheduler, beforeScheduler),
        schedulerAtRunning: diffCounts(atRunning.scheduler, beforeScheduler),
      },
      cpuSeconds: { system: round(cpuAfter.system - cpuBefore.system, 2), scheduler: round(cpuAfter.scheduler - cpuBefore.scheduler, 2) },
      peakRssBytes: { system: peakRssBytes(proc.process.pid) },
      deadComponents: cluster.deadComponents(),
    };
  } finally {
    tracker?.stop();
    await proc?.stop();
    await cluster.stop();
  }
}

function summarise(runs: readonly RunRecord[]) {
  const labels = [...new Set(runs.map((r) => r.label))];
  return Object.fromEntries(
    labels.map((l) => {
      const rs = runs.filter((r) => r.label === l);
      const nums = (f: (r: RunRecord) => number | null) =>
        rs.flatMap((r) => {
          const v = f(r);
          return v === null ? [] : [v];
        });
      const verbs = [...new Set(rs.flatMap((r) => Object.keys(r.requests.systemAtBound)))];
      return [
        l,
        {
          runs: rs.length,
          incomplete: rs.filter((r) => r.allBoundSeconds === null).length,
          createSeconds: roundSpread(spread(nums((r) => r.createSeconds)), 2),
          allBoundSeconds: roundSpread(spread(nums((r) => r.allBoundSeconds)), 2),
          allRunningSeconds: roundSpread(spread(nums((r) => r.allRunningSeconds)), 2),
          systemRequestsAtBound: roundSpread(spread(nums((r) => total(r.requests.systemAtBound))), 0),
          systemRequestsAtBoundByVerb: Object.fromEntries(
            verbs.map((v) => [v, roundSpread(spread(nums((r) => r.requests.systemAtBound[v] ?? 0)), 0)]),
          ),
          systemRequestsAtRunning: roundSpread(spread(nums((r) => total(r.requests.systemAtRunning))), 0),
          schedulerRequestsAtBound: roundSpread(spread(nums((r) => total(r.requests.schedulerAtBound))), 0),
          systemCpuSeconds: roundSpread(spread(nums((r) => r.cpuSeconds.system)), 2),
          schedulerCpuSeconds: roundSpread(spread(nums((r) => r.cpuSeconds.scheduler)), 2),
          systemPeakRssMiB: roundSpread(spread(nums((r) => r.peakRssBytes.system / 2 ** 20)), 1),
        },
      ];
    }),
  );
}

async function main(): Promise<void> {
  const opts = parse();
  const dir = resultDir(opts.out);
  const startedAt = new Date();
  const source = snapshotSource(opts.operatorRev);
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'tfjob-bench-burst-'));
  console.log(`logs in ${logDir}`);
  const runs: RunRecord[] = [];
  const file = path.join(dir, 'burst.json');
  const doc = () => ({
    ...header(SCHEMA, startedAt),
    finishedAt: new Date().toISOString(),
    params: {
      jobs: opts.jobs,
      workersPerJob: opts.workers,
      psPerJob: 1,
      nodes: opts.nodes,
      node: { cpu: opts.nodeCpu, memory: opts.nodeMemory, pods: 110 },
      requests: { ps: { cpu: '1', memory: '2Gi' }, worker: { cpu: '2', memory: '4Gi' } },
      configs: opts.configs,
      repeats: opts.repeats,
      driverConcurrency: opts.concurrency,
      timeoutSeconds: opts.timeoutMs / 1000,
      operatorRevision: source.revision,
      trainingOperator: 'v1.7.0 (controller-runtime default client limit 20 QPS / burst 30, --controller-threads 1)',
    },
    runs,
    summary: summarise(runs),
  });
  let failures = 0;
  for (let repeat = 1; repeat <= opts.repeats; repeat++) {
    for (const config of opts.configs) {
      process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${label(config)} repeat ${repeat} ... `);
      try {
        const r = await oneRun(opts, config, repeat, logDir, source);
        runs.push(r);
        console.log(
          `created in ${r.createSeconds.toFixed(1)} s; ${r.podsBound}/${r.podsExpected} pods bound in ${r.allBoundSeconds?.toFixed(1) ?? '-'} s; all Running ${r.allRunningSeconds?.toFixed(1) ?? '-'} s; requests ${total(r.requests.systemAtBound)} (${JSON.stringify(r.requests.systemAtBound)}), scheduler ${total(r.requests.schedulerAtBound)}; cpu ${r.cpuSeconds.system} s + scheduler ${r.cpuSeconds.scheduler} s; bound by kube-scheduler ${r.bindDelayMs.pods} (median ${r.bindDelayMs.median ?? '-'} ms, p99 ${r.bindDelayMs.p99 ?? '-'} ms)${r.deadComponents.length > 0 ? ` DEAD ${r.deadComponents.join(',')}` : ''}`,
        );
      } catch (err) {
        failures++;
        console.log(`FAILED: ${(err as Error).message.split('\n')[0] ?? ''}`);
      }
      writeJson(file, doc());
    }
  }
  writeJson(file, doc());
  const series: Series[] = [...new Set(runs.map((r) => r.label))].map((l, i) => {
    const rs = runs.filter((r) => r.label === l).sort((a, b) => (a.allBoundSeconds ?? Infinity) - (b.allBoundSeconds ?? Infinity));
    const median = rs[Math.floor((rs.length - 1) / 2)];
    return { name: l, colorIndex: i, points: median?.timeline ?? [] };
  });
  writeText(
    path.join(dir, 'burst-bound-pods.svg'),
    lineChart({
      title: `Burst: ${opts.jobs} TFJobs × ${1 + opts.workers} pods on ${opts.nodes} kwok nodes (median run)`,
      xLabel: 'seconds since the first create',
      yLabel: 'pods with spec.nodeName',
      series,
    }),
  );
  console.log(`\n${JSON.stringify(doc().summary, null, 1)}`);
  console.log(`wrote ${file}`);
  source.remove();
  if (failures === 0) rmSync(logDir, { recursive: true, force: true });
  process.exitCode = failures === 0 ? 0 : 1;
}

await main();
