// Taking a real node down completely, from its state file alone (so `cluster down` in another process
// and a test's afterAll do the same): pods first (the kubelet tears down their sandboxes, network
// namespaces and addresses), then the processes by PID, leftover shims, mounts under the node's
// directory, new network namespaces, the bridge, ip_forward, the cgroup root, and the directory.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isAlive, signalGroup, stopGroupByPid } from '../process.ts';
import { mountsUnder, run, unmountUnder } from './exec.ts';
import { CGROUP_ROOT, cgroupRootProcesses, removeCgroupRoot } from './kubelet.ts';
import { removePodNetwork, type PodNetwork } from './network.ts';

/** What a running real node left on the host, written to `<workDir>/real-node.json`. */
export interface RealNodeState {
  readonly nodeName: string;
  readonly workDir: string;
  readonly containerdSocket: string;
  readonly network: PodNetwork;
  readonly ipForward: string;
  /** Network namespaces present before the node started (the others are its pods'). */
  readonly netnsBefore: readonly string[];
  readonly processes: Readonly<Record<string, { pid: number; log: string }>>;
  readonly kubeconfig: string;
  /** The kubelet's cgroup root (absent in state files of one-node harnesses: CGROUP_ROOT). */
  readonly cgroupRoot?: string;
}

export const NETNS_DIR = '/run/netns';
export const REAL_NODE_STATE = 'real-node.json';

/** Real nodes whose state is in `tmpDir`, split by whether any of their processes still runs. */
export function realNodesIn(tmpDir: string): { live: RealNodeState[]; stale: RealNodeState[] } {
  const live: RealNodeState[] = [];
  const stale: RealNodeState[] = [];
  for (const entry of readdirSync(tmpDir)) {
    if (!entry.startsWith('tfjob-rn-')) continue;
    const state = readRealNodeState(path.join(tmpDir, entry));
    if (state === undefined) continue;
    (Object.values(state.processes).some((p) => isAlive(p.pid)) ? live : stale).push(state);
  }
  return { live, stale };
}

export function readRealNodeState(workDir: string): RealNodeState | undefined {
  const f = path.join(workDir, REAL_NODE_STATE);
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as RealNodeState) : undefined;
}

async function runningTasks(socket: string): Promise<string[]> {
  if (!existsSync(socket)) return [];
  const res = await run('ctr', ['-a', socket, '-n', 'k8s.io', 'tasks', 'ls', '-q'], { allowFailure: true, timeoutMs: 10_000 });
  return res.code === 0 ? res.output.split('\n').filter((l) => l.trim() !== '') : [];
}

/** PIDs of containerd shims serving this node's containerd (they outlive containerd by design). */
function shimPids(socket: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (cmdline[0]?.includes('containerd-shim') && cmdline.includes(socket)) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/**
 * Tears the node down. `deletePods` asks the API to delete the node's pods and resolves once done (the
 * kubelet must still run for a clean sandbox teardown); it may be absent when the API is gone.
 */
export async function teardownRealNode(
  state: RealNodeState,
  deletePods?: () => Promise<void>,
  log: (l: string) => void = () => {},
): Promise<string[]> {
  const problems: string[] = [];
  const kubelet = state.processes.kubelet;
  if (deletePods !== undefined && kubelet !== undefined && isAlive(kubelet.pid)) {
    try {
      await deletePods();
      const deadline = Date.now() + 60_000;
      while ((await runningTasks(state.containerdSocket)).length > 0 && Date.now() < deadline) await sleep(500);
    } catch (err) {
      problems.push(`deleting the node's pods: ${(err as Error).message}`);
    }
  }
  for (const name of ['kubelet', 'coredns', 'api-forward']) {
    const p = state.processes[name];
    if (p !== undefined) await stopGroupByPid(p.pid, 10_000);
  }
  // Containers the kubelet did not get to: kill their tasks while containerd still runs.
  for (const task of await runningTasks(state.containerdSocket)) {
    await run('ctr', ['-a', state.containerdSocket, '-n', 'k8s.io', 'tasks', 'kill', '-s', 'SIGKILL', task], { allowFailure: true });
  }
  const containerd = state.processes.containerd;
  if (containerd !== undefined) await stopGroupByPid(containerd.pid, 10_000);
  for (const pid of shimPids(state.containerdSocket)) {
    log(`[real-node] killing leftover shim ${pid}`);
    signalGroup(pid, 'SIGKILL');
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  // Whatever still runs in the node's cgroups (containers whose shim is gone) is killed outright.
  for (let i = 0; i < 20; i++) {
    const left = cgroupRootProcesses(state.cgroupRoot ?? CGROUP_ROOT);
    if (left.length === 0) break;
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await sleep(250);
  }
  await unmountUnder(state.workDir);
  if (existsSync(NETNS_DIR)) {
    for (const ns of readdirSync(NETNS_DIR)) {
      if (state.netnsBefore.includes(ns) || !ns.startsWith('cni-')) continue;
      // A namespace with processes in it is another real node's pod (this node's are gone by now).
      const pids = await run('ip', ['netns', 'pids', ns], { allowFailure: true });
      if (pids.code === 0 && pids.output.trim() !== '') continue;
      await run('umount', [path.join(NETNS_DIR, ns)], { allowFailure: true });
      rmSync(path.join(NETNS_DIR, ns), { force: true });
    }
  }
  await removePodNetwork(state.network, state.ipForward);
  const left = removeCgroupRoot(state.cgroupRoot ?? CGROUP_ROOT);
  if (left.length > 0) problems.push(`cgroups still in use: ${left.slice(0, 5).join(', ')}`);
  const stillMounted = mountsUnder(state.workDir);
  if (stillMounted.length > 0) problems.push(`still mounted: ${stillMounted.slice(0, 5).join(', ')}`);
  else rmSync(state.workDir, { recursive: true, force: true });
  return problems;
}
