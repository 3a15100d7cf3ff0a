// Debian bookworm minbase root file systems as tars, made once with debootstrap from the host's apt
// mirror and cached by recipe: the operator image starts from the bare one (what node:24-slim is built
// on), both TensorFlow images from the one with python3 (debootstrap runs once for the two).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run, unmountUnder } from './exec.ts';
import { debianMirror } from './host.ts';

export const DEBIAN_SUITE = 'bookworm';

/** What slim images leave out; the recipe below is part of every base's cache key. */
const BASE_JUNK = ['var/lib/apt/lists', 'var/cache/apt', 'var/log', 'usr/share/doc', 'usr/share/man', 'usr/share/info', 'usr/share/locale'];
const BASE_RECIPE = 'debootstrap --variant=minbase --include=PACKAGES; rm BASE_JUNK; empty resolv.conf';

export interface DebianBase {
  /** The tar's file name prefix in the cache directory. */
  readonly name: string;
  /** Packages on top of minbase (`--include`). */
  readonly include: readonly string[];
}

export const MINBASE: DebianBase = { name: 'debian-minbase', include: [] };
export const PYTHON_BASE: DebianBase = { name: 'debian-python', include: ['python3', 'python3-venv', 'ca-certificates'] };

/** The base as a tar in `dir` (45–110 s the first time, then cached); extract it with extractBase. */
export async function debianBase(dir: string, base: DebianBase, progress: (line: string) => void): Promise<string> {
  const mirror = debianMirror();
  const key = createHash('sha256')
    .update(JSON.stringify([BASE_RECIPE, DEBIAN_SUITE, mirror, BASE_JUNK, base.include]))
    .digest('hex')
    .slice(0, 12);
  mkdirSync(dir, { recursive: true });
  const tar = path.join(dir, `${base.name}-${key}.tar`);
  if (existsSync(tar)) return tar;
  for (const f of readdirSync(dir)) if (f.startsWith(`${base.name}-`)) rmSync(path.join(dir, f), { recursive: true, force: true });
  const rootfs = path.join(dir, `${base.name}-${key}.rootfs`);
  const started = Date.now();
  progress(`[real-node] debootstrap --variant=minbase ${DEBIAN_SUITE} (${base.name}) from ${mirror}`);
  try {
    const include = base.include.length > 0 ? [`--include=${base.include.join(',')}`] : [];
    await run('debootstrap', ['--variant=minbase', ...include, DEBIAN_SUITE, rootfs, mirror], { timeoutMs: 900_000 });
    // debootstrap mounts /proc there while it configures packages: never pack (or remove) a mount.
    const left = await unmountUnder(rootfs);
    if (left.length > 0) throw new Error(`mounts left under ${rootfs}: ${left.join(', ')}`);
    for (const junk of BASE_JUNK) rmSync(path.join(rootfs, junk), { recursive: true, force: true });
    for (const d of ['var/lib/apt/lists/partial', 'var/cache/apt/archives/partial', 'var/log'])
      mkdirSync(path.join(rootfs, d), { recursive: true });
    writeFileSync(path.join(rootfs, 'etc', 'resolv.conf'), '');
    await run('tar', ['-C', rootfs, '--numeric-owner', '--xattrs', '-cf', `${tar}.partial`, '.'], { timeoutMs: 600_000 });
    renameSync(`${tar}.partial`, tar);
    progress(`[real-node] ${base.name} built in ${Math.round((Date.now() - started) / 1000)} s`);
    return tar;
  } finally {
    if ((await unmountUnder(rootfs)).length === 0) rmSync(rootfs, { recursive: true, force: true });
  }
}

/** Unpacks a base tar into `rootfs` (owners and xattrs as packed). */
export async function extractBase(tar: string, rootfs: string): Promise<void> {
  mkdirSync(rootfs, { recursive: true });
  await run('tar', ['-C', rootfs, '--numeric-owner', '--xattrs', '-xf', tar], { timeoutMs: 300_000 });
}
