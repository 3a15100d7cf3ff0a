// Benchmark (not a test), docs/vertical-real-results.md: the vertical rules on the real node, with
// real TensorFlow jobs started together, as the FlowCon and DQoES papers measured them. One local
// control plane and one real node (2 cores) for the whole run; per condition and repetition a fresh
// namespace, the operator in-process with that condition's flags, the jobs created at once, a sample
// of each job every few seconds (CPU limit the kubelet reports, step rate, metric, QoE class) until
// all have finished; then the next.
//
//   node bench/vertical-real.ts [--conditions na,static,flowcon] [--mix flowcon|qoe] [--repeats 1]
//                               [--out DIR] [--qoe-targets mlp-behind=450,...] [--until HH:MM]
//
// Conditions: na (no allocation: --vertical-policy none, each template CPU limit = the node's CPU),
// static (none, limit = node CPU / jobs), flowcon (flowcon, limit = node CPU), flowcon-used (the same
// with --flowcon-cpu used: growth per CPU-second the kubelet measured), qoe-static (none,
// limit = node CPU / jobs, step-rate targets) and dqoes (dqoes, the same). Writes vertical-real.json,
// vertical-real.md and one SVG per run into --out (default bench/results/<date>/).
import { createWriteStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { LocalCluster } from '../lab/local-cluster/index.ts';
import { installCrds } from '../lab/local-cluster/crd.ts';
import { REAL_NODE_LABEL, RealNode, trainerReplicaSpec } from '../lab/local-cluster/real-node/index.ts';
import { loadConfig } from '../src/operator/config.ts';
import { Operator } from '../src/operator/manager.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { cliArgs, untilDeadline } from './lib/args.ts';
import { deleteNamespace, limitOf, loadAverage, prepareNamespace, rateOf } from './lib/real-node-runs.ts';
import { header, resultDir, writeJson, writeText } from './lib/results.ts';
import { completionTable, qoeTable, runSvg, type JobSample, type RunRecord } from './lib/vertical-report.ts';

const CONDITIONS = ['na', 'static', 'flowcon', 'flowcon-used', 'qoe-static', 'dqoes'] as const;
type Condition = (typeof CONDITIONS)[number];
const NODE_CPU_MILLIS = 2000;
const SAMPLE_MS = 3_000;
const RUN_TIMEOUT_MS = 9 * 60_000;

/** One job of the mix: a trainer of python/examples/ and its env (its model and length). */
interface MixJob {
  readonly name: string;
  readonly script: string;
  readonly env: Readonly<Record<string, string>>;
}

// Two models: Keras 3 MLP classifiers of different lengths and learning rates (their validation loss
// flattens after an epoch at 0.02, still falls at the end at 0.0002) and a tf.compat.v1 linear
// regression (its loss is at float noise after a second). The QoE mix has short epochs: the operator's step rate needs frequent progress lines.
const MIXES: Readonly<Record<string, readonly MixJob[]>> = {
  flowcon: [
    { name: 'mlp-fast', script: 'keras_fit.py', env: { EPOCHS: '8', STEPS_PER_EPOCH: '2500', LEARNING_RATE: '0.02', MONITOR: 'val_loss' } },
    {
      name: 'mlp-mid',
      script: 'keras_fit.py',
      env: { EPOCHS: '14', STEPS_PER_EPOCH: '2500', LEARNING_RATE: '0.002', MONITOR: 'val_loss' },
    },
    {
      name: 'mlp-slow',
      script: 'keras_fit.py',
      env: { EPOCHS: '20', STEPS_PER_EPOCH: '2500', LEARNING_RATE: '0.0002', MONITOR: 'val_loss' },
    },
    { name: 'linreg', script: 'ps_v1.py', env: { STEPS: '150000', STEP_SLEEP: '0', PROGRESS_EVERY: '2000' } },
  ],
  qoe: [
    { name: 'mlp-behind', script: 'keras_fit.py', env: { EPOCHS: '20', STEPS_PER_EPOCH: '625' } },
    { name: 'mlp-ahead', script: 'keras_fit.py', env: { EPOCHS: '30', STEPS_PER_EPOCH: '625' } },
    { name: 'linreg', script: 'ps_v1.py', env: { STEPS: '90000', STEP_SLEEP: '0', PROGRESS_EVERY: '500' } },
  ],
};

const { values } = parseArgs({
  args: cliArgs(),
  options: {
    conditions: { type: 'string', default: 'na,static,flowcon' },
    mix: { type: 'string', default: 'flowcon' },
    repeats: { type: 'string', default: '1' },
    out: { type: 'string' },
    'qoe-targets': { type: 'string', default: '' },
    until: { type: 'string' },
  },
});

const MIX: readonly MixJob[] = (() => {
  const mix = MIXES[values.mix];
  if (mix === undefined) throw new Error(`--mix: ${values.mix} is not one of ${Object.keys(MIXES).join(', ')}`);
  return mix;
})();

function parseConditions(list: string): Condition[] {
  return list.split(',').map((c) => {
    if (!(CONDITIONS as readonly string[]).includes(c)) throw new Error(`--conditions: ${c} is not one of ${CONDITIONS.join(', ')}`);
    return c as Condition;
  });
}

function parseTargets(list: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of list.split(',').filter((p) => p !== '')) {
    const [job, rate] = part.split('=');
    const v = Number(rate);
    if (job === undefined || !MIX.some((j) => j.name === job) || !(v > 0)) throw new Error(`--qoe-targets: bad entry ${part}`);
    out.set(job, v);
  }
  return out;
}

