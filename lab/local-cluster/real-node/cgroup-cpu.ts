// What the kernel enforces on a real node's container: its CFS CPU quota, read from the container's
// own cgroup under the node's cgroup root (the kubelet's cgroupfs layout
// `<root>/kubepods/<qos>/pod<uid>/<container id>`). cgroup v1 keeps it in cpu.cfs_quota_us and
// cpu.cfs_period_us, v2 in cpu.max ("<quota|max> <period>").
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cgroupVersion } from './host.ts';
import { CGROUP_ROOT } from './kubelet.ts';

/** The directory of the container's cgroup in the cpu controller (undefined when it has none). */
export function containerCpuCgroup(containerId: string, cgroupRoot = CGROUP_ROOT): string | undefined {
  const id = containerId.replace(/^[a-z]+:\/\//, '');
  const base = cgroupVersion() === 2 ? '/sys/fs/cgroup' : '/sys/fs/cgroup/cpu';
  const find = (dir: string, depth: number): string | undefined => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      if (e.name === id) return path.join(dir, e.name);
      const below = depth > 0 ? find(path.join(dir, e.name), depth - 1) : undefined;
      if (below !== undefined) return below;
    }
    return undefined;
  };
  const root = path.join(base, cgroupRoot);
  return existsSync(root) ? find(root, 4) : undefined;
}

/** The container's CPU limit as the kernel enforces it, in millicores (null: unlimited). */
export function containerCpuQuotaMillis(containerId: string, cgroupRoot = CGROUP_ROOT): number | null {
  const dir = containerCpuCgroup(containerId, cgroupRoot);
  if (dir === undefined) throw new Error(`no cpu cgroup for container ${containerId} under /${cgroupRoot}`);
  let quota: number;
  let period: number;
  if (cgroupVersion() === 2) {
    const [q, p] = readFileSync(path.join(dir, 'cpu.max'), 'utf8').trim().split(/\s+/);
    if (q === 'max') return null;
    quota = Number(q);
    period = Number(p);
  } else {
    quota = Number(readFileSync(path.join(dir, 'cpu.cfs_quota_us'), 'utf8').trim());
    period = Number(readFileSync(path.join(dir, 'cpu.cfs_period_us'), 'utf8').trim());
    if (quota < 0) return null;
  }
  return Math.round((quota * 1000) / period);
}
