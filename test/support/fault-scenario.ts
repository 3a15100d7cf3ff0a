// The skeleton every fault scenario shares: a namespace and a dedicated pool, the invariant monitor
// from the start, a seeded workload with its driver, operator child processes with their memory
// sampled, and one report line with the figures (faults injected, jobs completed, violations).
import { appendFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SchedulingV1Api, type KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll } from 'vitest';
import { InvariantMonitor, MemorySampler, type MemorySummary, type MonitorReport } from './invariants.ts';
import { JobDriver, planWorkload, submitWorkload, waitAllFinished, type PlannedJob } from './fault-workload.ts';
import { withForensics } from './forensics.ts';
import { adminKubeConfig, clusterState, createNamespace, deleteNamespace, uniqueName } from './kube.ts';
import { OperatorChild } from './operator-child.ts';
import { createPool, type Pool } from './pool.ts';

export interface ScenarioReport {
  readonly scenario: string;
  readonly seed: number;
  readonly faults: Readonly<Record<string, number>>;
  readonly jobs: number;
  readonly succeeded: number;
  readonly violations: MonitorReport['violations'];
  readonly deletions: Readonly<Record<string, number>>;
  readonly monitorGaps: number;
  readonly memory: MemorySummary;
  readonly seconds: number;
}

/** One JSON line per scenario on stderr (and in FAULT_REPORT_FILE if set), for the closing figures. */
export function publish(report: ScenarioReport): void {
  const line = `[fault-report] ${JSON.stringify({ ...report, memory: { ...report.memory, maxMiB: Math.round(report.memory.maxBytes / 2 ** 20) } })}\n`;
  process.stderr.write(line);
  const file = process.env.FAULT_REPORT_FILE;
  if (file !== undefined && file !== '') appendFileSync(file, line);
}

export function scratchDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
}

export async function createPriorityClass(kc: KubeConfig, name: string, value: number): Promise<() => Promise<void>> {
  const api = kc.makeApiClient(SchedulingV1Api);
  await api.createPriorityClass({ body: { metadata: { name }, value, description: 'fault scenario' } });
  return async () => {
    await api.deletePriorityClass({ name }).catch(() => undefined);
  };
}

/** What a scenario on the shared cluster runs in; valid inside the tests of the suite that asked for it. */
export interface SharedClusterFixture {
  readonly namespace: string;
  readonly pool: Pool;
  /** A PriorityClass (`classValue`) the workload's high-priority jobs use. */
  readonly highClass: string;
  /** The suite's operator, when `operatorArgs` asked for one. */
  readonly operator: OperatorChild;
  /** A scenario in this namespace and pool; its operators are stopped after the suite. */
  scenario(opts: { name: string; seed: number; jobs: number }): Scenario;
}

export interface SharedClusterFixtureOptions {
  readonly nodes: number;
  /** Allocatable of each node (default 6 cpu / 24Gi). */
  readonly node?: { readonly cpu: string; readonly memory: string };
  /** Value of the high PriorityClass (default 1000). */
  readonly classValue?: number;
  /**
   * Start one operator for the suite (`--namespace`, `--policy ours` and the pool's flags added
   * around these), ready before the tests and killed after them.
   */
  readonly operatorArgs?: readonly string[];
}

/**
 * Registers the suite's set-up and clean-up: a namespace, a pool of kwok nodes, a high
 * PriorityClass and optionally an operator, on the shared cluster.
 */
export function useSharedClusterFixture(name: string, poolName: string, opts: SharedClusterFixtureOptions): SharedClusterFixture {
  let namespace: string | undefined;
  let pool: Pool | undefined;
  let operator: OperatorChild | undefined;
  let dropClass: () => Promise<void> = async () => undefined;
  const scenarios: Scenario[] = [];
  const highClass = uniqueName(`${name}-high`);
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error(`${name}: the fixture is used outside its suite's tests`);
    return value;
  };
  beforeAll(async () => {
    namespace = await createNamespace(name);
    pool = await createPool(poolName, opts.nodes, opts.node ?? { cpu: '6', memory: '24Gi' });
    dropClass = await createPriorityClass(adminKubeConfig(), highClass, opts.classValue ?? 1000);
    if (opts.operatorArgs !== undefined) {
      operator = await OperatorChild.start(name, clusterState().kubeconfig, [
        '--namespace',
        namespace,
        '--policy',
        'ours',
        ...opts.operatorArgs,
        ...pool.operatorFlags,
      ]);
      await operator.ready();
    }
  });
  afterAll(async () => {
    await operator?.kill();
    for (const s of scenarios) await s.stopOperators();
    if (namespace !== undefined) await deleteNamespace(namespace);
    await pool?.delete();
    await dropClass();
  });
  return {
    get namespace() {
      return ready(namespace);
    },
    get pool() {
      return ready(pool);
    },
    get operator() {
      return ready(operator);
    },
    highClass,
    scenario(opts) {
      const s = new Scenario({
        ...opts,
        namespace: ready(namespace),
        kc: adminKubeConfig(),
        pool: ready(pool),
        highClass,
        auditLog: clusterState().auditLog,
      });
      scenarios.push(s);
      return s;
    },
  };
}

