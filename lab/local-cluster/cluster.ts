// A real, local Kubernetes control plane for tests, the demo and benchmarks: etcd, kube-apiserver
// (token authentication, RBAC), kube-controller-manager (garbage collection, namespaces, service
// accounts, node lifecycle), optionally kube-scheduler, and kwok running fake nodes. No containers,
// no root, free ports only, and nothing left behind: a watchdog kills every process group and removes
// the temp dir when the owning process dies without calling stop().
import { randomBytes, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, KubeConfig, type V1Node } from '@kubernetes/client-node';
import { ensureControlPlaneBinaries, type UpstreamBinaries } from './binaries.ts';
import { installCrd } from './crd.ts';
import { renderKubeconfig } from './kubeconfig.ts';
import { fakeNode, type FakeNodeSpec } from './nodes.ts';
import { freePorts } from './ports.ts';
import { ManagedProcess, signalGroup, startWatchdog, stopGroupByPid } from './process.ts';

export interface LocalClusterOptions {
  /** Keep state here (the CLI's `cluster up`); default: a fresh temp dir removed on stop. */
  readonly workDir?: string;
  /** Start kube-scheduler (needed only when something relies on the default scheduler). */
  readonly scheduler?: boolean;
  /** Start kube-controller-manager (default true). */
  readonly controllerManager?: boolean;
  /** Start kwok (default true). */
  readonly kwok?: boolean;
  /** Kill everything when this process dies (default true; the CLI's `cluster up` turns it off). */
  readonly tiedToProcess?: boolean;
  /** Lift the apiserver's and controllers' client rate limits (benchmarks). */
  readonly noRateLimits?: boolean;
  readonly extraApiserverArgs?: readonly string[];
  readonly binaries?: UpstreamBinaries;
  readonly onProgress?: (line: string) => void;
}

/** What `cluster up` writes to `<workDir>/cluster.json` so `cluster down` and other tools can find it. */
export interface ClusterState {
  readonly workDir: string;
  readonly server: string;
  readonly kubeconfig: string;
  readonly caFile: string;
  readonly adminToken: string;
  /** etcd's client URL (tests compact it to force 410 Gone on watches). */
  readonly etcdEndpoint: string;
  /** The pinned kubectl matching this control plane. */
  readonly kubectl: string;
  /** kube-apiserver's audit log (JSON lines): pod and service deletions and patches, pod creates. */
  readonly auditLog: string;
  readonly removeWorkDir: boolean;
  readonly processes: Readonly<Record<string, { pid: number; log: string }>>;
  readonly startedAt: string;
  readonly startupMs: number;
}

const STATE_FILE = 'cluster.json';
const PID_FILE = 'pids';
const STOP_FILE = 'running';

/** How a component was launched, so restartComponent() can launch it again identically. */
interface LaunchSpec {
  readonly binary: string;
  readonly args: readonly string[];
}

export class LocalCluster {
  #state: ClusterState;
  #processes: ManagedProcess[];
  readonly #launchSpecs: ReadonlyMap<string, LaunchSpec>;
  #stopped = false;
  #exitHook: () => void;

  private constructor(
    state: ClusterState,
    processes: ManagedProcess[],
    tiedToProcess: boolean,
    launchSpecs: ReadonlyMap<string, LaunchSpec> = new Map(),
  ) {
    this.#state = state;
    this.#processes = processes;
    this.#launchSpecs = launchSpecs;
    // Last resort when the owner exits without stop(): synchronous kill of every process group.
    this.#exitHook = () => {
      for (const p of this.#processes) signalGroup(p.pid, 'SIGKILL');
    };
    if (tiedToProcess) process.once('exit', this.#exitHook);
  }

  /** The cluster's state; `processes` follows component restarts. */
  get state(): ClusterState {
    return this.#state;
  }

  get kubeconfigPath(): string {
    return this.state.kubeconfig;
  }

  get server(): string {
    return this.state.server;
  }

  get workDir(): string {
    return this.state.workDir;
  }

  /** An admin (system:masters) client configuration. */
  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromFile(this.state.kubeconfig);
    return kc;
  }

