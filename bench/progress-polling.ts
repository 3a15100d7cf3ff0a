// Benchmark (issue 14, "progress polling cost"): what reading training progress from pod logs costs
// on a real control plane. N one-worker TFJobs run on kwok nodes; every worker 0 prints a progress
// line (docs/progress-protocol.md) every few seconds into a log kwok serves through `pods/log`.
// The operator runs as a real process twice over the same running jobs, each for the same window:
//   1. without progress reading (--progress-period 0): the baseline;
//   2. with --progress-period P and --progress-reads-per-second B.
// Per window: operator CPU seconds per second, API requests per second (all, and pods/log reads),
// rounds, reads per round against the budget (B × P), followed and deferred jobs, peak RSS, and at
// the end how many TFJobs carry status.progress and how old their last update is.
//
//   node bench/progress-polling.ts [--jobs 1000] [--nodes 250] [--period 30] [--reads-per-second 10]
//                                  [--window 300] [--line-every 10] [--out DIR]
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION } from '../src/api/v1/constants.ts';
import { appendPodLog, servePodLogFile } from '../lab/local-cluster/pod-logs.ts';
import { PROGRESS_PREFIX } from '../src/progress/signals/index.ts';
import { namespaceIn, poolIn, startDedicatedCluster } from '../test/support/dedicated-cluster.ts';
import { OperatorChild } from '../test/support/operator-child.ts';
import { onPool } from '../test/support/pool.ts';
import { sumOf, type Sample } from '../test/support/prometheus.ts';
import { tfjob } from '../test/support/tfjob.ts';
import { cliArgs } from './lib/args.ts';
import { header, resultDir, writeJson } from './lib/results.ts';
import { driverClients, pool as inParallel, tfjobsPath } from './lib/workload.ts';

const { values } = parseArgs({
  args: cliArgs(),
  options: {
    jobs: { type: 'string', default: '1000' },
    nodes: { type: 'string', default: '250' },
    period: { type: 'string', default: '30' },
    'reads-per-second': { type: 'string', default: '10' },
    window: { type: 'string', default: '300' },
    'line-every': { type: 'string', default: '10' },
    out: { type: 'string' },
  },
});
const jobs = Number(values.jobs);
const periodS = Number(values.period);
const budgetPerS = Number(values['reads-per-second']);
const windowS = Number(values.window);
const lineEveryS = Number(values['line-every']);
const startedAt = new Date();
const log = (line: string): void => {
  process.stderr.write(`[progress-polling ${Math.round((Date.now() - startedAt.getTime()) / 1000)}s] ${line}\n`);
};

interface Window {
  readonly progress: boolean;
  readonly seconds: number;
  readonly cpuSecondsPerSecond: number;
  readonly apiRequestsPerSecond: number;
  readonly logReadsPerSecond: number;
  readonly rounds: number;
  readonly maxReadsPerRound: number | undefined;
  readonly budgetPerRound: number | undefined;
  readonly followedJobs: number | undefined;
  readonly maxDeferredJobs: number | undefined;
  readonly roundSecondsMean: number | undefined;
  readonly peakRssMiB: number;
}

/** Runs the operator for `windowS` seconds after a settling period, sampling its metrics. */
async function measure(kubeconfig: string, namespace: string, poolFlags: readonly string[], progress: boolean): Promise<Window> {
  const args = [
    '--namespace',
    namespace,
    '--policy',
    'ours',
    ...poolFlags,
    '--progress-period',
    progress ? `${periodS}s` : '0',
    '--progress-reads-per-second',
    String(budgetPerS),
  ];
  const operator = await OperatorChild.start(`progress-polling-${progress ? 'on' : 'off'}`, kubeconfig, args);
  try {
    await operator.ready(300_000);
    // Settle: the caches fill, the first pass runs, the first progress round (a changed job set
    // starts one at once) reads the logs from the start.
    await sleep(Math.max(20, periodS + 5) * 1000);
    const at = async (): Promise<{ t: number; s: Sample[] }> => ({ t: performance.now(), s: await operator.metrics() });
    const first = await at();
    let maxDeferred = 0;
    let peakRss = sumOf(first.s, 'process_resident_memory_bytes');
    // Reads per round: sampled every second, a round's reads show up as one step in the counter.
    let lastReads = sumOf(first.s, 'tfjob_operator_progress_log_reads_total');
    let lastRounds = sumOf(first.s, 'tfjob_operator_progress_round_duration_seconds_count');
    let maxPerRound = 0;
    const end = performance.now() + windowS * 1000;
    let last = first;
    while (performance.now() < end) {
      await sleep(1000);
      last = await at();
      maxDeferred = Math.max(maxDeferred, sumOf(last.s, 'tfjob_operator_progress_deferred_jobs'));
      peakRss = Math.max(peakRss, sumOf(last.s, 'process_resident_memory_bytes'));
      const reads = sumOf(last.s, 'tfjob_operator_progress_log_reads_total');
      const rounds = sumOf(last.s, 'tfjob_operator_progress_round_duration_seconds_count');
      if (rounds > lastRounds) maxPerRound = Math.max(maxPerRound, (reads - lastReads) / (rounds - lastRounds));
      lastReads = reads;
      lastRounds = rounds;
    }
    const seconds = (last.t - first.t) / 1000;
    const delta = (name: string, labels: Record<string, string> = {}): number => sumOf(last.s, name, labels) - sumOf(first.s, name, labels);
    const rounds = delta('tfjob_operator_progress_round_duration_seconds_count');
    return {
      progress,
      seconds: Math.round(seconds),
      cpuSecondsPerSecond: delta('process_cpu_seconds_total') / seconds,
      apiRequestsPerSecond: delta('rest_client_requests_total') / seconds,
      logReadsPerSecond: delta('tfjob_operator_progress_log_reads_total') / seconds,
      rounds,
      maxReadsPerRound: progress ? maxPerRound : undefined,
      budgetPerRound: progress ? Math.floor(budgetPerS * periodS) : undefined,
      followedJobs: progress ? sumOf(last.s, 'tfjob_operator_progress_followed_jobs') : undefined,
      maxDeferredJobs: progress ? maxDeferred : undefined,
      roundSecondsMean: rounds > 0 ? delta('tfjob_operator_progress_round_duration_seconds_sum') / rounds : undefined,
      peakRssMiB: Math.round(peakRss / 2 ** 20),
    };
  } finally {
    await operator.kill('SIGTERM');
  }
}

