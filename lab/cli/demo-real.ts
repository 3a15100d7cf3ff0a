// `node lab/cli/main.ts demo --real`: the demo on real pods. A local control plane with one real node
// (containerd, kubelet, cluster DNS, a TensorFlow image built here), the operator with policy ours,
// and three real TensorFlow jobs: an elastic one (1..3 workers), a fixed one, and later one of a
// higher PriorityClass that makes the elastic job shrink; the live table shows each job's queue,
// workers, global step (read from its log) and phase, then each job's completion time.
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, CustomObjectsApi, SchedulingV1Api, type KubeConfig } from '@kubernetes/client-node';
import { LocalCluster } from '../local-cluster/index.ts';
import { installCrds } from '../local-cluster/crd.ts';
import { createTrainersConfigMap, REAL_NODE_LABEL, RealNode, trainerReplicaSpec } from '../local-cluster/real-node/index.ts';
import { loadConfig } from '../../src/operator/config.ts';
import { Operator } from '../../src/operator/manager.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import type { Dashboard } from '../../src/dashboard/index.ts';
import { startDemoDashboard, type DemoDashboardOptions } from './demo-dashboard.ts';

const NAMESPACE = 'demo-real';
const PRIORITY_CLASS = 'demo-real-urgent';

interface DemoJob {
  readonly name: string;
  readonly at: number;
  readonly body: Record<string, unknown>;
}

function replica(replicas: number, cpu: string, env: Record<string, string>): Record<string, unknown> {
  return trainerReplicaSpec({ replicas, cpu, env });
}

/** cleanPodPolicy Running: a finished job's PS (which never exits by itself) leaves the small node. */
function tfjob(name: string, spec: Record<string, unknown>, runPolicy: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'kubeflow.org/v1',
    kind: 'TFJob',
    metadata: { name, namespace: NAMESPACE },
    spec: { ...spec, runPolicy: { cleanPodPolicy: 'Running', ...runPolicy } },
  };
}

/** The workload: timings in seconds after the start, sized for a 2-cpu node. */
export function demoJobs(): DemoJob[] {
  const train = (steps: number, sleepS: number) => ({ STEPS: String(steps), STEP_SLEEP: String(sleepS), PROGRESS_EVERY: '10' });
  return [
    {
      name: 'elastic',
      at: 0,
      body: tfjob('elastic', {
        elasticPolicy: { minReplicas: 1, maxReplicas: 3 },
        tfReplicaSpecs: { PS: replica(1, '200m', train(1500, 0.2)), Worker: replica(3, '400m', train(1500, 0.2)) },
      }),
    },
    {
      name: 'fixed',
      at: 5,
      body: tfjob('fixed', { tfReplicaSpecs: { PS: replica(1, '100m', train(400, 0.2)), Worker: replica(1, '300m', train(400, 0.2)) } }),
    },
    {
      name: 'urgent',
      at: 60,
      body: tfjob(
        'urgent',
        { tfReplicaSpecs: { PS: replica(1, '200m', train(200, 0.05)), Worker: replica(1, '700m', train(200, 0.05)) } },
        { schedulingPolicy: { priorityClass: PRIORITY_CLASS } },
      ),
    },
  ];
}

interface JobStatus {
  status?: {
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
    scheduling?: { queue?: string; weight?: string; workersSummary?: string };
    progress?: { step?: number; phase?: string };
    startTime?: string;
    completionTime?: string;
  };
  metadata?: { creationTimestamp?: string | Date };
}

function row(name: string, job: JobStatus | undefined): string {
  if (job === undefined) return `${name.padEnd(9)} (not submitted yet)`;
  const s = job.status;
  const last = s?.conditions?.filter((c) => c.status === 'True').at(-1)?.type ?? 'Created';
  const sched = s?.scheduling;
  return `${name.padEnd(9)} ${last.padEnd(10)} ${(sched?.queue ?? '').padEnd(8)} ${(sched?.weight ?? '').padEnd(6)} ${(sched?.workersSummary ?? '').padEnd(8)} ${String(s?.progress?.step ?? '').padStart(5)} ${s?.progress?.phase ?? ''}`;
}

async function submit(kc: KubeConfig, jobs: readonly DemoJob[], started: number, submitted: Set<string>): Promise<void> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  for (const j of jobs) {
    if (submitted.has(j.name) || (Date.now() - started) / 1000 < j.at) continue;
    await custom.createNamespacedCustomObject({
      group: 'kubeflow.org',
      version: 'v1',
      plural: 'tfjobs',
      namespace: NAMESPACE,
      body: j.body,
    });
    submitted.add(j.name);
  }
}

async function prepare(kc: KubeConfig): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NAMESPACE } } });
  for (let i = 0; ; i++) {
    try {
      await createTrainersConfigMap(core, NAMESPACE);
      break;
    } catch (err) {
      if (i > 50) throw err;
      await sleep(200); // the namespace's controllers are still starting
    }
  }
  await kc.makeApiClient(SchedulingV1Api).createPriorityClass({ body: { metadata: { name: PRIORITY_CLASS }, value: 100_000 } });
}

