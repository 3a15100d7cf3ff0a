// Benchmark (not a test), docs/benchmarks.md §2.3: the operator's RSS with
// 10,000 TFJobs and 50,000 pods in its caches, and its idle CPU with 10,000 finished jobs.
//
// One real control plane (no kube-scheduler; 100 kwok nodes that take 1,000 pods each) is filled by
// the operator itself: 10,000 fixed-size TFJobs (1 PS + 4 workers, 100m / 128Mi each) are created
// and a set-up operator (unlimited client rate) creates and places their 50,000 pods and 50,000
// services, so the caches hold exactly what a real operator's would. Then, for every revision in
// --revisions, a fresh operator process with default flags starts against that cluster:
//   running: it lists everything, reconciles every job once, goes idle → RSS (median of samples),
//            V8 heap used, time to ready;
// the jobs are then finished (every pod exits 0 through kwok; the set-up operator marks the jobs
// Succeeded) and again for every revision:
//   finished: RSS, and CPU seconds over --idle-seconds of an idle operator with 10,000 finished jobs.
// `--composition` also reports what the cached objects are made of (JSON bytes by field).
//
//   node bench/memory.ts [--jobs 10000] [--revisions HEAD] [--idle-seconds 60] [--composition] [--out DIR]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubernetesObject, type V1Pod } from '@kubernetes/client-node';
import { fakeNodes, LocalCluster, POD_EXIT_CODE_ANNOTATION } from '../lab/local-cluster/index.ts';
import { installCrd } from '../lab/local-cluster/crd.ts';
import { reduceOwnedService } from '../src/operator/informers.ts';
import { reduceForeignPod, reduceOwnedPod } from '../src/operator/pod-reduction.ts';
import { Informer, stripForCache } from '../src/runtime/informer.ts';
import type { KubeClients } from '../src/runtime/kube-client.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { freePorts } from '../lab/local-cluster/ports.ts';
import { cliArgs } from './lib/args.ts';
import { inspectFlag, liveHeap } from './lib/inspector.ts';
import { composition, type Composition } from './lib/composition.ts';
import { single, sumBy } from './lib/prom.ts';
import { cpuSeconds, peakRssBytes, rssBytes, startOperatorProcess, type SystemProcess } from './lib/processes.ts';
import { waitForQuiescence } from './lib/quiescence.ts';
import { header, resultDir, writeJson } from './lib/results.ts';
import { snapshotSource, type SourceTree } from './lib/snapshot.ts';
import { round, roundSpread, spread } from './lib/stats.ts';
import { createNamespace, driverClients, pool, simpleTfjob, tfjobsPath } from './lib/workload.ts';

const SCHEMA = 'memory/v1';
const NAMESPACE = 'mem';
const MiB = 2 ** 20;

interface Measurement {
  readonly revision: string;
  readonly state: 'running' | 'finished';
  readonly readySeconds: number;
  readonly idleAfterSeconds: number;
  readonly rssMiB: ReturnType<typeof roundSpread>;
  readonly peakRssMiB: number;
  readonly heapUsedMiB: number | null;
  /** Heap still reachable after a forced full collection (bench/lib/inspector.ts). */
  readonly liveHeapMiB: number | null;
  readonly externalMiB: number | null;
  /** Requests issued from start to idle (a restart should write nothing for jobs already in sync). */
  readonly startupRequests: Record<string, number>;
  readonly idle?: {
    readonly seconds: number;
    readonly cpuSeconds: number;
    readonly cpuPercentOfOneCore: number;
    readonly requests: number;
    readonly reconciles: number;
  };
}

