// The real node's images, built on the host and cached by a key of everything that shapes them:
// pause (the sandbox, a static C binary), busybox (a small shell), and tensorflow (Debian's python3 in
// a debootstrap root file system with tensorflow-cpu from PyPI). No registry, no Docker engine.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { debianBase, extractBase, PYTHON_BASE } from './debian-base.ts';
import { run, unmountUnder } from './exec.ts';
import { writeImageArchive, type ImageConfig } from './image-archive.ts';

export const TENSORFLOW_VERSION = '2.21.0';
/** The last TensorFlow with `tf.estimator` (removed in 2.16): Estimator jobs run in this image. */
export const ESTIMATOR_TENSORFLOW_VERSION = '2.15.1';
/** Every TensorFlow version the tree runs: the cache keeps their images, and removes other versions'. */
export const TENSORFLOW_VERSIONS_IN_USE: readonly string[] = [TENSORFLOW_VERSION, ESTIMATOR_TENSORFLOW_VERSION];

export const PAUSE_IMAGE = 'docker.io/local/pause:3.10';
export const BUSYBOX_IMAGE = 'docker.io/local/busybox:1.35';
export const tensorflowImageReference = (version: string): string => `docker.io/local/tensorflow-cpu:${version}`;
export const TENSORFLOW_IMAGE = tensorflowImageReference(TENSORFLOW_VERSION);
export const ESTIMATOR_TENSORFLOW_IMAGE = tensorflowImageReference(ESTIMATOR_TENSORFLOW_VERSION);

export interface BuiltImage {
  readonly reference: string;
  readonly archive: string;
}

type Progress = (line: string) => void;

function key(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 12);
}

const HERE = import.meta.dirname;
const SELF = readFileSync(path.join(HERE, 'images.ts'), 'utf8');

async function cached(
  dir: string,
  name: string,
  cacheKey: string,
  build: (rootfs: string) => Promise<ImageConfig>,
  progress: Progress,
): Promise<BuiltImage> {
  mkdirSync(dir, { recursive: true });
  const archive = path.join(dir, `${name}-${cacheKey}.tar`);
  const refFile = `${archive}.ref`;
  if (existsSync(archive) && existsSync(refFile)) return { reference: readFileSync(refFile, 'utf8').trim(), archive };
  // Older builds of the same image are dead weight (the TensorFlow one is ~1.8 GB).
  for (const f of readdirSync(dir)) if (f.startsWith(`${name}-`)) rmSync(path.join(dir, f), { recursive: true, force: true });
  const rootfs = path.join(dir, `${name}-${cacheKey}.rootfs`);
  const started = Date.now();
  progress(`[real-node] building image ${name} (${cacheKey})`);
  try {
    const config = await build(rootfs);
    await writeImageArchive(rootfs, archive, config);
    writeFileSync(refFile, `${config.reference}\n`);
    progress(`[real-node] image ${config.reference} built in ${Math.round((Date.now() - started) / 1000)} s`);
    return { reference: config.reference, archive };
  } finally {
    // debootstrap mounts /proc in the root file system while it configures packages.
    if ((await unmountUnder(rootfs)).length === 0) rmSync(rootfs, { recursive: true, force: true });
  }
}

export async function pauseImage(dir: string, progress: Progress): Promise<BuiltImage> {
  const source = readFileSync(path.join(HERE, 'pause.c'), 'utf8');
  return cached(
    dir,
    'pause',
    key(source, PAUSE_IMAGE),
    async (rootfs) => {
      mkdirSync(rootfs, { recursive: true });
      await run('gcc', ['-static', '-Os', '-s', '-o', path.join(rootfs, 'pause'), path.join(HERE, 'pause.c')]);
      return { reference: PAUSE_IMAGE, entrypoint: ['/pause'] };
    },
    progress,
  );
}

