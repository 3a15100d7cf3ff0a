// Benchmark (not a test), docs/benchmarks.md §1: the kod2-paper scenario on a real control plane, once per
// batch size and system, repeated:
//   (a) training-operator  Kubeflow training-operator v1.7.0 + kube-scheduler (the real tf-operator)
//   (b) tf-operator        this operator in tf-operator compatible mode (+ kube-scheduler)
//   (c) kod2               this operator, KOD2 paper's algorithms
//   (d) ours               this operator, default policy
// Every run gets a fresh LocalCluster (etcd, apiserver, controller-manager, kube-scheduler, kwok), the
// same kwok nodes, the same training emulator and compressed time; the system runs as its own
// process. The simulator's prediction for the same scenario and policy is computed alongside.
//
//   node bench/real-runs.ts [--batch-sizes 8,16,32,64,128] [--systems training-operator,tf-operator,kod2,ours]
//                           [--repeats 3] [--time-scale 60] [--out DIR] [--resume] [--operator-rev HEAD]
//
// Our operator runs from a snapshot of --operator-rev (default HEAD; `worktree` = the checkout as is).
// Writes <out>/real-runs.json (schema real-runs/v1; rewritten after every run, so --resume continues
// an interrupted series) and SVG charts; prints the table docs/benchmarks.md quotes.
import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { POOL_LABEL, runScenarioOnCluster, type ScenarioRunResult } from '../lab/emulator/scenario-run.ts';
import { LocalCluster } from '../lab/local-cluster/index.ts';
import { installCrd } from '../lab/local-cluster/crd.ts';
import { createLogger } from '../src/runtime/logger.ts';
import type { PolicyName } from '../src/scheduler/types.ts';
import { cdfPoints, lineChart, type Series } from '../lab/simulator/svg.ts';
import { loadScenario } from '../lab/workloads/index.ts';
import { cliArgs } from './lib/args.ts';
import { requestsByMethod } from './lib/prom.ts';
import { startOperatorProcess, startTrainingOperator, upstreamCrdFile, type SystemProcess } from './lib/processes.ts';
import { simulatorMain, snapshotSource, type SourceTree } from './lib/snapshot.ts';
import { header, resultDir, writeJson, writeText, type ResultHeader } from './lib/results.ts';
import { round, roundSpread, spread, type Spread } from './lib/stats.ts';

export const SYSTEMS = ['training-operator', 'tf-operator', 'kod2', 'ours'] as const;
type System = (typeof SYSTEMS)[number];
const SCHEMA = 'real-runs/v1';
const NAMESPACE = 'bench';
const NODE_PREFIX = 'node';

/** The simulator policy that predicts each system. */
const SIM_POLICY: Record<System, PolicyName> = {
  'training-operator': 'tf-operator',
  'tf-operator': 'tf-operator',
  kod2: 'kod2',
  ours: 'ours',
};

interface RunRecord {
  readonly batchSize: number;
  readonly system: System;
  readonly repeat: number;
  readonly timeScale: number;
  readonly startedAt: string;
  /** 1-minute load average when the run started (2 shared cores: other engineers' clusters too). */
  readonly loadAverage: number;
  /** Commit our operator ran from (`worktree` = the checkout), or `training-operator v1.7.0`. */
  readonly operatorRevision: string;
  readonly wallSeconds: number;
  readonly horizonSeconds: number;
  readonly summary: {
    readonly jctMean: number | null;
    readonly jctP95: number | null;
    readonly jctMeanInclUnfinished: number;
    readonly makespan: number | null;
    readonly unfinished: number;
    readonly utilisation: Readonly<Record<string, number>>;
  };
  readonly jobs: readonly {
    name: string;
    label: string;
    submitted: number | null;
    started: number | null;
    finished: number | null;
    jct: number | null;
  }[];
  /** The system's own API requests by verb over the run (its /metrics rest_client_requests_total). */
  readonly apiRequests: Readonly<Record<string, number>>;
  readonly deadComponents: readonly string[];
}

interface Prediction {
  readonly jctMean: number | null;
  readonly jctP95: number | null;
  readonly jctMeanInclUnfinished: number | null;
  readonly makespan: number | null;
  readonly unfinished: number;
  readonly utilisation: Readonly<Record<string, number>>;
}

interface Document extends ResultHeader {
  readonly params: {
    batchSizes: number[];
    systems: System[];
    repeats: number;
    timeScale: number;
    scenario: string;
    namespace: string;
    operatorRevision: string;
  };
  readonly simulator: Record<string, Record<string, Prediction & { horizonSeconds: number }>>;
  runs: RunRecord[];
  summary?: Record<string, Record<string, CellSummary>>;
}

