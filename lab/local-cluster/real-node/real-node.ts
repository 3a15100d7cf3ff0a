// One real node in the local control plane, next to the kwok nodes: containerd + runc + bridge CNI
// from Debian's packages, a kubelet built from the control plane's Kubernetes pin, CoreDNS for the
// cluster domain, and images built on this machine (no registry). Real containers, real TensorFlow.
// Needs root; `RealNode.unavailable()` says why a host cannot run one, so callers can skip clearly.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { CACHE_ROOT, ensureUpstream } from '../binaries.ts';
import { freePorts } from '../ports.ts';
import { ManagedProcess, startWatchdog } from '../process.ts';
import { writeCorefile, waitForClusterDns } from './cluster-dns.ts';
import { containerdPaths, importImages, importStampFile, K8S_NAMESPACE, waitForContainerd, writeContainerdConfig } from './containerd.ts';
import { ensureHostPackages, hostProblem } from './host.ts';
import { pruneImageFiles, pruneImageReferences } from './cache-prune.ts';
import {
  busyboxImage,
  pauseImage,
  TENSORFLOW_VERSION,
  TENSORFLOW_VERSIONS_IN_USE,
  tensorflowImage,
  tensorflowImageReference,
  type BuiltImage,
} from './images.ts';
import { cgroupRootOf, createCgroupRoot, writeKubeletConfig } from './kubelet.ts';
import { createPodNetwork, podNetwork } from './network.ts';
import { REAL_NODE_LABEL } from './trainers.ts';
import { run } from './exec.ts';
import { NETNS_DIR, REAL_NODE_STATE, readRealNodeState, realNodesIn, teardownRealNode, type RealNodeState } from './teardown.ts';

export const DEFAULT_REAL_NODE_NAME = 'realnode-0';
const bridgeOf = (index: number): string => `tfjob-rn${index}`;
/** The first address of the local control plane's service range: the `kubernetes` Service. */
const KUBERNETES_SERVICE_IP = '10.96.0.1';

function readKubeconfigServer(kubeconfig: string): string {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const server = kc.getCurrentCluster()?.server;
  if (server === undefined) throw new Error(`no server in ${kubeconfig}`);
  return server;
}

export interface RealNodeOptions {
  /** The control plane's admin kubeconfig (the kubelet and CoreDNS use it). */
  readonly kubeconfig: string;
  readonly nodeName?: string;
  /**
   * Which real node of this host (default 0). Node n has its own bridge `tfjob-rn<n>` with
   * 10.87.n.0/24, containerd store, cgroup root and ports; node 0 also serves cluster DNS and the
   * `kubernetes` Service address, which the others' pods reach through the host.
   */
  readonly index?: number;
  /** CPU the kubelet holds back from allocatable (two nodes on 2 cores: '1' each). */
  readonly reservedCpu?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** Build and load the TensorFlow image (minutes the first time; cached after). Default true. */
  readonly tensorflow?: boolean;
  /** The TensorFlow versions to build images of (default: TENSORFLOW_VERSION alone). */
  readonly tensorflowVersions?: readonly string[];
  /** Image archives and containerd's image store (default `.cache/real-node`). */
  readonly cacheDir?: string;
  /** Kill the node's processes if this process dies without stop() (default true). */
  readonly tiedToProcess?: boolean;
  readonly onProgress?: (line: string) => void;
}

export class RealNode {
  readonly state: RealNodeState;
  readonly images: readonly BuiltImage[];
  #stopped = false;

  private constructor(state: RealNodeState, images: readonly BuiltImage[]) {
    this.state = state;
    this.images = images;
  }

  get nodeName(): string {
    return this.state.nodeName;
  }

  /** Why this host cannot run a real node (undefined: it can). */
  static unavailable(): string | undefined {
    return hostProblem();
  }