export async function busyboxImage(dir: string, progress: Progress): Promise<BuiltImage> {
  const version = (await run('busybox', [])).output.split('\n')[0] ?? '';
  return cached(
    dir,
    'busybox',
    key(version, BUSYBOX_IMAGE),
    async (rootfs) => {
      for (const d of ['bin', 'etc', 'tmp', 'proc', 'sys', 'dev', 'root']) mkdirSync(path.join(rootfs, d), { recursive: true });
      copyFileSync('/usr/bin/busybox', path.join(rootfs, 'bin', 'busybox'));
      const applets = (await run('busybox', ['--list'])).output.split('\n').filter((a) => a !== '' && a !== 'busybox');
      for (const a of applets) symlinkSync('busybox', path.join(rootfs, 'bin', a));
      writeFileSync(path.join(rootfs, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n');
      writeFileSync(path.join(rootfs, 'etc', 'group'), 'root:x:0:\nnogroup:x:65534:\n');
      return { reference: BUSYBOX_IMAGE, cmd: ['sh'] };
    },
    progress,
  );
}

/** Debian minbase + python3 venv + tensorflow-cpu: ~2–4 minutes cold on 2 cores, ~1.8 GB. */
export async function tensorflowImage(dir: string, progress: Progress, version = TENSORFLOW_VERSION): Promise<BuiltImage> {
  const base = await debianBase(dir, PYTHON_BASE, progress);
  return cached(
    dir,
    `tensorflow-${version}`,
    key(SELF, version, path.basename(base)),
    async (rootfs) => {
      await extractBase(base, rootfs);
      // PyPI may be reached through a TLS-intercepting proxy: the chroot trusts what the host trusts.
      const hostCa = '/etc/ssl/certs/ca-certificates.crt';
      const ca = path.join(rootfs, 'etc', 'ssl', 'host-ca.crt');
      if (existsSync(hostCa)) copyFileSync(hostCa, ca);
      copyFileSync('/etc/resolv.conf', path.join(rootfs, 'etc', 'resolv.conf'));
      const env = ['PATH=/usr/bin:/bin', 'HOME=/root', 'PIP_DISABLE_PIP_VERSION_CHECK=1', 'PIP_DEFAULT_TIMEOUT=180', 'PIP_NO_CACHE_DIR=1'];
      if (existsSync(hostCa)) env.push('PIP_CERT=/etc/ssl/host-ca.crt');
      for (const name of [
        'PIP_INDEX_URL',
        'PIP_EXTRA_INDEX_URL',
        'PIP_TRUSTED_HOST',
        'HTTPS_PROXY',
        'HTTP_PROXY',
        'https_proxy',
        'http_proxy',
      ]) {
        const value = process.env[name];
        if (value !== undefined) env.push(`${name}=${value}`);
      }
      await run('chroot', [rootfs, 'python3', '-m', 'venv', '/opt/venv']);
      progress(`[real-node]   pip install tensorflow-cpu==${version}`);
      await run('chroot', [rootfs, 'env', '-i', ...env, '/opt/venv/bin/pip', 'install', '-q', `tensorflow-cpu==${version}`], {
        timeoutMs: 1_200_000,
      });
      await run('chroot', [rootfs, '/opt/venv/bin/python', '-c', 'import tensorflow as tf; print(tf.__version__)']);
      for (const junk of ['var/lib/apt/lists', 'var/cache/apt', 'usr/share/doc', 'usr/share/man', 'usr/share/locale']) {
        rmSync(path.join(rootfs, junk), { recursive: true, force: true });
      }
      rmSync(ca, { force: true });
      writeFileSync(path.join(rootfs, 'etc', 'resolv.conf'), '');
      return {
        reference: tensorflowImageReference(version),
        cmd: ['python3'],
        env: [
          'PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
          'PYTHONUNBUFFERED=1',
          'TF_CPP_MIN_LOG_LEVEL=1',
        ],
      };
    },
    progress,
  );
}
