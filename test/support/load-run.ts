// A load run: N TFJobs (the fault workload's mix) submitted within a time window onto a pool of
// kwok nodes, the driver finishing each once it runs, the invariant monitor watching, and the
// operator's work-queue depth and RSS sampled from /metrics and /proc. Used by the CI-sized test
// (test/integration/faults/load.test.ts) and the full run (bench/soak-load.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { JobDriver, planWorkload, waitAllFinished } from './fault-workload.ts';
import { InvariantMonitor, type MonitorReport } from './invariants.ts';
import { withForensics } from './forensics.ts';
import type { OperatorChild } from './operator-child.ts';
import { sumOf } from './prometheus.ts';
import { httpStatus } from '../../src/runtime/http-status.ts';

export interface LoadReport {
  readonly jobs: number;
  readonly nodes: number;
  readonly submitSeconds: number;
  /** From the first create to every job finished. */
  readonly allTerminalSeconds: number;
  readonly unfinished: readonly string[];
  readonly succeeded: number;
  readonly peakQueueDepth: number;
  /** From every job terminal to an empty, idle work queue (cleanup and last status writes). */
  readonly drainSeconds: number;
  readonly finalQueueDepth: number;
  readonly finalUnfinishedWorkSeconds: number;
  readonly peakRssMiB: number;
  readonly finalRssMiB: number;
  readonly reconcileErrors: number;
  readonly violations: MonitorReport['violations'];
  readonly monitorGaps: number;
}

export async function runLoad(opts: {
  kc: KubeConfig;
  namespace: string;
  pool: { readonly name: string; readonly nodes: readonly string[] };
  operator: OperatorChild;
  jobs: number;
  submitWithinMs: number;
  seed: number;
  timeoutMs: number;
  /** How long the work queue may take to drain once every job is terminal (a stuck key never does). */
  drainTimeoutMs?: number;
  highClass?: string;
  /** The control plane's audit log (ClusterState.auditLog), to name the deleter of a vanished object. */
  auditLog?: string;
}): Promise<LoadReport> {
  const planned = planWorkload({
    seed: opts.seed,
    count: opts.jobs,
    pool: opts.pool.name,
    ...(opts.highClass === undefined ? {} : { highClass: opts.highClass }),
    namePrefix: 'load',
  }).map((p) => ({ ...p, runMs: Math.min(p.runMs, 3_000) }));
  const monitor = await InvariantMonitor.start({
    kubeConfig: opts.kc,
    namespace: opts.namespace,
    nodes: opts.pool.nodes,
    ...(opts.auditLog === undefined ? {} : { auditLog: opts.auditLog }),
  });
  let peakDepth = 0;
  let peakRss = 0;
  const sampling = { on: true };
  const sampler = (async () => {
    while (sampling.on) {
      try {
        peakDepth = Math.max(peakDepth, sumOf(await opts.operator.metrics(), 'workqueue_depth'));
      } catch {
        // a scrape during a hiccup
      }
      peakRss = Math.max(peakRss, opts.operator.rss() ?? 0);
      await sleep(1_000);
    }
  })();
  const driver = new JobDriver(opts.kc, opts.namespace, new Map(planned.map((p) => [p.job.metadata.name, p.runMs])));
  driver.start();

  // Submit at an even pace over the window, a few creates in flight at a time.
  const custom = opts.kc.makeApiClient(CustomObjectsApi);
  const started = Date.now();
  const gap = opts.submitWithinMs / opts.jobs;
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < planned.length; i = next++) {
        const due = started + i * gap;
        if (due > Date.now()) await sleep(due - Date.now());
        for (;;) {
          try {
            await custom.createNamespacedCustomObject({
              group: 'kubeflow.org',
              version: 'v1',
              plural: 'tfjobs',
              namespace: opts.namespace,
              body: planned[i]!.job,
            });
            break;
          } catch (err) {
            if (httpStatus(err) === 409) break;
            await sleep(500);
          }
        }
      }
    }),
  );
  const submitSeconds = (Date.now() - started) / 1000;
  const unfinished = await waitAllFinished(opts.kc, opts.namespace, { timeoutMs: opts.timeoutMs, expected: opts.jobs });
  const allTerminalSeconds = (Date.now() - started) / 1000;
  await driver.stop();
  // The queue drains what is left (cleanup of finished jobs, last status writes); a stuck key never
  // leaves it, and a key whose reconcile hangs keeps unfinished work above 0.
  const drainStarted = Date.now();
  let final = await opts.operator.metrics();
  while (Date.now() - drainStarted < (opts.drainTimeoutMs ?? 120_000)) {
    if (sumOf(final, 'workqueue_depth') === 0 && sumOf(final, 'workqueue_unfinished_work_seconds') === 0) break;
    await sleep(1_000);
    final = await opts.operator.metrics();
  }
  const drainSeconds = (Date.now() - drainStarted) / 1000;
  sampling.on = false;
  await sampler;
  const report = await monitor.finish({ orphanGraceMs: 120_000 });
  return {
    jobs: opts.jobs,
    nodes: opts.pool.nodes.length,
    submitSeconds: Math.round(submitSeconds),
    allTerminalSeconds: Math.round(allTerminalSeconds),
    unfinished,
    succeeded: report.jobs.succeeded,
    peakQueueDepth: peakDepth,
    drainSeconds: Math.round(drainSeconds),
    finalQueueDepth: sumOf(final, 'workqueue_depth'),
    finalUnfinishedWorkSeconds: sumOf(final, 'workqueue_unfinished_work_seconds'),
    peakRssMiB: Math.round(peakRss / 2 ** 20),
    finalRssMiB: Math.round((opts.operator.rss() ?? 0) / 2 ** 20),
    reconcileErrors: sumOf(final, 'controller_runtime_reconcile_errors_total'),
    violations: withForensics(report.violations, {
      namespace: opts.namespace,
      operators: [opts.operator],
      ...(opts.auditLog === undefined ? {} : { auditLog: opts.auditLog }),
    }),
    monitorGaps: report.gaps,
  };
}
