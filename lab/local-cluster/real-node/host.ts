// What a real node needs from the host: root, a cgroup file system, and Debian's container runtime
// packages. Missing packages are installed with apt (root and apt are there on this project's
// machines); anything that cannot be had is reported as a reason to skip, never half-started.
import { existsSync, readFileSync } from 'node:fs';
import { hasCommand, run } from './exec.ts';

/** Debian packages and the command each must provide. */
export const HOST_PACKAGES: Readonly<Record<string, string>> = {
  containerd: 'containerd',
  runc: 'runc',
  'containernetworking-plugins': '/usr/lib/cni/bridge',
  debootstrap: 'debootstrap',
  'busybox-static': 'busybox',
  gcc: 'gcc',
  'libc6-dev': '/usr/include/stdio.h',
  iproute2: 'ip',
  socat: 'socat',
};

export const CNI_BIN_DIR = '/usr/lib/cni';

/** Why this host cannot run a real node, or undefined when it can (after installing packages). */
export function hostProblem(): string | undefined {
  if (process.platform !== 'linux') return `a real node needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'a real node needs root (containerd, kubelet, a network bridge)';
  if (!existsSync('/sys/fs/cgroup')) return 'no cgroup file system at /sys/fs/cgroup';
  return undefined;
}

async function present(probe: string): Promise<boolean> {
  return probe.startsWith('/') ? existsSync(probe) : hasCommand(probe);
}

/** Installs the missing host packages with apt-get; returns what was installed. */
export async function ensureHostPackages(progress: (line: string) => void): Promise<string[]> {
  const missing: string[] = [];
  for (const [pkg, probe] of Object.entries(HOST_PACKAGES)) if (!(await present(probe))) missing.push(pkg);
  if (missing.length === 0) return [];
  if (!(await hasCommand('apt-get'))) throw new Error(`missing host packages ${missing.join(', ')} and no apt-get to install them`);
  progress(`[real-node] installing ${missing.join(' ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update', '-q'], { env, timeoutMs: 300_000 });
  await run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...missing], { env, timeoutMs: 600_000 });
  return missing;
}

/** The host's cgroup version: the kubelet must be told to accept v1. */
export function cgroupVersion(): 1 | 2 {
  return existsSync('/sys/fs/cgroup/cgroup.controllers') ? 2 : 1;
}

/** The apt mirror the host uses, so debootstrap fetches from the same place. */
export function debianMirror(): string {
  for (const file of ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list']) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const uri = /^URIs:\s*(\S+)/m.exec(text)?.[1] ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+\S+\s+main/m.exec(text)?.[1];
    if (uri !== undefined && !uri.includes('security')) return uri;
  }
  return 'http://deb.debian.org/debian';
}
