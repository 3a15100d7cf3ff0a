// Locates the pinned upstream binaries, building them first when the cache is cold. The build and its
// cache keys live in hack/build-upstream.sh so shell users and this module share one source of truth.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export interface UpstreamBinaries {
  readonly etcd: string;
  readonly kubeApiserver: string;
  readonly kubeControllerManager: string;
  readonly kubeScheduler: string;
  readonly kubectl: string;
  readonly kwok: string;
}

export type UpstreamComponent = 'k8s' | 'etcd' | 'kwok' | 'training-operator' | 'helm' | 'kubelet' | 'coredns';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');
/** Where downloads and builds are cached: `TFJOB_CACHE_DIR` (as hack/dev reads it), so worktrees share one. */
export const CACHE_ROOT = process.env.TFJOB_CACHE_DIR ?? path.join(REPO_ROOT, '.cache');
const BUILD_SCRIPT = path.join(REPO_ROOT, 'hack', 'build-upstream.sh');

/**
 * Runs hack/build-upstream.sh for the given components and returns each component's binary directory.
 * Progress of a cold build is streamed to `onProgress` (stderr by default): it can take many minutes.
 */
export async function ensureUpstream(
  components: readonly UpstreamComponent[],
  onProgress: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<Record<string, string>> {
  const child = spawn('bash', [BUILD_SCRIPT, ...components], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  let pending = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) onProgress(line);
  });
  const code = await new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c) => {
      resolve(c ?? 1);
    });
  });
  if (pending !== '') onProgress(pending);
  if (code !== 0) throw new Error(`hack/build-upstream.sh ${components.join(' ')} failed with exit code ${code}`);
  const dirs: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) dirs[line.slice(0, eq)] = line.slice(eq + 1);
  }
  for (const component of components) {
    if (dirs[component] === undefined) throw new Error(`hack/build-upstream.sh did not report a directory for ${component}`);
  }
  return dirs;
}

export async function ensureControlPlaneBinaries(onProgress?: (line: string) => void): Promise<UpstreamBinaries> {
  const dirs = await ensureUpstream(['k8s', 'etcd', 'kwok'], onProgress);
  const k8s = dirs.k8s ?? '';
  const bins: UpstreamBinaries = {
    etcd: path.join(dirs.etcd ?? '', 'etcd'),
    kubeApiserver: path.join(k8s, 'kube-apiserver'),
    kubeControllerManager: path.join(k8s, 'kube-controller-manager'),
    kubeScheduler: path.join(k8s, 'kube-scheduler'),
    kubectl: path.join(k8s, 'kubectl'),
    kwok: path.join(dirs.kwok ?? '', 'kwok'),
  };
  for (const [name, file] of Object.entries(bins) as [string, string][]) {
    if (!existsSync(file)) throw new Error(`upstream binary ${name} missing at ${file}`);
  }
  return bins;
}