function operatorFlags(condition: Condition): string[] {
  const policy = condition.startsWith('flowcon') ? 'flowcon' : condition === 'dqoes' ? 'dqoes' : 'none';
  const cpu = condition === 'flowcon-used' ? ['--flowcon-cpu', 'used'] : [];
  return ['--vertical-policy', policy, ...cpu, '--vertical-interval', '20s', '--progress-period', '2s', '--qoe-rate-window', '30s'];
}

function templateLimitMillis(condition: Condition): number {
  return condition === 'na' || condition.startsWith('flowcon') ? NODE_CPU_MILLIS : Math.floor(NODE_CPU_MILLIS / MIX.length);
}

function tfjob(job: MixJob, condition: Condition, targets: ReadonlyMap<string, number>): Record<string, unknown> {
  const target = targets.get(job.name);
  const qoe = (condition === 'qoe-static' || condition === 'dqoes') && target !== undefined ? { qoe: { stepsPerSecond: target } } : {};
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name: job.name },
    spec: {
      runPolicy: { cleanPodPolicy: 'Running' },
      ...qoe,
      tfReplicaSpecs: {
        Worker: trainerReplicaSpec({
          replicas: 1,
          cpu: '250m',
          cpuLimit: `${templateLimitMillis(condition)}m`,
          memory: '700Mi',
          script: job.script,
          env: job.env,
        }),
      },
    },
  };
}

interface TFJobView {
  metadata: { name: string };
  status?: {
    conditions?: { type: string; status: string }[];
    completionTime?: string;
    progress?: { step?: number; latest?: string; metricName?: string };
    qoe?: { class?: string };
    verticalResize?: { list?: string };
  };
}

async function runCondition(kc: KubeConfig, condition: Condition, repeat: number, targets: ReadonlyMap<string, number>, logDir: string) {
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const ns = `vr-${condition}-${repeat}`;
  await prepareNamespace(core, ns);
  const { config } = loadConfig({
    argv: [
      '--namespace',
      ns,
      '--policy',
      'ours',
      '--node-selector',
      `${REAL_NODE_LABEL}=true`,
      '--scheduling-interval',
      '1s',
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      '0',
      ...operatorFlags(condition),
    ],
    env: {},
  });
  const logger = createLogger({ level: 'info', destination: createWriteStream(path.join(logDir, `operator-${ns}.log`)) });
  const operator = new Operator(config, { kubeConfig: kc, logger });
  await operator.start();
  const loadStart = loadAverage();
  const loads: number[] = [loadStart];
  const t0 = Date.now();
  const startedAt = new Date(t0).toISOString();
  try {
    for (const job of MIX) {
      await custom.createNamespacedCustomObject({
        group: 'kubeflow.org',
        version: 'v1',
        plural: 'tfjobs',
        namespace: ns,
        body: tfjob(job, condition, targets),
      });
    }
    const samples: JobSample[] = [];
    const completion: Record<string, number | null> = Object.fromEntries(MIX.map((j) => [j.name, null]));
    const history = new Map<string, { t: number; step: number }[]>();
    let metricName = 'metric';
    while (Date.now() - t0 < RUN_TIMEOUT_MS) {
      const t = (Date.now() - t0) / 1000;
      const jobs = (await custom.listNamespacedCustomObject({ group: 'kubeflow.org', version: 'v1', plural: 'tfjobs', namespace: ns })) as {
        items: TFJobView[];
      };
      const pods = (await core.listNamespacedPod({ namespace: ns })).items;
      loads.push(loadAverage());
      for (const j of jobs.items) {
        const name = j.metadata.name;
        const done = j.status?.conditions?.some((c) => c.type === 'Succeeded' && c.status === 'True');
        if (done && completion[name] === null) {
          const at = j.status?.completionTime === undefined ? Date.now() : Date.parse(j.status.completionTime);
          completion[name] = Math.max(0, (at - t0) / 1000);
        }
        if (done) continue;
        const p = j.status?.progress;
        const step = p?.step;
        const h = history.get(name) ?? [];
        const rate = step === undefined ? undefined : rateOf(h, t, step);
        if (step !== undefined) history.set(name, [...h, { t, step }]);
        if (p?.metricName !== undefined && name !== 'linreg') metricName = p.metricName;
        const pod = pods.find((x) => x.metadata?.name === `${name}-worker-0`);
        const metric = p?.latest === undefined ? undefined : Number(p.latest);
        samples.push({
          t,
          job: name,
          ...(limitOf(pod) === undefined ? {} : { cpuLimitMillis: limitOf(pod) }),
          ...(rate === undefined ? {} : { stepsPerSecond: rate }),
          ...(metric === undefined ? {} : { metric }),
          ...(j.status?.qoe?.class === undefined ? {} : { qoeClass: j.status.qoe.class }),
          ...(j.status?.verticalResize?.list === undefined ? {} : { list: j.status.verticalResize.list }),
        });
      }
      const failed = jobs.items.find((j) => j.status?.conditions?.some((c) => c.type === 'Failed' && c.status === 'True'));
      if (failed !== undefined) throw new Error(`${ns}/${failed.metadata.name} failed`);
      if (Object.values(completion).every((v) => v !== null)) break;
      await sleep(SAMPLE_MS);
    }
    const run: RunRecord = {
      condition,
      repeat,
      startedAt,
      loadAverage: { start: loadStart, mean: loads.reduce((a, b) => a + b, 0) / loads.length, end: loadAverage() },
      completion,
      samples,
    };
    return { run, metricName };
  } finally {
    await operator.stop();
    await deleteNamespace(core, ns);
  }
}