export async function mainReal(signal: AbortSignal, logFile: string, dashboardOptions: DemoDashboardOptions): Promise<number> {
  const problem = RealNode.unavailable();
  if (problem !== undefined) {
    console.error(`demo --real needs a real node, and this host cannot run one: ${problem}`);
    return 1;
  }
  const progress = (line: string) => {
    if (!line.includes('cached in')) console.log(line);
  };
  console.log('Starting a local control plane with one real node (the first run builds the kubelet, CoreDNS and a TensorFlow image)...');
  const cluster = await LocalCluster.start({ scheduler: true, onProgress: progress });
  let node: RealNode | undefined;
  let operator: Operator | undefined;
  let dashboard: Dashboard | undefined;
  try {
    await installCrds(cluster.kubeConfig());
    node = await RealNode.start({ kubeconfig: cluster.kubeconfigPath, onProgress: progress });
    const kc = cluster.kubeConfig();
    await prepare(kc);
    const { createWriteStream } = await import('node:fs');
    const { config } = loadConfig({
      argv: [
        '--namespace',
        NAMESPACE,
        '--policy',
        'ours',
        '--node-selector',
        `${REAL_NODE_LABEL}=true`,
        '--progress-period',
        '5s',
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
      ],
      env: {},
    });
    const logger = createLogger({ level: 'info', destination: createWriteStream(logFile) });
    operator = new Operator(config, { kubeConfig: kc, logger });
    await operator.start();
    dashboard = await startDemoDashboard(kc, logger, dashboardOptions);
    console.log(`\n== real TensorFlow on ${node.nodeName} (2 cpu), policy ours (operator log: ${logFile}) ==`);
    return await watch(kc, signal);
  } finally {
    await dashboard?.stop();
    await operator?.stop();
    if (node !== undefined) for (const p of await node.stop()) console.error(`real node cleanup: ${p}`);
    await cluster.stop();
  }
}

async function watch(kc: KubeConfig, signal: AbortSignal): Promise<number> {
  const jobs = demoJobs();
  const custom = kc.makeApiClient(CustomObjectsApi);
  const submitted = new Set<string>();
  const started = Date.now();
  const tty = process.stdout.isTTY;
  let lines = 0;
  let lastPrint = 0;
  for (;;) {
    if (signal.aborted) return 130;
    await submit(kc, jobs, started, submitted);
    const list = (await custom.listNamespacedCustomObject({
      group: 'kubeflow.org',
      version: 'v1',
      plural: 'tfjobs',
      namespace: NAMESPACE,
    })) as {
      items: (JobStatus & { metadata: { name: string } })[];
    };
    const byName = new Map(list.items.map((j) => [j.metadata.name, j]));
    const header = `t=${Math.round((Date.now() - started) / 1000)}s\n${'job'.padEnd(9)} ${'state'.padEnd(10)} ${'queue'.padEnd(8)} ${'weight'.padEnd(6)} ${'workers'.padEnd(8)} ${'step'.padStart(5)} phase`;
    const text = [header, ...jobs.map((j) => row(j.name, byName.get(j.name)))].join('\n');
    if (tty) {
      if (lines > 0) process.stdout.write(`\x1b[${lines}A\x1b[J`);
      process.stdout.write(`${text}\n`);
      lines = text.split('\n').length;
    } else if (Date.now() - lastPrint > 10_000) {
      lastPrint = Date.now();
      console.log(text);
    }
    const finished = jobs.every((j) =>
      byName.get(j.name)?.status?.conditions?.some((c) => (c.type === 'Succeeded' || c.type === 'Failed') && c.status === 'True'),
    );
    if (finished) {
      printTimes(jobs, byName);
      return jobs.every((j) => byName.get(j.name)?.status?.conditions?.some((c) => c.type === 'Succeeded' && c.status === 'True')) ? 0 : 1;
    }
    if (Date.now() - started > 30 * 60_000) {
      console.error('the demo did not finish within 30 minutes');
      return 1;
    }
    await sleep(2_000);
  }
}

function printTimes(jobs: readonly DemoJob[], byName: ReadonlyMap<string, JobStatus>): void {
  console.log(`\n${'job'.padEnd(9)} ${'result'.padEnd(10)} ${'JCT'.padStart(6)}`);
  for (const j of jobs) {
    const job = byName.get(j.name);
    const created = job?.metadata?.creationTimestamp;
    const done = job?.status?.completionTime;
    const jct = created !== undefined && done !== undefined ? (Date.parse(done) - new Date(created).getTime()) / 1000 : undefined;
    const result = job?.status?.conditions?.filter((c) => c.status === 'True').at(-1)?.type ?? '-';
    console.log(`${j.name.padEnd(9)} ${result.padEnd(10)} ${(jct === undefined ? '-' : `${Math.round(jct)}s`).padStart(6)}`);
  }
}