  /** A client configuration authenticating with the given bearer token (e.g. a ServiceAccount token). */
  kubeConfigForToken(token: string, user = 'token-user'): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromString(renderKubeconfig({ server: this.state.server, caFile: this.state.caFile, user: { name: user, token } }));
    return kc;
  }

  static async start(options: LocalClusterOptions = {}): Promise<LocalCluster> {
    const started = performance.now();
    const progress = options.onProgress ?? ((line: string) => process.stderr.write(`${line}\n`));
    const binaries = options.binaries ?? (await ensureControlPlaneBinaries(progress));

    const removeWorkDir = options.workDir === undefined;
    const workDir = options.workDir ?? mkdtempSync(path.join(os.tmpdir(), 'tfjob-cluster-'));
    // Every start is a fresh cluster: state from an earlier run in the same directory is discarded.
    for (const stale of ['etcd', 'pki', 'logs', STATE_FILE]) rmSync(path.join(workDir, stale), { recursive: true, force: true });
    mkdirSync(path.join(workDir, 'logs'), { recursive: true });
    mkdirSync(path.join(workDir, 'pki'), { recursive: true });
    const file = (...parts: string[]) => path.join(workDir, ...parts);
    writeFileSync(file(PID_FILE), '');
    writeFileSync(file(STOP_FILE), `${process.pid}\n`);
    if (options.tiedToProcess ?? true) {
      startWatchdog({
        parentPid: process.pid,
        pidFile: file(PID_FILE),
        stopFile: file(STOP_FILE),
        removeDir: removeWorkDir ? workDir : undefined,
      });
    }

    const processes: ManagedProcess[] = [];
    const launchSpecs = new Map<string, LaunchSpec>();
    const launch = (name: string, binary: string, args: string[]): ManagedProcess => {
      const p = ManagedProcess.start(name, binary, args, { logFile: file('logs', `${name}.log`), cwd: workDir });
      processes.push(p);
      launchSpecs.set(name, { binary, args });
      appendFileSync(file(PID_FILE), `${p.pid}\n`);
      return p;
    };

    try {
      const [etcdClient, etcdPeer, apiPort, kcmPort, schedPort, kwokPort] = (await freePorts(6)) as [
        number,
        number,
        number,
        number,
        number,
        number,
      ];

      // Credentials: static bearer tokens per component (no client certificates needed), and a
      // ServiceAccount signing key so real ServiceAccount tokens work (RBAC tests, TokenRequest).
      const token = () => randomBytes(24).toString('hex');
      const users = {
        admin: { name: 'admin', token: token(), uid: 'admin', groups: ['system:masters'] },
        kcm: { name: 'system:kube-controller-manager', token: token(), uid: 'kcm', groups: [] as string[] },
        scheduler: { name: 'system:kube-scheduler', token: token(), uid: 'scheduler', groups: [] as string[] },
        kwok: { name: 'kwok-controller', token: token(), uid: 'kwok', groups: ['system:masters'] },
      };
      writeFileSync(
        file('pki', 'tokens.csv'),
        Object.values(users)
          .map((u) => `${u.token},${u.name},${u.uid}${u.groups.length > 0 ? `,"${u.groups.join(',')}"` : ''}`)
          .join('\n') + '\n',
        { mode: 0o600 },
      );
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      writeFileSync(file('pki', 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
      writeFileSync(file('pki', 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));

      // etcd
      progress('[local-cluster] starting etcd');
      const etcd = launch('etcd', binaries.etcd, [
        '--name=tfjob-local',
        `--data-dir=${file('etcd')}`,
        `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
        `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
        `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
        `--initial-cluster=tfjob-local=http://127.0.0.1:${etcdPeer}`,
        '--unsafe-no-fsync=true',
        '--quota-backend-bytes=8589934592',
        '--auto-compaction-retention=1',
        '--log-level=warn',
      ]);
      await waitFor('etcd', etcd, async () => (await httpGet(`http://127.0.0.1:${etcdClient}/health`)).status === 200, 30_000);

      // kube-apiserver
      progress('[local-cluster] starting kube-apiserver');
      const server = `https://127.0.0.1:${apiPort}`;
      const certDir = file('pki', 'serving');
      const apiserver = launch('kube-apiserver', binaries.kubeApiserver, [
        `--etcd-servers=http://127.0.0.1:${etcdClient}`,
        `--secure-port=${apiPort}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--cert-dir=${certDir}`,
        `--token-auth-file=${file('pki', 'tokens.csv')}`,
        '--authorization-mode=Node,RBAC',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${file('pki', 'sa.pub')}`,
        `--service-account-signing-key-file=${file('pki', 'sa.key')}`,
        '--service-cluster-ip-range=10.96.0.0/16',
        '--allow-privileged=true',
        '--endpoint-reconciler-type=none',
        // The fake nodes' Hostname address is not resolvable; their InternalIP is kwok's server.
        '--kubelet-preferred-address-types=InternalIP',
        // Pod and service deletions and patches only (see the policy): who removed what, for tests.
        `--audit-policy-file=${path.join(import.meta.dirname, 'audit-policy.yaml')}`,
        `--audit-log-path=${file('logs', 'audit.log')}`,
        '--audit-log-format=json',
        '--audit-log-maxsize=200',
        '--audit-log-maxbackup=1',
        ...(options.noRateLimits === true
          ? ['--max-requests-inflight=0', '--max-mutating-requests-inflight=0', '--enable-priority-and-fairness=false']
          : []),
        ...(options.extraApiserverArgs ?? []),
      ]);
      const caFile = path.join(certDir, 'apiserver.crt');
      await waitFor(
        'kube-apiserver',
        apiserver,
        async () => {
          if (!existsSync(caFile)) return false;
          const res = await httpGet(`${server}/readyz`, { token: users.admin.token, ca: readFileSync(caFile) });
          return res.status === 200;
        },
        120_000,
      );

      const kubeconfigFor = (u: { name: string; token: string }, fname: string) => {
        const p = file(fname);
        writeFileSync(p, renderKubeconfig({ server, caFile, user: u }), { mode: 0o600 });
        return p;
      };
      const adminKubeconfig = kubeconfigFor(users.admin, 'kubeconfig');

      if (options.controllerManager ?? true) {
        progress('[local-cluster] starting kube-controller-manager');
        const kcmConfig = kubeconfigFor(users.kcm, 'kube-controller-manager.kubeconfig');
        launch('kube-controller-manager', binaries.kubeControllerManager, [
          `--kubeconfig=${kcmConfig}`,
          `--authentication-kubeconfig=${kcmConfig}`,
          `--authorization-kubeconfig=${kcmConfig}`,
          '--leader-elect=false',
          '--controllers=*',
          // Each controller acts as its own ServiceAccount with its bootstrap role, as in kubeadm clusters.
          '--use-service-account-credentials=true',
          `--service-account-private-key-file=${file('pki', 'sa.key')}`,
          `--root-ca-file=${caFile}`,
          '--bind-address=127.0.0.1',
          `--secure-port=${kcmPort}`,
          // Faster reaction to a fake node that stops renewing its lease (node-failure tests).
          '--node-monitor-grace-period=20s',
          ...(options.noRateLimits === true
            ? ['--kube-api-qps=1000', '--kube-api-burst=2000']
            : ['--kube-api-qps=100', '--kube-api-burst=200']),
        ]);
      }

      if (options.scheduler === true) {
        progress('[local-cluster] starting kube-scheduler');
        const schedConfig = kubeconfigFor(users.scheduler, 'kube-scheduler.kubeconfig');
        launch('kube-scheduler', binaries.kubeScheduler, [
          `--kubeconfig=${schedConfig}`,
          `--authentication-kubeconfig=${schedConfig}`,
          `--authorization-kubeconfig=${schedConfig}`,
          '--leader-elect=false',
          '--bind-address=127.0.0.1',
          `--secure-port=${schedPort}`,
          ...(options.noRateLimits === true ? ['--kube-api-qps=1000', '--kube-api-burst=2000'] : []),
        ]);
      }

      if (options.kwok ?? true) {
        // kwok serves pod logs from Logs objects (tests and the training emulator write them).
        const kc = new KubeConfig();
        kc.loadFromFile(adminKubeconfig);
        await installCrd(kc, path.join(import.meta.dirname, 'kwok-logs-crd.yaml'));
        progress('[local-cluster] starting kwok');
        const kwokConfig = kubeconfigFor(users.kwok, 'kwok.kubeconfig');
        launch('kwok', binaries.kwok, [
          `--kubeconfig=${kwokConfig}`,
          '--manage-all-nodes=false',
          '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
          '--node-lease-duration-seconds=40',
          '--cidr=10.244.0.0/16',
          // kwok's own server plays every fake node's kubelet endpoint, so `pods/log` reaches it.
          '--node-ip=127.0.0.1',
          `--node-port=${kwokPort}`,
          `--server-address=127.0.0.1:${kwokPort}`,
          `--config=${path.join(import.meta.dirname, 'kwok-stages.yaml')}`,
          '--enable-crds=Logs',
        ]);
      }

      const state: ClusterState = {
        workDir,
        server,
        kubeconfig: adminKubeconfig,
        caFile,
        adminToken: users.admin.token,
        etcdEndpoint: `http://127.0.0.1:${etcdClient}`,
        kubectl: binaries.kubectl,
        auditLog: file('logs', 'audit.log'),
        removeWorkDir,
        processes: Object.fromEntries(processes.map((p) => [p.name, { pid: p.pid, log: p.logFile }])),
        startedAt: new Date().toISOString(),
        startupMs: Math.round(performance.now() - started),
      };
      const cluster = new LocalCluster(state, processes, options.tiedToProcess ?? true, launchSpecs);
      await cluster.#waitForDefaultServiceAccount();
      writeFileSync(file(STATE_FILE), JSON.stringify({ ...state, startupMs: Math.round(performance.now() - started) }, null, 2));
      progress(
        `[local-cluster] ready in ${((performance.now() - started) / 1000).toFixed(1)} s at ${server} (kubeconfig ${adminKubeconfig})`,
      );
      return cluster;
    } catch (err) {
      for (const p of processes.reverse()) await p.stop(2_000);
      rmSync(file(STOP_FILE), { force: true });
      const logs = processes.map((p) => `--- ${p.name} (${p.logFile}) ---\n${tail(p.logFile, 30)}`).join('\n');
      if (removeWorkDir) rmSync(workDir, { recursive: true, force: true });
      throw new Error(`local cluster failed to start: ${(err as Error).message}\n${logs}`, { cause: err });
    }
  }

  /** Creates fake nodes and (by default) waits until kwok reports them Ready. */
  async createNodes(specs: readonly FakeNodeSpec[], opts: { waitReady?: boolean; timeoutMs?: number } = {}): Promise<V1Node[]> {
    const core = this.kubeConfig().makeApiClient(CoreV1Api);
    const created: V1Node[] = [];
    // Bounded concurrency: hundreds of nodes for benchmarks, without a thundering herd.
    const queue = [...specs];
    const worker = async () => {
      for (let spec = queue.shift(); spec !== undefined; spec = queue.shift()) {
        created.push(await core.createNode({ body: fakeNode(spec) }));
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, specs.length) }, worker));
    if (opts.waitReady ?? true) {
      const names = new Set(specs.map((s) => s.name));
      const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
      for (;;) {
        const list = await core.listNode();
        const ready = list.items.filter(
          (n) => names.has(n.metadata?.name ?? '') && n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        if (ready.length === names.size) break;
        if (Date.now() > deadline) throw new Error(`only ${ready.length}/${names.size} fake nodes became Ready`);
        await sleep(200);
      }
    }
    return created;
  }

  async #waitForDefaultServiceAccount(): Promise<void> {
    if (!this.#processes.some((p) => p.name === 'kube-controller-manager')) return;
    const core = this.kubeConfig().makeApiClient(CoreV1Api);
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await core.readNamespacedServiceAccount({ name: 'default', namespace: 'default' });
        return;
      } catch {
        if (Date.now() > deadline) throw new Error('kube-controller-manager did not create the default ServiceAccount within 60 s');
        await sleep(200);
      }
    }
  }

  /**
   * Stops one component (SIGTERM, then SIGKILL after `graceMs`), waits `downMs`, and launches it
   * again with the same binary, arguments, ports and data: fault-injection tests restart
   * kube-apiserver mid-run this way. Resolves once the apiserver answers /readyz again (other
   * components: once the process runs). Returns the new pid.
   */
  async restartComponent(name: string, opts: { downMs?: number; graceMs?: number; timeoutMs?: number } = {}): Promise<number> {
    const spec = this.#launchSpecs.get(name);
    const old = this.#processes.find((p) => p.name === name);
    if (spec === undefined || old === undefined) throw new Error(`no component ${name} in this cluster`);
    if (this.#stopped) throw new Error('the cluster is stopped');
    await old.stop(opts.graceMs ?? 5_000);
    if ((opts.downMs ?? 0) > 0) await sleep(opts.downMs);
    const p = ManagedProcess.start(name, spec.binary, spec.args, { logFile: old.logFile, cwd: this.#state.workDir });
    this.#processes = this.#processes.map((x) => (x === old ? p : x));
    appendFileSync(path.join(this.#state.workDir, PID_FILE), `${p.pid}\n`);
    this.#state = { ...this.#state, processes: { ...this.#state.processes, [name]: { pid: p.pid, log: p.logFile } } };
    if (name === 'kube-apiserver') {
      const ca = readFileSync(this.#state.caFile);
      await waitFor(
        name,
        p,
        async () => (await httpGet(`${this.#state.server}/readyz`, { token: this.#state.adminToken, ca })).status === 200,
        opts.timeoutMs ?? 120_000,
      );
    }
    return p.pid;
  }

  /** Processes that died on their own (a crashed component). */
  deadComponents(): string[] {
    return this.#processes.filter((p) => !p.running).map((p) => `${p.name} (exit ${String(p.exitStatus)})`);
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const p of [...this.#processes].reverse()) await p.stop();
    process.removeListener('exit', this.#exitHook);
    rmSync(path.join(this.#state.workDir, STOP_FILE), { force: true });
    if (this.#state.removeWorkDir) rmSync(this.#state.workDir, { recursive: true, force: true });
  }

  /** Reads the state of a cluster started by another process (`cluster up`). */
  static readState(workDir: string): ClusterState | undefined {
    const f = path.join(workDir, STATE_FILE);
    if (!existsSync(f)) return undefined;
    return JSON.parse(readFileSync(f, 'utf8')) as ClusterState;
  }

  /** Stops a cluster started by another process, from its state file. */
  static async stopDetached(workDir: string): Promise<boolean> {
    const state = LocalCluster.readState(workDir);
    if (state === undefined) return false;
    const order = ['kwok', 'kube-scheduler', 'kube-controller-manager', 'kube-apiserver', 'etcd'];
    for (const name of order) {
      const p = state.processes[name];
      if (p !== undefined) await stopGroupByPid(p.pid, 5_000);
    }
    rmSync(path.join(workDir, STATE_FILE), { force: true });
    rmSync(path.join(workDir, STOP_FILE), { force: true });
    return true;
  }
}

async function waitFor(name: string, proc: ManagedProcess, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.running) throw new Error(`${name} exited with ${String(proc.exitStatus)} during start-up`);
    try {
      if (await ready()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${name} not ready after ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}

function httpGet(url: string, opts: { token?: string; ca?: Buffer } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const headers: Record<string, string> = opts.token === undefined ? {} : { Authorization: `Bearer ${opts.token}` };
    const onResponse = (res: http.IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
      });
    };
    const req =
      u.protocol === 'https:'
        ? https.request(u, { method: 'GET', headers, ca: opts.ca, timeout: 5_000 }, onResponse)
        : http.request(u, { method: 'GET', headers, timeout: 5_000 }, onResponse);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