interface CellSummary {
  readonly runs: number;
  readonly jctMean: Spread | null;
  readonly jctP95: Spread | null;
  readonly jctMeanInclUnfinished: Spread | null;
  readonly makespan: Spread | null;
  readonly unfinished: Spread | null;
  readonly cpu: Spread | null;
  readonly memory: Spread | null;
  readonly wallSeconds: Spread | null;
  /** Median of this system / median of training-operator (a); < 1 is better for JCT and makespan. */
  readonly vsTrainingOperator: {
    jctMean: number | null;
    jctP95: number | null;
    jctMeanInclUnfinished: number | null;
    makespan: number | null;
    cpu: number | null;
  } | null;
  readonly simulator: Prediction;
  /** (real median − simulated) / simulated mean JCT. */
  readonly simGapJctMean: number | null;
}

function parse() {
  const { values } = parseArgs({
    args: cliArgs(),
    options: {
      'batch-sizes': { type: 'string', default: '8,16,32,64,128' },
      systems: { type: 'string', default: SYSTEMS.join(',') },
      repeats: { type: 'string', default: '3' },
      'time-scale': { type: 'string', default: '60' },
      out: { type: 'string' },
      resume: { type: 'boolean', default: false },
      'operator-rev': { type: 'string', default: 'HEAD' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(
      'usage: node bench/real-runs.ts [--batch-sizes 8,16,32,64,128] [--systems training-operator,tf-operator,kod2,ours] [--repeats 3] [--time-scale 60] [--out DIR] [--resume] [--operator-rev HEAD|worktree|REV]',
    );
    process.exit(0);
  }
  const systems = values.systems.split(',').map((s) => s.trim());
  for (const s of systems)
    if (!(SYSTEMS as readonly string[]).includes(s)) throw new Error(`unknown system ${s}; one of ${SYSTEMS.join(', ')}`);
  return {
    batchSizes: values['batch-sizes'].split(',').map(Number),
    systems: systems as System[],
    repeats: Number(values.repeats),
    timeScale: Number(values['time-scale']),
    out: values.out,
    resume: values.resume,
    operatorRev: values['operator-rev'],
  };
}

/** The simulator's figures for the same scenario, from the same source revision as the operator. */
function predict(batchSize: number, source: SourceTree): Record<string, Prediction & { horizonSeconds: number }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tfjob-sim-'));
  const file = path.join(dir, 'sim.json');
  execFileSync(
    process.execPath,
    [simulatorMain(source.root), 'simulate', '--scenario', `kod2-paper-b${batchSize}`, '--policy', 'all', '--json', file],
    { cwd: source.root, stdio: 'ignore' },
  );
  const docs = JSON.parse(readFileSync(file, 'utf8')) as SimDocument[];
  rmSync(dir, { recursive: true, force: true });
  const out: Record<string, Prediction & { horizonSeconds: number }> = {};
  for (const d of docs) {
    const s = d.summary;
    out[d.policy] = {
      jctMean: s.jct?.mean ?? null,
      jctP95: s.jct?.p95 ?? null,
      jctMeanInclUnfinished: s.jctInclUnfinished?.mean ?? null,
      makespan: s.makespan,
      unfinished: s.unfinished,
      utilisation: { cpu: s.utilisation.allocated.cpu ?? 0, memory: s.utilisation.allocated.memory ?? 0 },
      horizonSeconds: d.params.horizonSeconds,
    };
  }
  return out;
}

/** The part of the simulator's JSON (schema simulation/v1) read here. */
interface SimDocument {
  readonly policy: string;
  readonly params: { readonly horizonSeconds: number };
  readonly summary: {
    readonly jct: { readonly mean: number; readonly p95: number } | null;
    readonly jctInclUnfinished: { readonly mean: number } | null;
    readonly makespan: number | null;
    readonly unfinished: number;
    readonly utilisation: { readonly allocated: Readonly<Record<string, number>> };
  };
}

async function oneRun(
  batchSize: number,
  system: System,
  repeat: number,
  timeScale: number,
  horizonSeconds: number,
  logDir: string,
  source: SourceTree,
): Promise<RunRecord> {
  const scenario = loadScenario(`kod2-paper-b${batchSize}`);
  const startedAt = new Date();
  const loadAverage = round(os.loadavg()[0] ?? 0, 2);
  const tag = `b${batchSize}-${system}-r${repeat}`;
  const logger = createLogger({ level: 'warn', destination: createWriteStream(path.join(logDir, `${tag}-emulator.log`)) });
  const cluster = await LocalCluster.start({ scheduler: true, onProgress: () => undefined });
  let proc: SystemProcess | undefined;
  try {
    const kc = cluster.kubeConfig();
    if (system === 'training-operator') {
      // Same CRD name as ours: the real training-operator gets its own upstream CRD on its own cluster.
      await installCrd(kc, upstreamCrdFile());
      proc = await startTrainingOperator({
        kubeconfig: cluster.kubeconfigPath,
        logFile: path.join(logDir, `${tag}-training-operator.log`),
      });
    } else {
      await installCrd(kc);
      proc = await startOperatorProcess({
        kubeconfig: cluster.kubeconfigPath,
        logFile: path.join(logDir, `${tag}-operator.log`),
        root: source.root,
        args: [
          '--namespace',
          NAMESPACE,
          '--policy',
          system,
          '--time-scale',
          String(timeScale),
          '--node-selector',
          `${POOL_LABEL}=${NODE_PREFIX}`,
        ],
      });
    }
    const before = requestsByMethod(await proc.metrics());
    const result: ScenarioRunResult = await runScenarioOnCluster({
      cluster,
      scenario,
      policy: system === 'training-operator' ? 'tf-operator' : system,
      timeScale,
      namespace: NAMESPACE,
      nodePrefix: NODE_PREFIX,
      inProcessOperator: false,
      logger,
      horizonSeconds,
    });
    const after = requestsByMethod(await proc.metrics());
    const apiRequests: Record<string, number> = {};
    for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0) > 0) apiRequests[k] = v - (before[k] ?? 0);
    const inclUnfinished = result.jobs.map((j) => j.jct ?? horizonSeconds - (j.submitted ?? 0));
    return {
      batchSize,
      system,
      repeat,
      timeScale,
      startedAt: startedAt.toISOString(),
      loadAverage,
      operatorRevision: system === 'training-operator' ? 'training-operator v1.7.0' : source.revision,
      wallSeconds: round(result.wallSeconds, 1),
      horizonSeconds,
      summary: {
        jctMean: result.summary.jctMean === null ? null : round(result.summary.jctMean, 1),
        jctP95: result.summary.jctP95 === null ? null : round(result.summary.jctP95, 1),
        jctMeanInclUnfinished: round(inclUnfinished.reduce((a, b) => a + b, 0) / Math.max(1, inclUnfinished.length), 1),
        makespan: result.summary.makespan === null ? null : round(result.summary.makespan, 1),
        unfinished: result.summary.unfinished,
        utilisation: Object.fromEntries(Object.entries(result.summary.utilisation).map(([k, v]) => [k, round(v, 4)])),
      },
      jobs: result.jobs.map((j) => ({
        name: j.name,
        label: j.label,
        submitted: j.submitted === null ? null : round(j.submitted, 1),
        started: j.started === null ? null : round(j.started, 1),
        finished: j.finished === null ? null : round(j.finished, 1),
        jct: j.jct === null ? null : round(j.jct, 1),
      })),
      apiRequests,
      deadComponents: cluster.deadComponents(),
    };
  } finally {
    await proc?.stop();
    await cluster.stop();
  }
}