async function main(): Promise<number> {
  const conditions = parseConditions(values.conditions);
  const repeats = Number(values.repeats);
  const targets = parseTargets(values['qoe-targets']);
  if (conditions.some((c) => c === 'dqoes' || c === 'qoe-static') && targets.size === 0)
    throw new Error('qoe conditions need --qoe-targets');
  const stopAt = untilDeadline(values.until);
  const problem = RealNode.unavailable();
  if (problem !== undefined) {
    console.error(`needs a real node, and this host cannot run one: ${problem}`);
    return 1;
  }
  const out = resultDir(values.out);
  const started = new Date();
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  const cluster = await LocalCluster.start({ scheduler: true, onProgress: progress });
  let node: RealNode | undefined;
  const runs: RunRecord[] = [];
  try {
    await installCrds(cluster.kubeConfig());
    node = await RealNode.start({ kubeconfig: cluster.kubeconfigPath, onProgress: progress });
    for (let repeat = 1; repeat <= repeats; repeat++) {
      for (const condition of conditions) {
        if (stopAt !== undefined && Date.now() > stopAt) break;
        const { run, metricName } = await runCondition(cluster.kubeConfig(), condition, repeat, targets, out);
        runs.push(run);
        writeText(path.join(out, `vertical-real-${condition}-${repeat}.svg`), runSvg(run, `${metricName} (linreg: loss ≈ 0)`));
        writeJson(path.join(out, 'vertical-real.json'), {
          ...header('vertical-real/v1', started),
          mix: values.mix,
          jobs: MIX,
          targets: Object.fromEntries(targets),
          runs,
        });
        progress(`[vertical-real] ${condition} #${repeat}: ${JSON.stringify(run.completion)} load ${run.loadAverage.mean.toFixed(2)}`);
      }
    }
  } finally {
    if (node !== undefined) for (const p of await node.stop()) console.error(`real node cleanup: ${p}`);
    await cluster.stop();
  }
  const ran = conditions.filter((c) => runs.some((r) => r.condition === c));
  const isQoe = (c: Condition) => c === 'qoe-static' || c === 'dqoes';
  const qoe = ran.filter(isQoe);
  const flow = ran.filter((c) => !isQoe(c));
  const md = [
    `# vertical-real (${started.toISOString()}, ${os.cpus().length} cpus)\n`,
    ...(flow.length > 0 ? [completionTable(runs, flow)] : []),
    ...(qoe.length > 0 ? [completionTable(runs, qoe), qoeTable(runs, qoe)] : []),
  ].join('\n');
  writeText(path.join(out, 'vertical-real.md'), md);
  process.stdout.write(md);
  return 0;
}

process.exitCode = await main();