  static async start(options: RealNodeOptions): Promise<RealNode> {
    const progress = options.onProgress ?? ((line: string) => process.stderr.write(`${line}\n`));
    const problem = hostProblem();
    if (problem !== undefined) throw new Error(`cannot start a real node: ${problem}`);
    // A run that was killed leaves its state behind: clean that up; a live one is never touched.
    const index = options.index ?? 0;
    const bridge = bridgeOf(index);
    const { live, stale } = realNodesIn(os.tmpdir());
    const same = live.filter((s) => s.network.bridge === bridge);
    if (same.length > 0) throw new Error(`real node ${index} already runs on this machine (from ${same.map((s) => s.workDir).join(', ')})`);
    for (const state of stale) {
      progress(`[real-node] cleaning up after an earlier real node that was not stopped (${state.workDir})`);
      const problems = await teardownRealNode(state);
      if (problems.length > 0) throw new Error(`could not clean up the earlier real node in ${state.workDir}: ${problems.join('; ')}`);
    }
    if (existsSync(`/sys/class/net/${bridge}`)) {
      throw new Error(`bridge ${bridge} exists but no real node's state names it: remove it with \`ip link delete ${bridge}\``);
    }
    const started = Date.now();
    await ensureHostPackages(progress);
    const bins = await ensureUpstream(['kubelet', 'coredns'], progress);
    const cacheDir = options.cacheDir ?? path.join(CACHE_ROOT, 'real-node');
    const imageDir = path.join(cacheDir, 'images');
    const images = [await pauseImage(imageDir, progress), await busyboxImage(imageDir, progress)];
    if (options.tensorflow ?? true) {
      for (const version of options.tensorflowVersions ?? [TENSORFLOW_VERSION])
        images.push(await tensorflowImage(imageDir, progress, version));
    }
    pruneImageFiles(
      imageDir,
      images.map((i) => i.archive),
      TENSORFLOW_VERSIONS_IN_USE.map((v) => `tensorflow-${v}`),
      progress,
    );

    // Short: containerd's socket path must fit a unix socket address (108 bytes).
    const workDir = mkdtempSync(path.join(os.tmpdir(), 'tfjob-rn-'));
    mkdirSync(path.join(workDir, 'logs'));
    const nodeName = options.nodeName ?? (index === 0 ? DEFAULT_REAL_NODE_NAME : `realnode-${index}`);
    const network = podNetwork(workDir, bridge, index);
    // One image store per containerd (its metadata database is locked by the one that opens it).
    const ctrd = containerdPaths(workDir, path.join(cacheDir, index === 0 ? 'containerd' : `containerd-${index}`));
    const cgroupRoot = cgroupRootOf(index);
    const netnsBefore = existsSync(NETNS_DIR) ? readdirSync(NETNS_DIR) : [];
    const processes: ManagedProcess[] = [];
    const writeState = (ipForward: string): RealNodeState => {
      const state: RealNodeState = {
        nodeName,
        workDir,
        containerdSocket: ctrd.socket,
        network,
        ipForward,
        netnsBefore,
        processes: Object.fromEntries(processes.map((p) => [p.name, { pid: p.pid, log: p.logFile }])),
        kubeconfig: options.kubeconfig,
        cgroupRoot,
      };
      writeFileSync(path.join(workDir, REAL_NODE_STATE), JSON.stringify(state, null, 2));
      writeFileSync(path.join(workDir, 'pids'), processes.map((p) => `${p.pid}\n`).join(''));
      return state;
    };
    const launch = (name: string, binary: string, args: string[], ipForward: string) => {
      const p = ManagedProcess.start(name, binary, args, { logFile: path.join(workDir, 'logs', `${name}.log`), cwd: workDir });
      processes.push(p);
      writeState(ipForward);
      return p;
    };

    let state = writeState('');
    try {
      const { ipForward } = await createPodNetwork(network, workDir);
      state = writeState(ipForward);
      if (options.tiedToProcess ?? true) {
        writeFileSync(path.join(workDir, 'running'), `${process.pid}\n`);
        startWatchdog({ parentPid: process.pid, pidFile: path.join(workDir, 'pids'), stopFile: path.join(workDir, 'running') });
      }
      createCgroupRoot(cgroupRoot);
      writeContainerdConfig(ctrd, images[0]?.reference ?? '', network.cniConfDir);
      const containerd = launch('containerd', 'containerd', ['--config', ctrd.config], ipForward);
      await waitForContainerd(ctrd, () => containerd.running);
      await importImages(ctrd, images, progress);
      const referencesInUse = [...images.map((i) => i.reference), ...TENSORFLOW_VERSIONS_IN_USE.map(tensorflowImageReference)];
      await pruneImageReferences(ctrd.socket, K8S_NAMESPACE, importStampFile(ctrd), referencesInUse, progress);

      // In-cluster clients (the operator as users install it) find the API at the `kubernetes`
      // Service's address. Without kube-proxy, that address is put on the bridge and forwarded to the
      // apiserver on loopback; its serving certificate already names it.
      const clusterDns = podNetwork(workDir, bridgeOf(0), 0).gateway;
      if (index === 0) {
        await run('ip', ['addr', 'replace', `${KUBERNETES_SERVICE_IP}/32`, 'dev', network.bridge]);
        const apiserver = new URL(readKubeconfigServer(options.kubeconfig));
        launch(
          'api-forward',
          'socat',
          [`TCP-LISTEN:443,bind=${KUBERNETES_SERVICE_IP},fork,reuseaddr`, `TCP:${apiserver.hostname}:${apiserver.port}`],
          ipForward,
        );
        const corefile = writeCorefile(workDir, network.gateway, options.kubeconfig);
        const coredns = launch('coredns', path.join(bins.coredns ?? '', 'coredns'), ['-conf', corefile], ipForward);
        await waitForClusterDns(network.gateway, () => coredns.running);
      } else {
        await waitForClusterDns(clusterDns, () => true);
      }

      const [port, healthzPort] = (await freePorts(2)) as [number, number];
      const config = writeKubeletConfig({
        workDir,
        nodeIp: network.gateway,
        port,
        healthzPort,
        containerdSocket: ctrd.socket,
        clusterDns,
        maxPods: 40,
        cgroupRoot,
        ...(options.reservedCpu === undefined ? {} : { reservedCpu: options.reservedCpu }),
      });
      const labels = { [REAL_NODE_LABEL]: 'true', ...options.labels };
      const kubelet = launch(
        'kubelet',
        path.join(bins.kubelet ?? '', 'kubelet'),
        [
          `--config=${config}`,
          `--kubeconfig=${options.kubeconfig}`,
          `--root-dir=${path.join(workDir, 'kubelet', 'root')}`,
          `--hostname-override=${nodeName}`,
          `--node-ip=${network.gateway}`,
          `--node-labels=${Object.entries(labels)
            .map(([k, v]) => `${k}=${v}`)
            .join(',')}`,
          '--v=1',
        ],
        ipForward,
      );
      state = writeState(ipForward);
      await waitForNodeReady(options.kubeconfig, nodeName, () => kubelet.running, 120_000);
      progress(
        `[real-node] ${nodeName} Ready in ${Math.round((Date.now() - started) / 1000)} s (pods on ${network.subnet}, DNS ${clusterDns})`,
      );
      return new RealNode(state, images);
    } catch (err) {
      const problems = await teardownRealNode(state);
      throw new Error(
        `real node failed to start: ${(err as Error).message}${problems.length > 0 ? `\ncleanup: ${problems.join('; ')}` : ''}\nlogs in ${workDir}/logs`,
        {
          cause: err,
        },
      );
    }
  }

