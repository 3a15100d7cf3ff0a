// The operator image of the Dockerfile, built on this machine without a container engine, for the real
// node: a Debian bookworm minbase root file system (debootstrap from the host's apt mirror: what
// node:24-slim is built on), the pinned Node 24 binary at /usr/local/bin/node (hack/dev's NODE_VERSION;
// node:24-slim ships the same binary from nodejs.org, plus npm, which the operator does not need),
// `dist/` compiled with tsconfig.build.json, production `node_modules` from `npm ci --omit=dev
// --ignore-scripts`, and package.json, in /app. Env NODE_ENV=production, WorkingDir /app, ENTRYPOINT
// ["node", "dist/cli/main.js", "run"], everything root-owned and world-readable (the pod runs as 65532
// on a read-only root file system).
//
// Why Debian and not just the node binary plus the libraries `ldd` lists (smaller, ~30 s faster cold):
// the Dockerfile's runtime is node:24-slim, a Debian bookworm slim root file system, and the image here
// should differ from it as little as possible (same libc, /etc, CA bundle, shell for debugging).
//
// Two caches: the Debian base as a tar (debian-base.ts; 45-110 s to make), and the image archive (keyed by everything that shapes it: lock file, package.json, .npmrc,
// tsconfigs, src/, the Node version and this file), so a change in src/ repacks only the app.
//
// One difference from the Dockerfile: the archive's config has no `User` (writeImageArchive does not
// write one); the chart and config/manager set runAsUser/runAsGroup 65532 and runAsNonRoot on the pod,
// so the process runs as 65532 all the same.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { CACHE_ROOT, REPO_ROOT } from '../binaries.ts';
import { run } from './exec.ts';
import { writeImageArchive } from './image-archive.ts';
import type { BuiltImage } from './images.ts';
import { debianBase, extractBase, MINBASE } from './debian-base.ts';

export const OPERATOR_IMAGE_REPOSITORY = 'docker.io/local/tfjob-operator';

type Progress = (line: string) => void;

const SELF = readFileSync(path.join(import.meta.dirname, 'operator-image.ts'), 'utf8');

/** hack/dev's pins: the Node version the image runs and the npm that installs its dependencies. */
export function toolchainPins(): { nodeVersion: string; npmVersion: string } {
  const dev = readFileSync(path.join(REPO_ROOT, 'hack', 'dev'), 'utf8');
  const nodeVersion = /^NODE_VERSION=(\S+)/m.exec(dev)?.[1];
  const npmVersion = /^NPM_VERSION=(\S+)/m.exec(dev)?.[1];
  if (nodeVersion === undefined || npmVersion === undefined) throw new Error('NODE_VERSION/NPM_VERSION not found in hack/dev');
  return { nodeVersion, npmVersion };
}

function pinnedToolchain(): { node: string; npmCli: string; nodeVersion: string } {
  const { nodeVersion, npmVersion } = toolchainPins();
  const plat = `linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}`;
  const node = path.join(CACHE_ROOT, 'toolchain', `node-v${nodeVersion}-${plat}`, 'bin', 'node');
  const npmCli = path.join(CACHE_ROOT, 'toolchain', `npm-v${npmVersion}`, 'bin', 'npm-cli.js');
  for (const f of [node, npmCli]) if (!existsSync(f)) throw new Error(`${f} missing: run hack/dev once to fetch the pinned toolchain`);
  return { node, npmCli, nodeVersion };
}

/** Every file under `dir`, sorted, as path + content into `hash`. */
function hashTree(hash: ReturnType<typeof createHash>, dir: string): void {
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const f = path.join(d, name);
      if (statSync(f).isDirectory()) walk(f);
      else
        hash
          .update(`${path.relative(REPO_ROOT, f)}\0`)
          .update(readFileSync(f))
          .update('\0');
    }
  };
  walk(dir);
}