/** Runs the common part of a scenario; `inject` performs the faults while the workload runs. */
export class Scenario {
  readonly name: string;
  readonly seed: number;
  readonly namespace: string;
  readonly kc: KubeConfig;
  readonly planned: PlannedJob[];
  readonly faults: Record<string, number> = {};
  readonly operators: OperatorChild[] = [];
  /** Jobs the test deleted on purpose (not expected to finish). */
  readonly deletedJobs = new Set<string>();
  readonly #pool: Pool;
  monitor!: InvariantMonitor;
  #driver!: JobDriver;
  #sampler!: MemorySampler;
  #submitted!: Promise<number>;
  #started = 0;

  readonly #auditLog: string | undefined;

  /** `auditLog`: the control plane's (ClusterState.auditLog), to name the deleter of a vanished object. */
  constructor(opts: {
    name: string;
    seed: number;
    namespace: string;
    kc: KubeConfig;
    pool: Pool;
    jobs: number;
    highClass?: string;
    auditLog?: string;
  }) {
    this.name = opts.name;
    this.#auditLog = opts.auditLog;
    this.seed = opts.seed;
    this.namespace = opts.namespace;
    this.kc = opts.kc;
    this.planned = planWorkload({
      seed: opts.seed,
      count: opts.jobs,
      pool: opts.pool.name,
      ...(opts.highClass === undefined ? {} : { highClass: opts.highClass }),
    });
    this.#pool = opts.pool;
  }

  count(fault: string, n = 1): void {
    this.faults[fault] = (this.faults[fault] ?? 0) + n;
  }

  /** Starts the monitor (before anything else happens), memory sampling, the driver and the submissions. */
  async start(opts: { gapMs?: readonly [number, number] } = {}): Promise<void> {
    this.#started = Date.now();
    this.monitor = await InvariantMonitor.start({
      kubeConfig: this.kc,
      namespace: this.namespace,
      nodes: this.#pool.nodes,
      ...(this.#auditLog === undefined ? {} : { auditLog: this.#auditLog }),
    });
    this.#sampler = new MemorySampler(() => this.operators.filter((o) => o.running).map((o) => o.pid));
    this.#driver = new JobDriver(this.kc, this.namespace, new Map(this.planned.map((p) => [p.job.metadata.name, p.runMs])));
    this.#driver.start();
    this.#submitted = submitWorkload(this.kc, this.namespace, this.planned, { seed: this.seed, gapMs: opts.gapMs ?? [200, 1_500] });
  }

  async submitted(): Promise<number> {
    return this.#submitted;
  }

  /** Waits for every job to finish, stops the driver, and judges the run. */
  async finish(opts: { timeoutMs?: number } = {}): Promise<ScenarioReport> {
    await this.#submitted;
    const unfinished = await waitAllFinished(this.kc, this.namespace, {
      timeoutMs: opts.timeoutMs ?? 240_000,
      expected: this.planned.length - this.deletedJobs.size,
    });
    await this.#driver.stop();
    const monitor = await this.monitor.finish();
    const memory = this.#sampler.stop();
    const report: ScenarioReport = {
      scenario: this.name,
      seed: this.seed,
      faults: this.faults,
      jobs: this.planned.length - this.deletedJobs.size,
      succeeded: monitor.jobs.succeeded,
      violations: withForensics(monitor.violations, {
        namespace: this.namespace,
        operators: this.operators,
        ...(this.#auditLog === undefined ? {} : { auditLog: this.#auditLog }),
      }),
      deletions: monitor.deletions.byReason,
      monitorGaps: monitor.gaps,
      memory,
      seconds: Math.round((Date.now() - this.#started) / 1000),
    };
    publish(report);
    if (unfinished.length > 0)
      process.stderr.write(
        `[${this.name}] unfinished jobs: ${unfinished.join(', ')}\n${this.operators.map((o) => o.tail(40)).join('\n')}\n`,
      );
    return report;
  }

  async stopOperators(): Promise<void> {
    for (const o of this.operators) await o.kill('SIGKILL');
  }
}
