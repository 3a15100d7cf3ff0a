// `node lab/cli/main.ts demo`: the README's main command. On an embedded local control plane it reproduces
// the KOD2 paper's experiment with compressed time: 3 fake nodes of 10 cpu / 32Gi, the operator,
// a training emulator, and ten TFJobs arriving 30 s apart; live progress per job, then the JCT table
// and the simulator's prediction for the same scenario and policy. Ctrl-C stops everything.
import { parseArgs } from 'node:util';
import { LocalCluster } from '../local-cluster/index.ts';
import { OPERATOR_POLICY_NAMES, type OperatorPolicyName } from '../../src/scheduler/index.ts';
import type { Operator } from '../../src/operator/manager.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import type { Dashboard } from '../../src/dashboard/index.ts';
import { namespacedKey } from '../../src/runtime/store.ts';
import { corePass } from '../simulator/core.ts';
import { runScenario } from '../simulator/run.ts';
import { HOST_LAG_WARNING_SHARE, runScenarioOnCluster, type ScenarioRunResult } from '../emulator/scenario-run.ts';
import type { EmulatedJob } from '../emulator/training-emulator.ts';
import { installCrds } from '../local-cluster/crd.ts';
import { loadScenario } from '../workloads/index.ts';
import { DASHBOARD_HELP, parseDashboardOptions, startDemoDashboard, type DemoDashboardOptions } from './demo-dashboard.ts';

const HELP = `usage: node lab/cli/main.ts demo [options]

Starts a local control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok),
the operator and a training emulator, submits a benchmark scenario's TFJobs with compressed time,
shows live progress and ends with the JCT table. Everything started is stopped on exit or Ctrl-C.

  --scenario NAME     scenario from scenarios/ (default kod2-paper-b32)
  --policy P          ours | kod2 | tf-operator (default ours)
  --time-scale N      scenario seconds per real second (default 30; higher is faster but less faithful)
  --compare           afterwards, run the same scenario in tf-operator compatible mode and compare
  --log-level L       operator log level, to demo-operator.log (default info)
  --real              instead: one real node and three real TensorFlow jobs (an elastic one shrinks
                      for a higher-priority one, then grows again); needs root; ~4 min, plus ~10 min
                      of builds the first time
${DASHBOARD_HELP}
`;

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      scenario: { type: 'string', default: 'kod2-paper-b32' },
      policy: { type: 'string', default: 'ours' },
      'time-scale': { type: 'string', default: '30' },
      compare: { type: 'boolean', default: false },
      'log-level': { type: 'string', default: 'info' },
      real: { type: 'boolean', default: false },
      dashboard: { type: 'boolean', default: true },
      'dashboard-port': { type: 'string', default: '0' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    allowNegative: true,
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const policy = OPERATOR_POLICY_NAMES.find((p) => p === values.policy);
  if (policy === undefined) {
    console.error(`--policy must be one of ${OPERATOR_POLICY_NAMES.join(', ')}`);
    return 2;
  }
  const dashboardOptions = parseDashboardOptions(values);
  if (typeof dashboardOptions === 'string') {
    console.error(dashboardOptions);
    return 2;
  }
  if (values.real) return runReal(dashboardOptions);
  const timeScale = Number(values['time-scale']);
  if (!Number.isFinite(timeScale) || timeScale <= 0) {
    console.error('--time-scale must be a positive number');
    return 2;
  }
  const scenario = loadScenario(values.scenario);
  const { createWriteStream } = await import('node:fs');
  const logFile = 'demo-operator.log';
  const logger = createLogger({ level: values['log-level'], destination: createWriteStream(logFile) });

  console.log(
    `Starting a local control plane for ${scenario.definition.name} (${scenario.cluster.nodeCount} nodes, ${scenario.jobs.length} jobs)...`,
  );
  const cluster = await LocalCluster.start({
    scheduler: true,
    onProgress: (line) => {
      if (!line.includes('cached in')) console.log(line);
    },
  });
  const abort = new AbortController();
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.log('\nInterrupted: stopping the operator and the local cluster...');
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let dashboard: Dashboard | undefined;
  try {
    await installCrds(cluster.kubeConfig());
    dashboard = await startDemoDashboard(cluster.kubeConfig(), logger, dashboardOptions);
    const runs: ScenarioRunResult[] = [];
    const policies: OperatorPolicyName[] = values.compare && policy !== 'tf-operator' ? [policy, 'tf-operator'] : [policy];
    for (const [i, p] of policies.entries()) {
      if (abort.signal.aborted) break;
      console.log(`\n== ${scenario.definition.name} with policy ${p}, time ×${timeScale} (operator log: ${logFile}) ==`);
      const display = new LiveDisplay(p);
      const result = await runScenarioOnCluster({
        cluster,
        scenario,
        policy: p,
        timeScale,
        namespace: `demo-${p}`,
        nodePrefix: `node${i === 0 ? '' : i}`,
        logger,
        signal: abort.signal,
        // Each run gets its own nodes; earlier runs' nodes are tainted away.
        dedicatedNodes: true,
        // The jobs print their accuracy and the operator reads it: the live table shows each phase.
        progress: true,
        onTick: (jobs, now, operator) => {
          display.render(jobs, now, operator);
        },
      });
      display.done();
      runs.push(result);
      printResult(result);
    }
    if (!abort.signal.aborted) printComparison(runs, scenario, timeScale);
  } finally {
    await dashboard?.stop();
    await cluster.stop();
  }
  return abort.signal.aborted ? 130 : 0;
}