function median(s: Spread | null): number | null {
  return s === null ? null : s.median;
}

function ratio(a: number | null, b: number | null): number | null {
  return a === null || b === null || b === 0 ? null : round(a / b, 3);
}

function summarise(doc: Document): Record<string, Record<string, CellSummary>> {
  const out: Record<string, Record<string, CellSummary>> = {};
  for (const b of doc.params.batchSizes) {
    const row: Record<string, CellSummary> = {};
    const cells = new Map<System, RunRecord[]>();
    for (const s of doc.params.systems)
      cells.set(
        s,
        doc.runs.filter((r) => r.batchSize === b && r.system === s),
      );
    const vals = (runs: readonly RunRecord[], f: (r: RunRecord) => number | null) =>
      runs.flatMap((r) => {
        const v = f(r);
        return v === null ? [] : [v];
      });
    const spreads = (runs: readonly RunRecord[]) => ({
      jctMean: roundSpread(spread(vals(runs, (r) => r.summary.jctMean)), 1),
      jctP95: roundSpread(spread(vals(runs, (r) => r.summary.jctP95)), 1),
      jctMeanInclUnfinished: roundSpread(spread(vals(runs, (r) => r.summary.jctMeanInclUnfinished)), 1),
      makespan: roundSpread(spread(vals(runs, (r) => r.summary.makespan)), 1),
      unfinished: roundSpread(spread(vals(runs, (r) => r.summary.unfinished)), 2),
      cpu: roundSpread(spread(vals(runs, (r) => r.summary.utilisation.cpu ?? null)), 4),
      memory: roundSpread(spread(vals(runs, (r) => r.summary.utilisation.memory ?? null)), 4),
      wallSeconds: roundSpread(spread(vals(runs, (r) => r.wallSeconds)), 1),
    });
    const base = spreads(cells.get('training-operator') ?? []);
    for (const s of doc.params.systems) {
      const runs = cells.get(s) ?? [];
      if (runs.length === 0) continue;
      const sp = spreads(runs);
      const sim = doc.simulator[String(b)]?.[SIM_POLICY[s]];
      const simulator: Prediction = sim ?? {
        jctMean: null,
        jctP95: null,
        jctMeanInclUnfinished: null,
        makespan: null,
        unfinished: 0,
        utilisation: {},
      };
      row[s] = {
        runs: runs.length,
        ...sp,
        vsTrainingOperator:
          (cells.get('training-operator') ?? []).length === 0
            ? null
            : {
                jctMean: ratio(median(sp.jctMean), median(base.jctMean)),
                jctP95: ratio(median(sp.jctP95), median(base.jctP95)),
                jctMeanInclUnfinished: ratio(median(sp.jctMeanInclUnfinished), median(base.jctMeanInclUnfinished)),
                makespan: ratio(median(sp.makespan), median(base.makespan)),
                cpu: ratio(median(sp.cpu), median(base.cpu)),
              },
        simulator,
        simGapJctMean:
          median(sp.jctMean) === null || simulator.jctMean === null
            ? null
            : round((median(sp.jctMean)! - simulator.jctMean) / simulator.jctMean, 4),
      };
    }
    out[String(b)] = row;
  }
  return out;
}