const cluster = await startDedicatedCluster();
let writer: NodeJS.Timeout | undefined;
try {
  const kc: KubeConfig = cluster.kubeConfig();
  const namespace = await namespaceIn(kc, 'progress-polling');
  log(`creating ${values.nodes} kwok nodes`);
  const pool = await poolIn(cluster, 'poll', Number(values.nodes), { cpu: '4', memory: '16Gi' }, 900_000);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  const clients = driverClients(kc);
  const names = Array.from({ length: jobs }, (_, i) => `poll-${String(i).padStart(4, '0')}`);
  log(`creating ${jobs} TFJobs`);
  await inParallel(names, 20, (name) =>
    clients.request(
      'POST',
      tfjobsPath(namespace),
      onPool(tfjob(name, { Worker: 1 }, { resources: { cpu: '500m', memory: '256Mi' } }), pool),
    ),
  );

  // An operator without progress reading places the jobs; the pods then keep running between the
  // two measured operators (kwok keeps them Running; nothing else touches them).
  log('placing the jobs (operator without progress reading)');
  const placer = await OperatorChild.start('progress-polling-placer', cluster.kubeconfigPath, [
    '--namespace',
    namespace,
    '--policy',
    'ours',
    ...pool.operatorFlags,
    '--kube-api-qps',
    '200',
    '--kube-api-burst',
    '400',
  ]);
  try {
    for (;;) {
      const pods = await core.listNamespacedPod({ namespace });
      const running = pods.items.filter((p) => p.status?.phase === 'Running').length;
      if (running >= jobs) break;
      log(`${running}/${jobs} worker pods running`);
      await sleep(5000);
    }
  } finally {
    await placer.kill('SIGTERM');
  }

  log('serving every worker 0 log');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'progress-polling-'));
  const files = names.map((n) => path.join(dir, `${n}-worker-0.log`));
  await inParallel(names, 20, (n, i) => servePodLogFile(clients, namespace, `${n}-worker-0`, files[i]!));
  // Every job learns along its own curve: accuracy rises towards 0.9 with the step.
  let step = 0;
  const writeLines = (): void => {
    step += 100;
    files.forEach((file, i) => {
      const metric = 0.9 - 0.8 * Math.exp(-step / (2000 + 10 * i));
      appendPodLog(file, [
        `${PROGRESS_PREFIX} ${JSON.stringify({ step, metric: Number(metric.toFixed(5)), name: 'val_accuracy', higherIsBetter: true })}`,
      ]);
    });
  };
  writeLines();
  writer = setInterval(writeLines, lineEveryS * 1000);

  log(`baseline window (${windowS}s, no progress reading)`);
  const off = await measure(cluster.kubeconfigPath, namespace, pool.operatorFlags, false);
  log(`progress window (${windowS}s, period ${periodS}s, ${budgetPerS} reads/s)`);
  const on = await measure(cluster.kubeconfigPath, namespace, pool.operatorFlags, true);

  // What users see: status.progress on each TFJob, and how fresh it is.
  const list = (await custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace })) as {
    items: { status?: { progress?: { lastUpdate?: string } } }[];
  };
  const now = Date.now();
  const ages = list.items
    .map((j) => j.status?.progress?.lastUpdate)
    .filter((t): t is string => t !== undefined)
    .map((t) => (now - Date.parse(t)) / 1000)
    .sort((a, b) => a - b);
  const result = {
    ...header('progress-polling/v1', startedAt),
    finishedAt: new Date().toISOString(),
    setup: {
      jobs,
      nodes: Number(values.nodes),
      periodSeconds: periodS,
      readsPerSecond: budgetPerS,
      windowSeconds: windowS,
      lineEverySeconds: lineEveryS,
    },
    windows: [off, on],
    added: {
      cpuSecondsPerSecond: on.cpuSecondsPerSecond - off.cpuSecondsPerSecond,
      apiRequestsPerSecond: on.apiRequestsPerSecond - off.apiRequestsPerSecond,
    },
    status: {
      withProgress: ages.length,
      of: list.items.length,
      lastUpdateAgeSeconds: ages.length === 0 ? undefined : { median: ages[Math.floor(ages.length / 2)], max: ages[ages.length - 1] },
    },
  };
  const out = path.join(resultDir(values.out), `progress-polling-${jobs}x${periodS}s-${budgetPerS}rps.json`);
  writeJson(out, result);
  process.stdout.write(`${JSON.stringify({ windows: result.windows, added: result.added, status: result.status }, null, 2)}\n`);
  log(`wrote ${out}`);
} finally {
  if (writer !== undefined) clearInterval(writer);
  await cluster.stop();
}
