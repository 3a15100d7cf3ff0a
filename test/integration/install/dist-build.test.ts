// What the Dockerfile's stages do, without a container engine: `npm run build` (tsc with
// tsconfig.build.json) into a fresh directory, next to a node_modules holding only the production
// dependencies of package-lock.json (the runtime stage's `npm ci --omit=dev`), then the image's
// entrypoint `node dist/cli/main.js run`: --help lists every option, and a real start against the
// test cluster becomes ready and stops gracefully on SIGTERM.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../lab/local-cluster/index.ts';
import { freePorts } from '../../../lab/local-cluster/ports.ts';
import { OPTIONS } from '../../../src/operator/config.ts';
import { clusterState, createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import type { CommandResult } from './helpers.ts';

function run(args: readonly string[], opts: { cwd: string; timeoutMs?: number }): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 240_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

/** Top-level production packages of package-lock.json (nested ones live inside their parents). */
function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(
      ([key, meta]) =>
        key.startsWith('node_modules/') && !key.slice('node_modules/'.length).includes('/node_modules/') && meta.dev !== true,
    )
    .map(([key]) => key.slice('node_modules/'.length));
}

describe('the production build (what the Dockerfile runs)', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tfjob-dist-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('compiles with tsconfig.build.json', async () => {
    const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const res = await run([tsc, '-p', 'tsconfig.build.json', '--outDir', path.join(dir, 'dist')], { cwd: REPO_ROOT });
    expect(res.code, res.stdout + res.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'dist', 'cli', 'main.js'))).toBe(true);
    // The runtime stage: package.json (ESM) and production dependencies only.
    copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(dir, 'package.json'));
    for (const pkg of productionPackages()) {
      const source = path.join(REPO_ROOT, 'node_modules', pkg);
      if (!existsSync(source)) continue; // an optional dependency not installed on this platform
      mkdirSync(path.dirname(path.join(dir, 'node_modules', pkg)), { recursive: true });
      symlinkSync(source, path.join(dir, 'node_modules', pkg));
    }
    expect(existsSync(path.join(dir, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(path.join(dir, 'node_modules', '@kubernetes', 'client-node'))).toBe(true);
  });

  it('`run --help` lists every option with its default', async () => {
    const res = await run(['dist/cli/main.js', 'run', '--help'], { cwd: dir, timeoutMs: 60_000 });
    expect(res.code, res.stderr).toBe(0);
    for (const o of OPTIONS) {
      const line = res.stdout.split('\n').find((l) => l.trimStart().startsWith(`--${o.flag} `));
      expect(line, o.flag).toBeDefined();
      const def = Array.isArray(o.default) ? o.default.join(',') : String(o.default);
      expect(line).toContain(`(default: ${def === '' ? '""' : def})`);
      if ('env' in o) expect(line).toContain(`[env ${o.env}]`);
    }
  });

  it('starts against a cluster, becomes ready, and exits 0 on SIGTERM', async () => {
    const ns = await createNamespace('dist');
    const [metrics, health] = (await freePorts(2)) as [number, number];
    const child = spawn(
      process.execPath,
      [
        'dist/cli/main.js',
        'run',
        '--kubeconfig',
        clusterState().kubeconfig,
        '--namespace',
        ns,
        '--policy',
        'tf-operator',
        '--metrics-bind-address',
        `127.0.0.1:${metrics}`,
        '--health-probe-bind-address',
        `127.0.0.1:${health}`,
      ],
      { cwd: dir, env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let logs = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (logs += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (logs += c));
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => {
        resolve(code);
      }),
    );
    try {
      await eventually(async () => (await fetch(`http://127.0.0.1:${health}/readyz`)).status === 200, {
        timeoutMs: 60_000,
        what: `the built operator ready\n${logs}`,
      });
      expect(await (await fetch(`http://127.0.0.1:${metrics}/metrics`)).text()).toContain('controller_runtime_reconcile_total');
      child.kill('SIGTERM');
      expect(await exited, logs).toBe(0);
    } finally {
      child.kill('SIGKILL');
      await deleteNamespace(ns);
    }
  });
});