function fmtS(v: number | null | undefined): string {
  return v === null || v === undefined ? '-' : `${Math.round(v)}`;
}

function fmtSpread(s: Spread | null, pct = false): string {
  if (s === null) return '-';
  const f = (v: number) => (pct ? (v * 100).toFixed(1) : `${Math.round(v)}`);
  return `${f(s.median)} [${f(s.min)}–${f(s.max)}]`;
}

function printTable(doc: Document): void {
  const summary = doc.summary ?? {};
  console.log(
    `\nkod2-paper on a real control plane, time ×${doc.params.timeScale}; medians [min–max] over repeats; sim = simulator's prediction`,
  );
  console.log(
    [
      'batch',
      'system',
      'n',
      'mean JCT s',
      'sim',
      'p95 JCT s',
      'sim',
      'makespan s',
      'sim',
      'cpu %',
      'sim',
      'unfin',
      'sim',
      'JCT/(a)',
      'cv(JCT)',
    ].join(' | '),
  );
  for (const [b, row] of Object.entries(summary)) {
    for (const [s, c] of Object.entries(row)) {
      console.log(
        [
          b,
          s,
          c.runs,
          fmtSpread(c.jctMean),
          fmtS(c.simulator.jctMean),
          fmtSpread(c.jctP95),
          fmtS(c.simulator.jctP95),
          fmtSpread(c.makespan),
          fmtS(c.simulator.makespan),
          fmtSpread(c.cpu, true),
          c.simulator.utilisation.cpu === undefined ? '-' : (c.simulator.utilisation.cpu * 100).toFixed(1),
          fmtSpread(c.unfinished, false),
          c.simulator.unfinished,
          c.vsTrainingOperator?.jctMean ?? '-',
          c.jctMean === null ? '-' : `${(c.jctMean.cv * 100).toFixed(1)}%`,
        ].join(' | '),
      );
    }
  }
}

