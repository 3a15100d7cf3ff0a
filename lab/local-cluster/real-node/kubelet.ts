// The real node's kubelet: built from the same Kubernetes pin as the control plane, on the harness's
// bridge address (a node IP may not be loopback), cgroupfs under a cgroup root of its own (so stop can
// remove everything it made), no eviction or image GC on a shared disk. Anonymous, AlwaysAllow
// authorization on its own port: only the apiserver on this machine talks to it (pods/log, exec).
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { cgroupVersion } from './host.ts';

export const CGROUP_ROOT = 'tfjob-realnode';

export interface KubeletSettings {
  readonly workDir: string;
  readonly nodeIp: string;
  readonly port: number;
  readonly healthzPort: number;
  readonly containerdSocket: string;
  readonly clusterDns: string;
  readonly maxPods: number;
  /** The node's own cgroup root (default CGROUP_ROOT); a second node on the host needs another. */
  readonly cgroupRoot?: string;
  /** CPU held back from allocatable, so that two nodes on one host do not both offer every core. */
  readonly reservedCpu?: string;
}

/** The cgroup root of the real node with this index (0: the one node of the suite). */
export const cgroupRootOf = (index: number): string => (index === 0 ? CGROUP_ROOT : `${CGROUP_ROOT}-${index}`);

export function writeKubeletConfig(s: KubeletSettings): string {
  const dir = path.join(s.workDir, 'kubelet');
  for (const d of ['root', 'pod-logs', 'manifests']) mkdirSync(path.join(dir, d), { recursive: true });
  const config = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1',
    kind: 'KubeletConfiguration',
    address: s.nodeIp,
    port: s.port,
    healthzBindAddress: '127.0.0.1',
    healthzPort: s.healthzPort,
    readOnlyPort: 0,
    authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
    authorization: { mode: 'AlwaysAllow' },
    cgroupDriver: 'cgroupfs',
    cgroupRoot: `/${s.cgroupRoot ?? CGROUP_ROOT}`,
    cgroupsPerQOS: true,
    enforceNodeAllocatable: ['pods'],
    ...(s.reservedCpu === undefined ? {} : { systemReserved: { cpu: s.reservedCpu } }),
    // Kubernetes 1.36 refuses cgroup v1 hosts unless told otherwise; this project's machines are v1.
    failCgroupV1: false,
    failSwapOn: false,
    containerRuntimeEndpoint: `unix://${s.containerdSocket}`,
    podLogsDir: path.join(dir, 'pod-logs'),
    staticPodPath: path.join(dir, 'manifests'),
    clusterDomain: 'cluster.local',
    clusterDNS: [s.clusterDns],
    resolvConf: '/etc/resolv.conf',
    serializeImagePulls: false,
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    evictionHard: {},
    maxPods: s.maxPods,
    nodeStatusReportFrequency: '10s',
    syncFrequency: '10s',
    fileCheckFrequency: '5s',
    shutdownGracePeriod: '0s',
  };
  const file = path.join(dir, 'config.yaml');
  writeFileSync(file, stringify(config));
  return file;
}

function cgroupHierarchies(): string[] {
  if (cgroupVersion() === 2) return ['/sys/fs/cgroup'];
  return readdirSync('/sys/fs/cgroup')
    .map((c) => path.join('/sys/fs/cgroup', c))
    .filter((p) => {
      try {
        return lstatSync(p).isDirectory() && existsSync(path.join(p, 'cgroup.procs'));
      } catch {
        return false;
      }
    });
}

/** The kubelet requires its cgroup root to exist in every hierarchy. */
export function createCgroupRoot(root = CGROUP_ROOT): void {
  for (const h of cgroupHierarchies()) mkdirSync(path.join(h, root), { recursive: true });
}

/** Every process in the cgroup root's tree (containers the kubelet and containerd left running). */
export function cgroupRootProcesses(root = CGROUP_ROOT): number[] {
  const pids = new Set<number>();
  const walk = (dir: string) => {
    try {
      for (const line of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n')) if (line.trim() !== '') pids.add(Number(line));
      for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) walk(path.join(dir, entry.name));
    } catch {
      // removed meanwhile
    }
  };
  for (const h of cgroupHierarchies()) walk(path.join(h, root));
  return [...pids];
}

/** Removes the cgroup root bottom-up (a cgroup directory is removed with rmdir once empty of tasks). */
export function removeCgroupRoot(cgroupRoot = CGROUP_ROOT): string[] {
  const left: string[] = [];
  const remove = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) remove(path.join(dir, entry.name));
    try {
      rmdirSync(dir);
    } catch {
      left.push(dir);
    }
  };
  for (const h of cgroupHierarchies()) {
    const root = path.join(h, cgroupRoot);
    if (existsSync(root)) remove(root);
  }
  return left;
}