function parse() {
  const { values } = parseArgs({
    args: cliArgs(),
    options: {
      jobs: { type: 'string', default: '10000' },
      workers: { type: 'string', default: '4' },
      nodes: { type: 'string', default: '100' },
      revisions: { type: 'string', default: 'HEAD' },
      policy: { type: 'string', default: 'ours' },
      'idle-seconds': { type: 'string', default: '60' },
      'rss-samples': { type: 'string', default: '20' },
      composition: { type: 'boolean', default: false },
      concurrency: { type: 'string', default: '48' },
      'node-flags': { type: 'string', default: '' },
      'running-only': { type: 'boolean', default: false },
      hold: { type: 'boolean', default: false },
      attach: { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(
      'usage: node bench/memory.ts [--jobs 10000] [--revisions REV1,REV2|worktree] [--idle-seconds 60] [--composition] [--node-flags=--max-old-space-size=768] [--running-only] [--hold | --attach KUBECONFIG] [--out DIR]',
    );
    process.exit(0);
  }
  return {
    jobs: Number(values.jobs),
    workers: Number(values.workers),
    nodes: Number(values.nodes),
    revisions: values.revisions.split(','),
    policy: values.policy,
    idleSeconds: Number(values['idle-seconds']),
    rssSamples: Number(values['rss-samples']),
    composition: values.composition,
    concurrency: Number(values.concurrency),
    /** Node.js flags of the measured operators, e.g. the shipped `--max-old-space-size=768`. */
    nodeFlags: values['node-flags'] === '' ? [] : values['node-flags'].split(' '),
    runningOnly: values['running-only'],
    /** Keep the filled cluster after the running-state measurements until SIGINT (for --attach runs). */
    hold: values.hold,
    /** Kubeconfig of a cluster a --hold run keeps: measure the revisions' running state against it, no set-up. */
    attach: values.attach,
    out: values.out,
  };
}

type Options = ReturnType<typeof parse>;

function log(msg: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${msg}`);
}

/** The driver's own minimal view of pods: name and phase (it must not hold 50,000 full pods). */
function podPhases(kc: ReturnType<LocalCluster['kubeConfig']>, clients: KubeClients): Informer<V1Pod> {
  const core = clients.api(CoreV1Api);
  return new Informer<V1Pod>(
    kc,
    {
      list: ({ limit, continueToken }) => core.listNamespacedPod({ namespace: NAMESPACE, limit, _continue: continueToken }),
      watchPath: `/api/v1/namespaces/${NAMESPACE}/pods`,
    },
    {
      name: 'driver-pods',
      logger: createLogger({ level: 'silent' }),
      transform: (p) => ({
        metadata: {
          name: p.metadata?.name,
          namespace: p.metadata?.namespace,
          uid: p.metadata?.uid,
          resourceVersion: p.metadata?.resourceVersion,
        },
        status: { phase: p.status?.phase },
      }),
    },
  );
}

async function countJobs(clients: KubeClients, condition: string): Promise<number> {
  let n = 0;
  let cont: string | undefined;
  do {
    const page = await clients.request<{
      items: { status?: { conditions?: { type: string; status: string }[] } }[];
      metadata?: { continue?: string };
    }>('GET', `${tfjobsPath(NAMESPACE)}?limit=1000${cont === undefined ? '' : `&continue=${encodeURIComponent(cont)}`}`);
    n += page.items.filter((j) => j.status?.conditions?.some((c) => c.type === condition && c.status === 'True') === true).length;
    cont = page.metadata?.continue === '' ? undefined : page.metadata?.continue;
  } while (cont !== undefined);
  return n;
}

async function waitFor(what: string, ok: () => Promise<boolean> | boolean, timeoutMs: number, progress: () => string): Promise<number> {
  const start = performance.now();
  let lastLog = start;
  for (;;) {
    if (await ok()) return (performance.now() - start) / 1000;
    if (performance.now() - start > timeoutMs) throw new Error(`${what}: not done after ${timeoutMs / 1000} s (${progress()})`);
    if (performance.now() - lastLog > 30_000) {
      lastLog = performance.now();
      log(`  waiting for ${what}: ${progress()}`);
    }
    await sleep(1_000);
  }
}

async function measure(
  cluster: Pick<LocalCluster, 'kubeconfigPath'>,
  source: SourceTree,
  opts: Options,
  state: Measurement['state'],
  logDir: string,
): Promise<Measurement> {
  const started = performance.now();
  const [inspectPort] = (await freePorts(1)) as [number];
  const proc = await startOperatorProcess({
    kubeconfig: cluster.kubeconfigPath,
    root: source.root,
    logFile: path.join(logDir, `measure-${state}-${source.revision.slice(0, 8)}.log`),
    args: ['--policy', opts.policy],
    nodeFlags: [...opts.nodeFlags, inspectFlag(inspectPort)],
    readyTimeoutMs: 900_000,
  });
  try {
    const readySeconds = (performance.now() - started) / 1000;
    const idleAfterSeconds = await waitForQuiescence(() => proc.metrics(), { stableMs: 10_000, timeoutMs: 1_800_000 });
    const startup = sumBy(await proc.metrics(), 'rest_client_requests_total', 'method');
    const samples: number[] = [];
    for (let i = 0; i < opts.rssSamples; i++) {
      samples.push(rssBytes(proc.process.pid) / MiB);
      await sleep(1_000);
    }
    const m = await proc.metrics();
    const live = await liveHeap(inspectPort);
    let idle: Measurement['idle'];
    if (state === 'finished') idle = await idleCpu(proc, opts.idleSeconds);
    return {
      revision: source.revision,
      state,
      readySeconds: round(readySeconds, 1),
      idleAfterSeconds: round(idleAfterSeconds, 1),
      rssMiB: roundSpread(spread(samples), 1),
      peakRssMiB: round(peakRssBytes(proc.process.pid) / MiB, 1),
      heapUsedMiB: mib(single(m, 'nodejs_heap_size_used_bytes')),
      liveHeapMiB: mib(live.usedBytes),
      externalMiB: mib(single(m, 'nodejs_external_memory_bytes')),
      startupRequests: startup,
      ...(idle === undefined ? {} : { idle }),
    };
  } finally {
    await proc.stop();
  }
}

function mib(v: number | undefined): number | null {
  return v === undefined ? null : round(v / MiB, 1);
}

async function idleCpu(proc: SystemProcess, seconds: number): Promise<NonNullable<Measurement['idle']>> {
  const before = await proc.metrics();
  const cpu0 = cpuSeconds(proc.process.pid);
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const cpu1 = cpuSeconds(proc.process.pid);
  const elapsed = (performance.now() - t0) / 1000;
  const after = await proc.metrics();
  const delta = (name: string) => (sumBy(after, name, '').total ?? 0) - (sumBy(before, name, '').total ?? 0);
  return {
    seconds: round(elapsed, 1),
    cpuSeconds: round(cpu1 - cpu0, 2),
    cpuPercentOfOneCore: round(((cpu1 - cpu0) / elapsed) * 100, 2),
    requests: delta('rest_client_requests_total'),
    reconciles: delta('controller_runtime_reconcile_total'),
  };
}

/** Measures the running state of each revision against a cluster another run holds (--hold). */
async function attached(opts: Options, kubeconfigPath: string): Promise<void> {
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'tfjob-bench-memory-'));
  const measurements: Measurement[] = [];
  for (const r of opts.revisions) {
    const source = snapshotSource(r);
    try {
      log(`measuring revision ${source.revision.slice(0, 12)} with running jobs (attached)`);
      const m = await measure({ kubeconfigPath }, source, opts, 'running', logDir);
      measurements.push(m);
      log(
        `  RSS ${m.rssMiB?.median ?? '-'} MiB (peak ${m.peakRssMiB}), heap ${m.heapUsedMiB ?? '-'} MiB (live ${m.liveHeapMiB ?? '-'}), ready ${m.readySeconds} s`,
      );
    } finally {
      source.remove();
    }
  }
  if (opts.out !== undefined)
    writeJson(path.join(resultDir(opts.out), 'memory-attached.json'), {
      ...header(SCHEMA, new Date()),
      attachedTo: kubeconfigPath,
      nodeFlags: opts.nodeFlags,
      measurements,
    });
  log(`logs in ${logDir}`);
}

async function main(): Promise<void> {
  const opts = parse();
  if (opts.attach !== undefined) return attached(opts, opts.attach);
  const dir = resultDir(opts.out);
  const startedAt = new Date();
  const sources = opts.revisions.map((r) => snapshotSource(r));
  const setupSource = sources[sources.length - 1]!;
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'tfjob-bench-memory-'));
  log(`logs in ${logDir}`);
  const measurements: Measurement[] = [];
  const setup: Record<string, number> = {};
  let compositions: Composition | undefined;
  let inApi: { tfjobs: number; pods: number; services: number } | undefined;
  const file = path.join(dir, 'memory.json');
  const write = () => {
    writeJson(file, {
      ...header(SCHEMA, startedAt),
      finishedAt: new Date().toISOString(),
      params: {
        jobs: opts.jobs,
        workersPerJob: opts.workers,
        psPerJob: 1,
        podsExpected: opts.jobs * (1 + opts.workers),
        nodes: opts.nodes,
        policy: opts.policy,
        revisions: sources.map((s) => s.revision),
        idleSeconds: opts.idleSeconds,
        rssSamples: opts.rssSamples,
        operatorFlags: 'defaults (--kube-api-qps 50 --kube-api-burst 100, cluster-wide) plus --policy',
        nodeFlags: opts.nodeFlags,
      },
      setupSeconds: setup,
      objects: inApi,
      measurements,
      ...(compositions === undefined ? {} : { composition: compositions }),
    });
  };

  const cluster = await LocalCluster.start({ scheduler: false, noRateLimits: true, onProgress: () => undefined });
  let setupOperator: SystemProcess | undefined;
  let phases: Informer<V1Pod> | undefined;
  try {
    const kc = cluster.kubeConfig();
    const clients = driverClients(kc);
    const expectedPods = opts.jobs * (1 + opts.workers);
    let t = performance.now();
    const podsPerNode = Math.ceil((expectedPods * 1.2) / opts.nodes);
    await cluster.createNodes(fakeNodes('node', opts.nodes, { capacity: { cpu: '1000', memory: '4Ti', pods: String(podsPerNode) } }), {
      timeoutMs: 300_000,
    });
    await createNamespace(clients, NAMESPACE);
    await installCrd(kc);
    setup.nodesAndCrd = round((performance.now() - t) / 1000, 1);

    // The set-up operator: unlimited client rate so filling the cluster takes minutes, not hours.
    setupOperator = await startOperatorProcess({
      kubeconfig: cluster.kubeconfigPath,
      root: setupSource.root,
      logFile: path.join(logDir, 'setup-operator.log'),
      args: ['--policy', opts.policy, '--kube-api-qps', '0', '--controller-threads', '16'],
    });
    phases = podPhases(kc, clients);
    phases.start();
    await phases.waitForSync();
    const running = () => phases!.store.list().filter((p) => p.status?.phase === 'Running').length;

    t = performance.now();
    const names = Array.from({ length: opts.jobs }, (_, i) => `mem-${String(i).padStart(5, '0')}`);
    const shape = { workers: opts.workers, ps: { cpu: '100m', memory: '128Mi' }, worker: { cpu: '100m', memory: '128Mi' } };
    await pool(names, opts.concurrency, (name) => clients.request('POST', tfjobsPath(NAMESPACE), simpleTfjob(name, NAMESPACE, shape)));
    setup.createTfjobs = round((performance.now() - t) / 1000, 1);
    log(`created ${opts.jobs} TFJobs in ${setup.createTfjobs} s`);
    setup.podsRunning = round(
      await waitFor(
        'pods Running',
        () => running() >= expectedPods,
        // Two hours: a 2-core machine shared with other work fills 50,000 pods in 30–70 minutes.
        7_200_000,
        () => `${running()}/${expectedPods} Running, ${phases!.store.size} exist`,
      ),
      1,
    );
    setup.jobsRunning = round(
      await waitFor(
        'TFJobs Running',
        async () => (await countJobs(clients, 'Running')) >= opts.jobs,
        3_600_000,
        () => 'polling',
      ),
      1,
    );
    log(`set-up: ${JSON.stringify(setup)}`);
    await setupOperator.stop();
    setupOperator = undefined;

    const core = clients.api(CoreV1Api);
    const countAll = async (list: (cont: string | undefined) => Promise<{ items: unknown[]; metadata?: { _continue?: string } }>) => {
      let n = 0;
      let cont: string | undefined;
      do {
        const page = await list(cont);
        n += page.items.length;
        cont = page.metadata?._continue === '' ? undefined : page.metadata?._continue;
      } while (cont !== undefined);
      return n;
    };
    inApi = {
      tfjobs: opts.jobs,
      pods: await countAll((c) => core.listNamespacedPod({ namespace: NAMESPACE, limit: 5000, _continue: c })),
      services: await countAll((c) => core.listNamespacedService({ namespace: NAMESPACE, limit: 5000, _continue: c })),
    };
    log(`in the API (and so in every operator's caches): ${JSON.stringify(inApi)}`);
    if (opts.composition) {
      // The caches' transforms: before (stripForCache only) and after reducing owned pods and services;
      // `reduceForeignPod` is the form other workloads' pods are cached in (the operator's own pods are
      // cached once, reduced by `reduceOwnedPod`, since the one pod cache).
      const strip = { stripForCache: (o: KubernetesObject) => stripForCache(o) };
      compositions = await composition(clients, NAMESPACE, {
        pods: { ...strip, reduceOwnedPod: (o) => reduceOwnedPod(o), reduceForeignPod: (o) => reduceForeignPod(o) },
        services: { ...strip, reduceOwnedService: (o) => reduceOwnedService(o) },
        tfjobs: strip,
      });
    }
    write();

    for (const source of sources) {
      log(`measuring revision ${source.revision.slice(0, 12)} with running jobs`);
      const m = await measure(cluster, source, opts, 'running', logDir);
      measurements.push(m);
      log(
        `  RSS ${m.rssMiB?.median ?? '-'} MiB (peak ${m.peakRssMiB}), heap ${m.heapUsedMiB ?? '-'} MiB (live ${m.liveHeapMiB ?? '-'}), ready ${m.readySeconds} s, idle after ${m.idleAfterSeconds} s, startup requests ${JSON.stringify(m.startupRequests)}`,
      );
      write();
    }

    if (opts.hold) {
      log(`holding the filled cluster: measure against it with --attach ${cluster.kubeconfigPath}; SIGINT ends the hold`);
      await new Promise<void>((resolve) =>
        process.once('SIGINT', () => {
          resolve();
        }),
      );
    }
    if (opts.runningOnly) return;
    // Finish every job: each pod's container exits 0 (kwok), the set-up operator marks jobs Succeeded.
    setupOperator = await startOperatorProcess({
      kubeconfig: cluster.kubeconfigPath,
      root: setupSource.root,
      logFile: path.join(logDir, 'setup-operator-2.log'),
      args: ['--policy', opts.policy, '--kube-api-qps', '0', '--controller-threads', '16'],
    });
    t = performance.now();
    const pods = phases.store.list().map((p) => p.metadata?.name ?? '');
    await pool(pods, opts.concurrency, (name) =>
      core.patchNamespacedPod(
        { name, namespace: NAMESPACE, body: { metadata: { annotations: { [POD_EXIT_CODE_ANNOTATION]: '0' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    // kube-controller-manager's PodGC deletes terminated pods beyond 12,500 (its default
    // --terminated-pod-gc-threshold), so 50,000 Succeeded pods never exist at once: wait until no pod
    // is left running instead.
    const active = () => phases!.store.list().filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed').length;
    await waitFor(
      'pods exited',
      () => active() === 0,
      3_600_000,
      () => `${active()} of ${phases!.store.list().length} still running`,
    );
    await waitFor(
      'TFJobs Succeeded',
      async () => (await countJobs(clients, 'Succeeded')) >= opts.jobs,
      3_600_000,
      () => 'polling',
    );
    setup.finish = round((performance.now() - t) / 1000, 1);
    await setupOperator.stop();
    setupOperator = undefined;
    phases.stop();
    write();

    for (const source of sources) {
      log(`measuring revision ${source.revision.slice(0, 12)} with finished jobs`);
      const m = await measure(cluster, source, opts, 'finished', logDir);
      measurements.push(m);
      log(
        `  RSS ${m.rssMiB?.median ?? '-'} MiB (peak ${m.peakRssMiB}), heap ${m.heapUsedMiB ?? '-'} MiB; idle CPU ${m.idle?.cpuSeconds ?? '-'} s in ${m.idle?.seconds ?? '-'} s (${m.idle?.cpuPercentOfOneCore ?? '-'}% of a core), ${m.idle?.requests ?? '-'} requests`,
      );
      write();
    }
    const dead = cluster.deadComponents();
    if (dead.length > 0) log(`dead components: ${dead.join(', ')}`);
  } finally {
    phases?.stop();
    await setupOperator?.stop();
    await cluster.stop();
    for (const s of sources) s.remove();
  }
  write();
  log(`wrote ${file}`);
  rmSync(logDir, { recursive: true, force: true });
}

await main();
