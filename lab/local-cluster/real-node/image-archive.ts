// A one-layer image in `docker save` format (manifest.json + config + layer tar), which
// `ctr images import` loads: how the real node gets images without a registry or a Docker engine.
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from './exec.ts';

export interface ImageConfig {
  /** e.g. `docker.io/local/pause:3.10`: containerd's name, which pods must use verbatim. */
  readonly reference: string;
  readonly entrypoint?: readonly string[];
  readonly cmd?: readonly string[];
  readonly env?: readonly string[];
  readonly workingDir?: string;
  /** `uid:gid` the image runs as (the Dockerfile's USER). */
  readonly user?: string;
}

const DEFAULT_PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Packs `rootfs` into `out` (atomically: a partial archive is never left under the final name). */
export async function writeImageArchive(rootfs: string, out: string, image: ImageConfig): Promise<void> {
  const stage = `${out}.stage`;
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  try {
    // GNU tar keeps owners, modes, links and device nodes; numeric owners need no name maps.
    await run('tar', ['-C', rootfs, '--numeric-owner', '--xattrs', '-cf', path.join(stage, 'layer.tar'), '.'], { timeoutMs: 900_000 });
    const diffId = `sha256:${await sha256File(path.join(stage, 'layer.tar'))}`;
    const epoch = '1970-01-01T00:00:00Z';
    const config = JSON.stringify({
      architecture: process.arch === 'arm64' ? 'arm64' : 'amd64',
      os: 'linux',
      created: epoch,
      config: {
        Env: image.env ?? [DEFAULT_PATH],
        Entrypoint: image.entrypoint ?? null,
        Cmd: image.cmd ?? null,
        WorkingDir: image.workingDir ?? '/',
        ...(image.user === undefined ? {} : { User: image.user }),
      },
      rootfs: { type: 'layers', diff_ids: [diffId] },
      history: [{ created: epoch, created_by: 'tfjob-operator real-node image builder' }],
    });
    const configName = `${createHash('sha256').update(config).digest('hex')}.json`;
    writeFileSync(path.join(stage, configName), config);
    writeFileSync(
      path.join(stage, 'manifest.json'),
      JSON.stringify([{ Config: configName, RepoTags: [image.reference], Layers: ['layer.tar'] }]),
    );
    const partial = `${out}.partial`;
    await run('tar', ['-C', stage, '-cf', partial, 'manifest.json', configName, 'layer.tar'], { timeoutMs: 900_000 });
    renameSync(partial, out);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
