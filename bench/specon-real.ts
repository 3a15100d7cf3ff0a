// Benchmark (not a test), docs/vertical-real-results.md §c: SpeCon on two real nodes of this host
// (realnode-0 with 2 CPUs allocatable, realnode-1 with 1, the same 2 cores underneath), six real
// TensorFlow jobs (bench/lib/specon-mix.ts), `--vertical-policy specon` against `flowcon` (the same
// FlowCon limits, no moves). In both conditions the jobs land the same way: realnode-1 is cordoned
// while they are created and placed (all on realnode-0, contended), then uncordoned; only SpeCon puts
// anything there. Per condition and repetition a fresh namespace and the operator in-process; every
// 3 s each job's CPU limit, step rate, loss and pods on realnode-1; at the end its completion, its
// migrations (status.migration), the migration Events and the moved workers' restart lines.
//
//   node bench/specon-real.ts [--conditions flowcon,specon] [--repeats 1] [--out DIR] [--until HH:MM]
//
// --until: no repetition starts after that time (UTC); each repetition runs every condition.
//
// Writes specon-real.json, specon-real.md and one SVG per run into --out (default bench/results/<date>/).
import { createWriteStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { LocalCluster } from '../lab/local-cluster/index.ts';
import { installCrds } from '../lab/local-cluster/crd.ts';
import { REAL_NODE_LABEL, RealNode } from '../lab/local-cluster/real-node/index.ts';
import { loadConfig } from '../src/operator/config.ts';
import { Operator } from '../src/operator/manager.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { cliArgs, untilDeadline } from './lib/args.ts';
import { deleteNamespace, limitOf, loadAverage, prepareNamespace, rateOf } from './lib/real-node-runs.ts';
import { header, resultDir, writeJson, writeText } from './lib/results.ts';
import { parseSpeconConditions, podsOf, SPECON_MIX, speconOperatorFlags, speconTfJob, type SpeconCondition } from './lib/specon-mix.ts';
import {
  movesTable,
  podsOnNode,
  restartOf,
  speconSvg,
  type MoveEvent,
  type Restart,
  type SpeconRunRecord,
  type SpeconSample,
} from './lib/specon-report.ts';
import { completionTable } from './lib/vertical-report.ts';

const SAMPLE_MS = 3_000;
const RUN_TIMEOUT_MS = 12 * 60_000;

const { values } = parseArgs({
  args: cliArgs(),
  options: {
    conditions: { type: 'string', default: 'flowcon,specon' },
    repeats: { type: 'string', default: '1' },
    out: { type: 'string' },
    until: { type: 'string' },
  },
});

interface Nodes {
  readonly first: string;
  readonly second: string;
}

interface JobView {
  metadata: { name: string };
  status?: {
    conditions?: { type: string; status: string }[];
    completionTime?: string;
    progress?: { step?: number; latest?: string };
    verticalResize?: { list?: string };
    migration?: { migrations?: number };
  };
}

const group = { group: 'kubeflow.org', version: 'v1', plural: 'tfjobs' } as const;

async function setUnschedulable(core: CoreV1Api, node: string, unschedulable: boolean): Promise<void> {
  await core.patchNode({ name: node, body: { spec: { unschedulable } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
}

function startOperator(kc: KubeConfig, ns: string, condition: SpeconCondition, logDir: string): Operator {
  const flags = ['--namespace', ns, '--policy', 'ours', '--node-selector', `${REAL_NODE_LABEL}=true`, '--scheduling-interval', '1s'];
  const { config } = loadConfig({
    argv: [...flags, '--metrics-bind-address', '0', '--health-probe-bind-address', '0', ...speconOperatorFlags(condition)],
    env: {},
  });
  const logger = createLogger({ level: 'info', destination: createWriteStream(path.join(logDir, `operator-${ns}.log`)) });
  return new Operator(config, { kubeConfig: kc, logger });
}

/** Creates the jobs with the second node cordoned, waits until every pod is bound (to the first), then uncordons it. */
async function createJobsOnFirstNode(core: CoreV1Api, custom: CustomObjectsApi, ns: string, nodes: Nodes): Promise<void> {
  const expected = SPECON_MIX.reduce((n, j) => n + podsOf(j), 0);
  await setUnschedulable(core, nodes.second, true);
  try {
    for (const job of SPECON_MIX) await custom.createNamespacedCustomObject({ ...group, namespace: ns, body: speconTfJob(job) });
    for (let i = 0; i < 240; i++) {
      const pods = (await core.listNamespacedPod({ namespace: ns })).items;
      if (pods.length >= expected && pods.every((p) => (p.spec?.nodeName ?? '') !== '')) return;
      await sleep(500);
    }
    throw new Error(`${ns}: the ${expected} pods of the mix not all bound after 120 s`);
  } finally {
    await setUnschedulable(core, nodes.second, false);
  }
}

interface RunState {
  readonly t0: number;
  readonly completion: Record<string, number | null>;
  readonly history: Map<string, { t: number; step: number }[]>;
  readonly samples: SpeconSample[];
}

/** One sample of every job not yet finished; records completions; throws when a job Failed. */
function sampleJobs(state: RunState, jobs: readonly JobView[], pods: readonly V1Pod[], nodes: Nodes): void {
  const t = (Date.now() - state.t0) / 1000;
  const placed = pods.map((p) => ({ name: p.metadata?.name ?? '', node: p.spec?.nodeName }));
  for (const j of jobs) {
    const name = j.metadata.name;
    if (j.status?.conditions?.some((c) => c.type === 'Failed' && c.status === 'True')) throw new Error(`${name} failed`);
    const done = j.status?.conditions?.some((c) => c.type === 'Succeeded' && c.status === 'True');
    if (done && state.completion[name] === null) {
      const at = j.status?.completionTime === undefined ? Date.now() : Date.parse(j.status.completionTime);
      state.completion[name] = Math.max(0, (at - state.t0) / 1000);
    }
    if (done) continue;
    const step = j.status?.progress?.step;
    const h = state.history.get(name) ?? [];
    const rate = step === undefined ? undefined : rateOf(h, t, step);
    if (step !== undefined) state.history.set(name, [...h, { t, step }]);
    const latest = j.status?.progress?.latest;
    const limit = limitOf(pods.find((x) => x.metadata?.name === `${name}-worker-0`));
    state.samples.push({
      t,
      job: name,
      podsOnSecondNode: podsOnNode(placed, name, nodes.second),
      ...(limit === undefined ? {} : { cpuLimitMillis: limit }),
      ...(rate === undefined ? {} : { stepsPerSecond: rate }),
      ...(latest === undefined ? {} : { metric: Number(latest) }),
      ...(j.status?.verticalResize?.list === undefined ? {} : { list: j.status.verticalResize.list }),
    });
  }
}

/** The run's migration Events, each job's status.migration count, and each moved worker's restart line. */
async function collectMoves(core: CoreV1Api, jobs: readonly JobView[], ns: string, t0: number) {
  const events = (await core.listNamespacedEvent({ namespace: ns })).items;
  const moves: MoveEvent[] = events
    .filter((e) => e.involvedObject.kind === 'TFJob' && /Migrat/.test(e.reason ?? ''))
    .map((e) => {
      const at = Date.parse(String(e.eventTime ?? e.lastTimestamp ?? e.firstTimestamp ?? ''));
      return { t: (at - t0) / 1000, job: e.involvedObject.name ?? '', reason: e.reason ?? '', message: e.message ?? '' };
    })
    .sort((a, b) => a.t - b.t);
  const migrations = Object.fromEntries(jobs.map((j) => [j.metadata.name, j.status?.migration?.migrations ?? 0]));
  const restarts: Record<string, Restart> = {};
  for (const m of moves.filter((x) => x.reason === 'WorkerMigrated')) {
    const pod = m.message.split(' ')[0] ?? '';
    const log = await core.readNamespacedPodLog({ name: pod, namespace: ns, container: 'tensorflow', timestamps: true }).catch(() => '');
    const restart = restartOf(log, t0);
    if (restart !== undefined) restarts[pod] = restart;
  }
  return { moves, migrations, restarts };
}

async function runCondition(kc: KubeConfig, condition: SpeconCondition, repeat: number, nodes: Nodes, logDir: string) {
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const ns = `sr-${condition}-${repeat}`;
  await prepareNamespace(core, ns);
  const operator = startOperator(kc, ns, condition, logDir);
  await operator.start();
  const loads = [loadAverage()];
  const state: RunState = {
    t0: Date.now(),
    completion: Object.fromEntries(SPECON_MIX.map((j) => [j.name, null])),
    history: new Map(),
    samples: [],
  };
  try {
    await createJobsOnFirstNode(core, custom, ns, nodes);
    let jobs: JobView[] = [];
    while (Date.now() - state.t0 < RUN_TIMEOUT_MS) {
      jobs = ((await custom.listNamespacedCustomObject({ ...group, namespace: ns })) as { items: JobView[] }).items;
      sampleJobs(state, jobs, (await core.listNamespacedPod({ namespace: ns })).items, nodes);
      loads.push(loadAverage());
      if (Object.values(state.completion).every((v) => v !== null)) break;
      await sleep(SAMPLE_MS);
    }
    const run: SpeconRunRecord = {
      condition,
      repeat,
      startedAt: new Date(state.t0).toISOString(),
      loadAverage: { start: loads[0]!, mean: loads.reduce((a, b) => a + b, 0) / loads.length, end: loadAverage() },
      completion: state.completion,
      samples: state.samples,
      ...(await collectMoves(core, jobs, ns, state.t0)),
    };
    return run;
  } finally {
    await operator.stop();
    await deleteNamespace(core, ns);
  }
}

async function runAll(cluster: LocalCluster, nodes: Nodes, out: string, started: Date): Promise<SpeconRunRecord[]> {
  const conditions = parseSpeconConditions(values.conditions);
  const stopAt = untilDeadline(values.until);
  const runs: SpeconRunRecord[] = [];
  for (let repeat = 1; repeat <= Number(values.repeats); repeat++) {
    // Whole repetitions only (each condition as often as the others), in alternating order so a
    // load that drifts over the session does not always favour the same condition.
    if (stopAt !== undefined && Date.now() > stopAt) return runs;
    for (const condition of repeat % 2 === 1 ? conditions : [...conditions].reverse()) {
      const run = await runCondition(cluster.kubeConfig(), condition, repeat, nodes, out);
      runs.push(run);
      writeText(path.join(out, `specon-real-${condition}-${repeat}.svg`), speconSvg(run, nodes.second));
      writeJson(path.join(out, 'specon-real.json'), { ...header('specon-real/v1', started), nodes, jobs: SPECON_MIX, runs });
      const moved = Object.values(run.migrations).reduce((a, b) => a + b, 0);
      process.stderr.write(
        `[specon-real] ${condition} #${repeat}: ${JSON.stringify(run.completion)} moves ${moved} load ${run.loadAverage.mean.toFixed(2)}\n`,
      );
    }
  }
  return runs;
}

async function main(): Promise<number> {
  const conditions = parseSpeconConditions(values.conditions);
  const problem = RealNode.unavailable();
  if (problem !== undefined) {
    console.error(`needs a real node, and this host cannot run one: ${problem}`);
    return 1;
  }
  const out = resultDir(values.out);
  const started = new Date();
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  const cluster = await LocalCluster.start({ scheduler: true, onProgress: progress });
  const realNodes: RealNode[] = [];
  let runs: SpeconRunRecord[] = [];
  try {
    await installCrds(cluster.kubeConfig());
    realNodes.push(await RealNode.start({ kubeconfig: cluster.kubeconfigPath, onProgress: progress }));
    realNodes.push(await RealNode.start({ kubeconfig: cluster.kubeconfigPath, index: 1, reservedCpu: '1', onProgress: progress }));
    const nodes = { first: realNodes[0]!.nodeName, second: realNodes[1]!.nodeName };
    runs = await runAll(cluster, nodes, out, started);
  } finally {
    for (const node of realNodes.reverse()) for (const p of await node.stop()) console.error(`real node cleanup: ${p}`);
    await cluster.stop();
  }
  const ran = conditions.filter((c) => runs.some((r) => r.condition === c));
  const md = [`# specon-real (${started.toISOString()}, ${os.cpus().length} cpus)\n`, completionTable(runs, ran), movesTable(runs)].join(
    '\n',
  );
  writeText(path.join(out, 'specon-real.md'), md);
  process.stdout.write(md);
  return 0;
}

process.exitCode = await main();
