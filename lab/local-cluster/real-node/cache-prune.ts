// The real node's cache keeps what the current tree uses. Each image is cached under a key of what
// shapes it, and a rebuild replaces its own older builds; but an image whose version is part of its
// name (tensorflow-2.20.0 after the bump to 2.21.0) and the containerd store's old references were
// never removed, so the cache grew with every version (20 GB seen). These pure selections say what
// to remove; the callers remove it and log each removal.
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from './exec.ts';

/** `tensorflow-2.21.0-0123456789ab.tar.ref` → stem `tensorflow-2.21.0-0123456789ab`, image `tensorflow-2.21.0`. */
const CACHE_FILE = /^(?<image>.+)-(?<key>[0-9a-f]{12})(?:\.tar|\.tar\.ref|\.tar\.partial|\.rootfs|\.work)$/;

/** An image name without a trailing version: `tensorflow-2.21.0` → `tensorflow`. */
function family(image: string): string {
  return image.replace(/-\d+(\.\d+)*$/, '');
}

function parse(file: string): { image: string; stem: string; family: string } | undefined {
  const m = CACHE_FILE.exec(file);
  if (m?.groups === undefined) return undefined;
  const image = m.groups.image ?? '';
  return { image, stem: `${image}-${m.groups.key ?? ''}`, family: family(image) };
}

/**
 * Files of the image directory to remove: those of an image family built this run (by its archives,
 * e.g. `tensorflow-2.21.0-<key>.tar`) that are no build in use. `otherImagesInUse` names images the
 * tree uses that this run did not build (`tensorflow-2.15.1` on a run with the current version
 * alone): their builds are kept. Families not built this run (the operator image, the Debian bases,
 * which replace their own older builds) and files of other shapes are kept.
 */
export function staleImageFiles(
  files: readonly string[],
  archivesInUse: readonly string[],
  otherImagesInUse: readonly string[] = [],
): string[] {
  const inUse = archivesInUse.map((a) => parse(path.basename(a))).filter((p) => p !== undefined);
  const stems = new Set(inUse.map((p) => p.stem));
  const built = new Set(inUse.map((p) => p.image));
  const families = new Set(inUse.map((p) => p.family));
  const others = new Set(otherImagesInUse.filter((i) => !built.has(i)));
  return files.filter((f) => {
    const p = parse(f);
    return p !== undefined && families.has(p.family) && !stems.has(p.stem) && !others.has(p.image);
  });
}

/** `docker.io/local/tensorflow-cpu:2.21.0` → `docker.io/local/tensorflow-cpu`. */
function repository(reference: string): string {
  const at = reference.lastIndexOf(':');
  return at > reference.lastIndexOf('/') ? reference.slice(0, at) : reference;
}

/** One line of `ctr images ls`: the reference and the digest of its target (the manifest). */
export interface StoredImage {
  readonly reference: string;
  readonly digest: string;
}

const IMAGE_ID = /^sha256:[0-9a-f]{64}$/;

/**
 * References in containerd's store to remove: other tags of a repository the current tree imports,
 * and the image-ID references (`sha256:<id>`, which the CRI plugin adds beside each name) whose target
 * no named reference that stays has. The ID references of replaced builds otherwise keep their
 * layers alive for ever. Other repositories' images and their IDs are kept.
 */
export function staleImageReferences(present: readonly StoredImage[], inUse: readonly string[]): string[] {
  const wanted = new Set(inUse);
  const repositories = new Set(inUse.map(repository));
  const named = present.filter((i) => i.reference !== '' && !IMAGE_ID.test(i.reference));
  const staleNames = named.filter((i) => !wanted.has(i.reference) && repositories.has(repository(i.reference)));
  const kept = new Set(named.filter((i) => !staleNames.includes(i)).map((i) => i.digest));
  const staleIds = present.filter((i) => IMAGE_ID.test(i.reference) && !kept.has(i.digest));
  return [...staleNames, ...staleIds].map((i) => i.reference);
}

/** `ctr images ls` output: REF TYPE DIGEST SIZE PLATFORMS LABELS, one image a line after the header. */
export function parseImageList(output: string): StoredImage[] {
  return output
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 3 && cols[0] !== '')
    .map((cols) => ({ reference: cols[0] ?? '', digest: cols[2] ?? '' }));
}

function sizeOf(file: string): number {
  const s = statSync(file);
  if (!s.isDirectory()) return s.size;
  return readdirSync(file).reduce((sum, f) => sum + sizeOf(path.join(file, f)), 0);
}

/** Removes the image directory's stale files; says what it removed and how much room that freed. */
export function pruneImageFiles(
  dir: string,
  archivesInUse: readonly string[],
  otherImagesInUse: readonly string[],
  progress: (line: string) => void,
): string[] {
  if (!existsSync(dir)) return [];
  const stale = staleImageFiles(readdirSync(dir), archivesInUse, otherImagesInUse);
  for (const f of stale) {
    const bytes = sizeOf(path.join(dir, f));
    rmSync(path.join(dir, f), { recursive: true, force: true });
    progress(`[real-node] cache: removed ${f} (${Math.round(bytes / 2 ** 20)} MiB; not used by this tree)`);
  }
  return stale;
}

/** Removes stale references from containerd's store (its garbage collector then frees their content). */
export async function pruneImageReferences(
  socket: string,
  namespace: string,
  stampFile: string,
  inUse: readonly string[],
  progress: (line: string) => void,
): Promise<string[]> {
  const present = parseImageList((await run('ctr', ['-a', socket, '-n', namespace, 'images', 'ls'])).output);
  const stale = staleImageReferences(present, inUse);
  if (stale.length === 0) return [];
  await run('ctr', ['-a', socket, '-n', namespace, 'images', 'rm', '--sync', ...stale], { timeoutMs: 300_000 });
  if (existsSync(stampFile)) {
    const stamps = JSON.parse(readFileSync(stampFile, 'utf8')) as Record<string, string>;
    const kept = Object.fromEntries(Object.entries(stamps).filter(([r]) => !stale.includes(r)));
    writeFileSync(stampFile, JSON.stringify(kept, null, 1));
  }
  for (const r of stale) progress(`[real-node] cache: removed image ${r} from containerd (not used by this tree)`);
  return stale;
}