function charts(doc: Document, dir: string): string[] {
  const files: string[] = [];
  const summary = doc.summary ?? {};
  const series: Series[] = [];
  doc.params.systems.forEach((s, i) => {
    series.push({
      name: `${s} (real, median)`,
      colorIndex: i,
      points: doc.params.batchSizes.flatMap((b) => {
        const v = summary[String(b)]?.[s]?.jctMeanInclUnfinished?.median;
        return v === undefined ? [] : [[b, v] as const];
      }),
    });
    if (s !== 'tf-operator') {
      series.push({
        name: `${SIM_POLICY[s]} (simulated)`,
        colorIndex: i,
        dashed: true,
        points: doc.params.batchSizes.flatMap((b) => {
          const v = doc.simulator[String(b)]?.[SIM_POLICY[s]]?.jctMeanInclUnfinished;
          return v === undefined || v === null ? [] : [[b, v] as const];
        }),
      });
    }
  });
  const f = path.join(dir, 'real-jct-by-batch.svg');
  writeText(
    f,
    lineChart({
      title: `kod2-paper, real control plane ×${doc.params.timeScale}: mean JCT (incl. unfinished)`,
      xLabel: 'batch size',
      yLabel: 'mean JCT (scenario s)',
      series,
    }),
  );
  files.push(f);
  for (const b of doc.params.batchSizes) {
    const cdf: Series[] = doc.params.systems
      .map((s, i) => ({
        name: s,
        colorIndex: i,
        points: cdfPoints(
          doc.runs
            .filter((r) => r.batchSize === b && r.system === s)
            .flatMap((r) => r.jobs.map((j) => j.jct ?? r.horizonSeconds - (j.submitted ?? 0))),
        ),
      }))
      .filter((s) => s.points.length > 0);
    if (cdf.length === 0) continue;
    const file = path.join(dir, `real-jct-cdf-b${b}.svg`);
    writeText(
      file,
      lineChart({
        title: `kod2-paper-b${b}, real ×${doc.params.timeScale}: JCT CDF (all repeats; unfinished at horizon)`,
        xLabel: 'JCT (scenario s)',
        yLabel: 'share of jobs',
        series: cdf,
        yMax: 1,
      }),
    );
    files.push(file);
  }
  return files;
}

async function main(): Promise<void> {
  const opts = parse();
  const dir = resultDir(opts.out);
  const file = path.join(dir, 'real-runs.json');
  const startedAt = new Date();
  const source = snapshotSource(opts.operatorRev);
  const simulator: Document['simulator'] = {};
  for (const b of opts.batchSizes) simulator[String(b)] = predict(b, source);
  let runs: RunRecord[] = [];
  if (opts.resume && existsSync(file)) {
    const old = JSON.parse(readFileSync(file, 'utf8')) as Document;
    if (old.params.operatorRevision !== source.revision)
      console.log(`warning: earlier runs used operator revision ${old.params.operatorRevision}, now ${source.revision}`);
    runs = old.runs.filter(
      (r) => r.timeScale === opts.timeScale && opts.batchSizes.includes(r.batchSize) && opts.systems.includes(r.system),
    );
    console.log(`resuming: ${runs.length} runs kept from ${file}`);
  }
  const doc: Document = {
    ...header(SCHEMA, startedAt),
    params: {
      batchSizes: opts.batchSizes,
      systems: opts.systems,
      repeats: opts.repeats,
      timeScale: opts.timeScale,
      scenario: 'kod2-paper-b<batchSize>',
      namespace: NAMESPACE,
      operatorRevision: source.revision,
    },
    simulator,
    runs,
  };
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'tfjob-bench-real-'));
  console.log(`logs in ${logDir}`);
  let failures = 0;
  // Repeats outermost and systems innermost: a slow patch of machine load spreads over every system.
  for (let repeat = 1; repeat <= opts.repeats; repeat++) {
    for (const b of opts.batchSizes) {
      for (const s of opts.systems) {
        if (doc.runs.some((r) => r.batchSize === b && r.system === s && r.repeat === repeat)) continue;
        const horizon = simulator[String(b)]?.[SIM_POLICY[s]]?.horizonSeconds ?? 0;
        const t0 = performance.now();
        process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] b${b} ${s} repeat ${repeat} ... `);
        try {
          const run = await oneRun(b, s, repeat, opts.timeScale, horizon, logDir, source);
          doc.runs.push(run);
          console.log(
            `mean JCT ${fmtS(run.summary.jctMean)} s, p95 ${fmtS(run.summary.jctP95)} s, makespan ${fmtS(run.summary.makespan)} s, unfinished ${run.summary.unfinished}, cpu ${((run.summary.utilisation.cpu ?? 0) * 100).toFixed(1)}% (${((performance.now() - t0) / 1000).toFixed(0)} s wall)${run.deadComponents.length > 0 ? ` DEAD: ${run.deadComponents.join(', ')}` : ''}`,
          );
        } catch (err) {
          failures++;
          console.log(`FAILED: ${(err as Error).message.split('\n')[0] ?? ''}`);
        }
        doc.summary = summarise(doc);
        writeJson(file, { ...doc, finishedAt: new Date().toISOString() });
      }
    }
  }
  doc.summary = summarise(doc);
  writeJson(file, { ...doc, finishedAt: new Date().toISOString() });
  const svgs = charts(doc, dir);
  printTable(doc);
  console.log(`\nwrote ${file} and ${svgs.length} charts`);
  source.remove();
  if (failures === 0) rmSync(logDir, { recursive: true, force: true });
  else console.log(`${failures} runs failed; logs kept in ${logDir}`);
  process.exitCode = failures === 0 ? 0 : 1;
}

await main();
