// containerd with its CRI plugin, on a socket and state directory of its own, with an image store
// kept in the cache between runs (importing the TensorFlow image takes ~40 s; a stamp per archive
// says what is already there). Debian's containerd 1.6 needs `restrict_oom_score_adj` where the host
// lacks CAP_SYS_RESOURCE, and no AppArmor.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { run } from './exec.ts';
import { CNI_BIN_DIR } from './host.ts';
import type { BuiltImage } from './images.ts';

export interface ContainerdPaths {
  readonly root: string;
  readonly state: string;
  readonly socket: string;
  readonly config: string;
}

export const K8S_NAMESPACE = 'k8s.io';

export function containerdPaths(workDir: string, imageStore: string): ContainerdPaths {
  return {
    root: imageStore,
    state: path.join(workDir, 'containerd-state'),
    socket: path.join(workDir, 'containerd.sock'),
    config: path.join(workDir, 'containerd.toml'),
  };
}

export function writeContainerdConfig(paths: ContainerdPaths, sandboxImage: string, cniConfDir: string): void {
  mkdirSync(paths.root, { recursive: true });
  mkdirSync(paths.state, { recursive: true });
  const q = JSON.stringify;
  writeFileSync(
    paths.config,
    [
      'version = 2',
      `root = ${q(paths.root)}`,
      `state = ${q(paths.state)}`,
      '[grpc]',
      `  address = ${q(paths.socket)}`,
      '[ttrpc]',
      `  address = ${q(`${paths.socket}.ttrpc`)}`,
      '[plugins."io.containerd.grpc.v1.cri"]',
      `  sandbox_image = ${q(sandboxImage)}`,
      '  restrict_oom_score_adj = true',
      '  disable_apparmor = true',
      '  [plugins."io.containerd.grpc.v1.cri".containerd]',
      '    snapshotter = "overlayfs"',
      '    default_runtime_name = "runc"',
      '    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]',
      '      runtime_type = "io.containerd.runc.v2"',
      '      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]',
      '        SystemdCgroup = false',
      '  [plugins."io.containerd.grpc.v1.cri".cni]',
      `    bin_dir = ${q(CNI_BIN_DIR)}`,
      `    conf_dir = ${q(cniConfDir)}`,
      '',
    ].join('\n'),
  );
}

export async function waitForContainerd(paths: ContainerdPaths, alive: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive()) throw new Error('containerd exited during start-up');
    if (
      existsSync(paths.socket) &&
      (await run('ctr', ['-a', paths.socket, 'version'], { allowFailure: true, timeoutMs: 5_000 })).code === 0
    )
      return;
    if (Date.now() > deadline) throw new Error(`containerd not ready after ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

/** Which archive each reference was imported from. */
export const importStampFile = (paths: ContainerdPaths): string => path.join(paths.root, 'tfjob-imported.json');

/** Imports each archive unless this image store already holds exactly that build of it. */
export async function importImages(paths: ContainerdPaths, images: readonly BuiltImage[], progress: (line: string) => void): Promise<void> {
  const stampFile = importStampFile(paths);
  const stamps = existsSync(stampFile) ? (JSON.parse(readFileSync(stampFile, 'utf8')) as Record<string, string>) : {};
  const present = (await run('ctr', ['-a', paths.socket, '-n', K8S_NAMESPACE, 'images', 'ls', '-q'])).output.split('\n');
  for (const image of images) {
    if (stamps[image.reference] === image.archive && present.includes(image.reference)) continue;
    const started = Date.now();
    await run('ctr', ['-a', paths.socket, '-n', K8S_NAMESPACE, 'images', 'import', image.archive], { timeoutMs: 900_000 });
    stamps[image.reference] = image.archive;
    writeFileSync(stampFile, JSON.stringify(stamps, null, 1));
    progress(`[real-node] imported ${image.reference} in ${Math.round((Date.now() - started) / 1000)} s`);
  }
}
