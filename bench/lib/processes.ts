// The systems under test as separate processes, the way they are deployed: our operator
// (`node src/cli/main.ts run`) and Kubeflow training-operator v1.7.0 (built by
// hack/build-upstream.sh). Both get loopback metrics ports so the benchmarks read their
// rest_client_requests_total, and /proc gives their RSS and CPU time.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureUpstream, REPO_ROOT, type LocalCluster } from '../../lab/local-cluster/index.ts';
import { freePorts } from '../../lab/local-cluster/ports.ts';
import { ManagedProcess, signalGroup } from '../../lab/local-cluster/process.ts';
import type { Sample } from '../../test/support/prometheus.ts';
import { scrape } from './prom.ts';

export interface SystemProcess {
  readonly name: string;
  readonly process: ManagedProcess;
  readonly metricsUrl: string;
  metrics(): Promise<Sample[]>;
  stop(): Promise<void>;
}

const killOnExit = new Set<number>();
process.once('exit', () => {
  for (const pid of killOnExit) signalGroup(pid, 'SIGKILL');
});

function track(p: ManagedProcess): ManagedProcess {
  killOnExit.add(p.pid);
  void p.exited.then(() => killOnExit.delete(p.pid));
  return p;
}

async function waitUntil(what: string, p: ManagedProcess, ok: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!p.running) throw new Error(`${what}: process exited with ${String(p.exitStatus)} (log ${p.logFile})`);
    try {
      if (await ok()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs / 1000} s (log ${p.logFile})`);
    await sleep(200);
  }
}

/** Our operator as a child process; resolves once /readyz answers 200 (caches synced, first pass). */
export async function startOperatorProcess(opts: {
  readonly kubeconfig: string;
  readonly args: readonly string[];
  readonly logFile: string;
  readonly logLevel?: string;
  /** Extra Node.js flags, e.g. `--heap-prof` or `--max-old-space-size=4096`. */
  readonly nodeFlags?: readonly string[];
  /** Source tree to run (default this repository); benchmarks of an older revision pass its copy. */
  readonly root?: string;
  readonly readyTimeoutMs?: number;
}): Promise<SystemProcess> {
  const [metricsPort, probePort] = (await freePorts(2)) as [number, number];
  const main = path.join(opts.root ?? REPO_ROOT, 'src', 'cli', 'main.ts');
  const p = track(
    ManagedProcess.start(
      'tfjob-operator',
      process.execPath,
      [
        ...(opts.nodeFlags ?? []),
        main,
        'run',
        '--kubeconfig',
        opts.kubeconfig,
        '--metrics-bind-address',
        `127.0.0.1:${metricsPort}`,
        '--health-probe-bind-address',
        `127.0.0.1:${probePort}`,
        ...opts.args,
      ],
      { logFile: opts.logFile, env: { ...process.env, LOG_LEVEL: opts.logLevel ?? 'warn' }, cwd: path.dirname(opts.logFile) },
    ),
  );
  await waitUntil(
    'tfjob-operator',
    p,
    async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`, { signal: AbortSignal.timeout(5_000) })).ok,
    opts.readyTimeoutMs ?? 120_000,
  );
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  return { name: 'tfjob-operator', process: p, metricsUrl, metrics: () => scrape(metricsUrl), stop: () => p.stop(10_000) };
}

/** `$(go env GOMODCACHE)/github.com/kubeflow/training-operator@v1.7.0/manifests/base/crds/<file>`. */
export function upstreamCrdFile(version = 'v1.7.0', file = 'kubeflow.org_tfjobs.yaml'): string {
  const modcache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const f = path.join(modcache, 'github.com', 'kubeflow', `training-operator@${version}`, 'manifests', 'base', 'crds', file);
  if (!existsSync(f))
    throw new Error(`upstream CRD not found at ${f}; run hack/build-upstream.sh training-operator first (it downloads the module)`);
  return f;
}

/**
 * Kubeflow training-operator v1.7.0, TFJob controller only, out of cluster (it has no webhooks in
 * v1.7.0; local-control-plane.md §6). Its client rate limit is controller-runtime's fixed default
 * (20 QPS, burst 30): v1.7.0 has no flag for it. Resolves once its TFJob controller started workers.
 */
export async function startTrainingOperator(opts: {
  readonly kubeconfig: string;
  readonly logFile: string;
  readonly extraArgs?: readonly string[];
}): Promise<SystemProcess> {
  const dirs = await ensureUpstream(['training-operator'], () => undefined);
  const binary = path.join(dirs['training-operator'] ?? '', 'training-operator');
  const [metricsPort, probePort, monitoringPort] = (await freePorts(3)) as [number, number, number];
  const p = track(
    ManagedProcess.start(
      'training-operator',
      binary,
      [
        `--kubeconfig=${opts.kubeconfig}`,
        '--enable-scheme=tfjob',
        `--metrics-bind-address=127.0.0.1:${metricsPort}`,
        `--health-probe-bind-address=127.0.0.1:${probePort}`,
        `--monitoring-port=${monitoringPort}`,
        '--leader-elect=false',
        ...(opts.extraArgs ?? []),
      ],
      { logFile: opts.logFile, cwd: path.dirname(opts.logFile) },
    ),
  );
  // Controllers are set up in a goroutine after the manager starts; "Starting workers" means the
  // TFJob informers synced and reconciles can run.
  await waitUntil('training-operator', p, () => readFileSync(opts.logFile, 'utf8').includes('Starting workers'), 120_000);
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  return { name: 'training-operator', process: p, metricsUrl, metrics: () => scrape(metricsUrl), stop: () => p.stop(10_000) };
}

/** kube-scheduler's /metrics (secure port, admin bearer token) of a LocalCluster started with a scheduler. */
export function kubeSchedulerMetrics(cluster: LocalCluster): () => Promise<Sample[]> {
  const pid = cluster.state.processes['kube-scheduler']?.pid;
  if (pid === undefined) throw new Error('the cluster runs no kube-scheduler');
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const port = args.find((a) => a.startsWith('--secure-port='))?.split('=')[1];
  if (port === undefined) throw new Error('kube-scheduler has no --secure-port');
  return () => scrape(`https://127.0.0.1:${port}/metrics`, { token: cluster.state.adminToken });
}

/** Resident set size of a process, from /proc/<pid>/status (bytes). */
export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? Number.NaN : Number(m[1]) * 1024;
}

/** Peak resident set size (VmHWM) of a process (bytes). */
export function peakRssBytes(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? Number.NaN : Number(m[1]) * 1024;
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User + system CPU seconds a process has used (/proc/<pid>/stat utime + stime). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces; fields after its closing parenthesis are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