  /** Deletes the node's pods and the Node, then removes everything the node made on the host. */
  async stop(log?: (line: string) => void): Promise<string[]> {
    if (this.#stopped) return [];
    this.#stopped = true;
    // From the state file: a restarted kubelet (kubelet-restart.ts) has a PID this object does not know.
    return stopRealNode(readRealNodeState(this.state.workDir) ?? this.state, log);
  }
}

/** Stops a real node from its state (the `cluster down` path). */
export async function stopRealNode(state: RealNodeState, log?: (line: string) => void): Promise<string[]> {
  const kc = new KubeConfig();
  kc.loadFromFile(state.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const problems = await teardownRealNode(state, () => deleteNodePods(core, state.nodeName), log);
  try {
    await core.deleteNode({ name: state.nodeName });
  } catch {
    // The API may be gone already (cluster stopped first).
  }
  return problems;
}

async function deleteNodePods(core: CoreV1Api, nodeName: string): Promise<void> {
  const list = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${nodeName}` });
  await Promise.all(
    list.items.map((p) =>
      core
        .deleteNamespacedPod({ name: p.metadata?.name ?? '', namespace: p.metadata?.namespace ?? '', gracePeriodSeconds: 1 })
        .catch(() => undefined),
    ),
  );
}

async function waitForNodeReady(kubeconfig: string, name: string, alive: () => boolean, timeoutMs: number): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive()) throw new Error('the kubelet exited during start-up');
    try {
      const node = await core.readNode({ name });
      if (node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return;
    } catch {
      // not registered yet
    }
    if (Date.now() > deadline) throw new Error(`node ${name} not Ready after ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}