/** The cache key of the image: lock file, package.json, .npmrc, tsconfigs, src/, Node version, this recipe. */
export function operatorImageKey(nodeVersion = toolchainPins().nodeVersion): string {
  const hash = createHash('sha256').update(SELF).update(`\0${nodeVersion}\0`);
  for (const f of ['package-lock.json', 'package.json', '.npmrc', 'tsconfig.json', 'tsconfig.build.json']) {
    hash
      .update(`${f}\0`)
      .update(readFileSync(path.join(REPO_ROOT, f)))
      .update('\0');
  }
  hashTree(hash, path.join(REPO_ROOT, 'src'));
  return hash.digest('hex').slice(0, 12);
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

export interface OperatorImage extends BuiltImage {
  /** The reference's repository and tag, as the chart's image.repository / image.tag take them. */
  readonly repository: string;
  readonly tag: string;
  /** Seconds the build took (0 when it came from the cache). */
  readonly buildSeconds: number;
  readonly archiveBytes: number;
}

/**
 * `docker.io/local/tfjob-operator:<version>-<key>` as a `docker save` archive in `dir` (the real node's
 * image cache). Cold: the Debian base (~45 s), `tsc` and `npm ci` (~1 min each on 2 cores), the archive.
 */
export async function operatorImage(dir: string, progress: Progress): Promise<OperatorImage> {
  mkdirSync(dir, { recursive: true });
  const tool = pinnedToolchain();
  const key = operatorImageKey(tool.nodeVersion);
  const tag = `${packageVersion()}-${key}`;
  const reference = `${OPERATOR_IMAGE_REPOSITORY}:${tag}`;
  const archive = path.join(dir, `tfjob-operator-${key}.tar`);
  const result = (buildSeconds: number): OperatorImage => ({
    reference,
    archive,
    repository: OPERATOR_IMAGE_REPOSITORY,
    tag,
    buildSeconds,
    archiveBytes: statSync(archive).size,
  });
  if (existsSync(archive) && existsSync(`${archive}.ref`)) return result(0);

  const started = Date.now();
  progress(`[real-node] building image ${reference}`);
  const base = await debianBase(dir, MINBASE, progress);
  for (const f of readdirSync(dir)) if (f.startsWith('tfjob-operator-')) rmSync(path.join(dir, f), { recursive: true, force: true });
  const work = path.join(dir, `tfjob-operator-${key}.work`);
  const rootfs = path.join(work, 'rootfs');
  const app = path.join(rootfs, 'app');
  const stage = path.join(work, 'deps');
  mkdirSync(app, { recursive: true });
  mkdirSync(stage, { recursive: true });
  try {
    const env = {
      PATH: `${path.dirname(tool.node)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: process.env.HOME ?? '/root',
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      ...Object.fromEntries(
        ['HTTPS_PROXY', 'HTTP_PROXY', 'https_proxy', 'http_proxy', 'NO_PROXY', 'no_proxy', 'npm_config_registry', 'NODE_EXTRA_CA_CERTS']
          .filter((n) => process.env[n] !== undefined)
          .map((n) => [n, process.env[n]]),
      ),
    };
    // The three Dockerfile stages, side by side: the base, the compile, the production install.
    const t0 = Date.now();
    const steps = Promise.all([
      extractBase(base, rootfs),
      run(
        tool.node,
        [path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', path.join(app, 'dist')],
        {
          cwd: REPO_ROOT,
          env,
          timeoutMs: 600_000,
        },
      ).then(() => {
        progress(`[real-node]   tsc -p tsconfig.build.json: ${Math.round((Date.now() - t0) / 1000)} s`);
      }),
      (async () => {
        for (const f of ['package.json', 'package-lock.json', '.npmrc']) copyFileSync(path.join(REPO_ROOT, f), path.join(stage, f));
        await run(
          tool.node,
          [tool.npmCli, 'ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
          {
            cwd: stage,
            env,
            timeoutMs: 600_000,
          },
        );
        progress(`[real-node]   npm ci --omit=dev: ${Math.round((Date.now() - t0) / 1000)} s`);
      })(),
    ]);
    await steps;
    cpSync(path.join(stage, 'node_modules'), path.join(app, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(app, 'package.json'));
    const nodeBin = path.join(rootfs, 'usr', 'local', 'bin', 'node');
    mkdirSync(path.dirname(nodeBin), { recursive: true });
    copyFileSync(tool.node, nodeBin);
    chmodSync(nodeBin, 0o755);
    // Readable (and directories searchable) by anyone: the pod's 65532 owns nothing.
    await run('chmod', ['-R', 'a+rX', app]);
    // The image must start: the pinned node in the new root runs the entrypoint's --help.
    await run('chroot', [rootfs, '/usr/local/bin/node', '/app/dist/cli/main.js', 'run', '--help'], { timeoutMs: 60_000 });
    await writeImageArchive(rootfs, archive, {
      reference,
      entrypoint: ['node', 'dist/cli/main.js', 'run'],
      workingDir: '/app',
      // The Dockerfile's USER: the conventional non-root UID, which owns nothing in the image.
      user: '65532:65532',
      env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', `NODE_VERSION=${tool.nodeVersion}`, 'NODE_ENV=production'],
    });
    writeFileSync(`${archive}.ref`, `${reference}\n`);
    const seconds = Math.round((Date.now() - started) / 1000);
    progress(`[real-node] image ${reference} built in ${seconds} s (${Math.round(statSync(archive).size / 2 ** 20)} MiB)`);
    return result(seconds);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