async function runReal(dashboard: DemoDashboardOptions): Promise<number> {
  const abort = new AbortController();
  const onSignal = () => {
    console.log('\nInterrupted: stopping the operator, the real node and the local cluster...');
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return (await import('./demo-real.ts')).mainReal(abort.signal, 'demo-operator.log', dashboard);
}

class LiveDisplay {
  readonly #policy: string;
  readonly #tty = process.stdout.isTTY;
  #lines = 0;
  #lastPrint = 0;

  constructor(policy: string) {
    this.#policy = policy;
  }

  render(jobs: readonly EmulatedJob[], now: number, operator: Operator | undefined): void {
    const rows = jobs.map((j) => {
      const obj = operator?.caches.tfjobs.get(namespacedKey(operator.config.namespace[0] ?? '', j.name)) as
        | { status?: { scheduling?: { queue?: string; weight?: string; workersSummary?: string }; progress?: { phase?: string } } }
        | undefined;
      const s = obj?.status?.scheduling;
      const state =
        j.finished !== undefined ? 'Finished' : j.submitted === undefined ? '-' : (s?.queue ?? (j.rate > 0 ? 'Running' : 'Submitted'));
      const pct = `${Math.floor((j.done / j.workload.work) * 100)}%`;
      const placement = placementSummary(j);
      const phase = j.finished === undefined ? (obj?.status?.progress?.phase ?? '') : '';
      return `${j.name.padEnd(14)} ${j.workload.label.padEnd(16)} ${state.padEnd(9)} ${(s?.weight ?? '').padEnd(6)} ${(s?.workersSummary ?? '').padEnd(8)} ${pct.padStart(4)} ${phase.padEnd(11)} ${placement}`;
    });
    const header = `t=${Math.round(now)}s  policy=${this.#policy}\n${'job'.padEnd(14)} ${'model'.padEnd(16)} ${'queue'.padEnd(9)} ${'weight'.padEnd(6)} ${'workers'.padEnd(8)} prog ${'phase'.padEnd(11)} placement (ps@node, workers per node)`;
    const text = [header, ...rows].join('\n');
    if (this.#tty) {
      if (this.#lines > 0) process.stdout.write(`\x1b[${this.#lines}A\x1b[J`);
      process.stdout.write(`${text}\n`);
      this.#lines = text.split('\n').length;
    } else if (performance.now() - this.#lastPrint > 5_000) {
      this.#lastPrint = performance.now();
      console.log(text);
    }
  }

  done(): void {
    this.#lines = 0;
  }
}

function placementSummary(j: EmulatedJob): string {
  if (j.ps.length === 0 && j.workers.length === 0) return '';
  const perNode = new Map<string, number>();
  for (const n of j.workers) perNode.set(n, (perNode.get(n) ?? 0) + 1);
  const workers = [...perNode].map(([n, c]) => `${c}@${n}`).join(' ');
  return `ps@${j.ps.join(',') || '-'} w:${workers || '-'}`;
}

function fmt(seconds: number | null): string {
  return seconds === null ? '-' : `${Math.round(seconds)}s`;
}

function printResult(r: ScenarioRunResult): void {
  console.log(`\nJCT per job (${r.policy}; scenario seconds, time ×${r.timeScale}):`);
  console.log(`${'job'.padEnd(14)} ${'model'.padEnd(16)} ${'submitted'.padStart(9)} ${'waited'.padStart(7)} ${'JCT'.padStart(7)}`);
  for (const j of r.jobs)
    console.log(
      `${j.name.padEnd(14)} ${j.label.padEnd(16)} ${fmt(j.submitted).padStart(9)} ${fmt(j.waited).padStart(7)} ${fmt(j.jct).padStart(7)}`,
    );
  const u = Object.entries(r.summary.utilisation)
    .map(([k, v]) => `${k} ${(v * 100).toFixed(1)}%`)
    .join(', ');
  console.log(
    `mean JCT ${fmt(r.summary.jctMean)}, p95 ${fmt(r.summary.jctP95)}, makespan ${fmt(r.summary.makespan)}, unfinished ${r.summary.unfinished}, allocated ${u}; wall ${r.wallSeconds.toFixed(0)} s`,
  );
  const share = r.lag.shareOfJct;
  console.log(
    `host lag (not in the simulator's model): ${fmt(r.lag.finishMean)} per job from work done to Succeeded, ${fmt(r.lag.podStartMean)} per pod from bound to Running${share === null ? '' : `; ${(share * 100).toFixed(1)}% of the mean JCT`}`,
  );
  if (share !== null && share > HOST_LAG_WARNING_SHARE) {
    console.log(
      `WARNING: this host was too slow for time ×${r.timeScale}: its lag is ${(share * 100).toFixed(1)}% of the mean JCT (above ${HOST_LAG_WARNING_SHARE * 100}%), so the gap to the simulator below includes it. Rerun with a smaller --time-scale on a busy machine.`,
    );
  }
}

function printComparison(runs: readonly ScenarioRunResult[], scenario: ReturnType<typeof loadScenario>, timeScale: number): void {
  const simulated = runScenario(scenario, {
    policies: runs.map((r) => r.policy),
    passFor: (p) => corePass(p),
  });
  console.log(`\nReal control plane (time ×${timeScale}) vs the simulator's prediction:`);
  console.log(
    `${'policy'.padEnd(12)} ${'mean JCT'.padStart(9)} ${'simulated'.padStart(10)} ${'gap'.padStart(7)} ${'makespan'.padStart(9)} ${'simulated'.padStart(10)} ${'cpu alloc'.padStart(10)} ${'simulated'.padStart(10)}`,
  );
  for (const r of runs) {
    const sim = simulated.runs.find((s) => s.policy === r.policy)?.summary;
    const simJct = sim?.jct?.mean ?? null;
    const gap = r.summary.jctMean !== null && simJct !== null ? `${(((r.summary.jctMean - simJct) / simJct) * 100).toFixed(1)}%` : '-';
    const cpu = r.summary.utilisation.cpu;
    const simCpu = sim?.utilisation.allocated.cpu;
    console.log(
      `${r.policy.padEnd(12)} ${fmt(r.summary.jctMean).padStart(9)} ${fmt(simJct).padStart(10)} ${gap.padStart(7)} ${fmt(r.summary.makespan).padStart(9)} ${fmt(sim?.makespan ?? null).padStart(10)} ${(cpu === undefined ? '-' : `${(cpu * 100).toFixed(1)}%`).padStart(10)} ${(simCpu === undefined ? '-' : `${(simCpu * 100).toFixed(1)}%`).padStart(10)}`,
    );
  }
  const base = runs.find((r) => r.policy === 'tf-operator');
  for (const r of runs) {
    if (base === undefined || r === base || r.summary.jctMean === null || base.summary.jctMean === null) continue;
    console.log(
      `${r.policy}: mean JCT ${((1 - r.summary.jctMean / base.summary.jctMean) * 100).toFixed(1)}% lower than tf-operator compatible mode on the same cluster`,
    );
  }
}
