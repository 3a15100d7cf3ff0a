// The dashboard from the build, laid out as the operator image is (package.json, production
// node_modules, dist/; no src/): `npm run build` must carry the page next to the compiled code, and
// `node dist/cli/main.js dashboard` must serve it, with uPlot, against the local control plane. A
// build without the page refuses to start and says what is missing.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../lab/local-cluster/index.ts';
import { ensureChromium, launchChromium } from '../../support/browser.ts';
import { clusterState, createNamespace, deleteNamespace } from '../../support/kube.ts';
import { createTFJob, elasticJob } from '../../support/tfjob.ts';

const skipped = await ensureChromium();

interface Finished {
  readonly code: number | null;
  readonly output: string;
}

function start(
  command: string,
  args: readonly string[],
  cwd: string,
): { child: ChildProcess; output: () => string; done: Promise<Finished> } {
  const child = spawn(command, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' } });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  const done = new Promise<Finished>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, output });
    });
  });
  return { child, output: () => output, done };
}

/** Top-level production packages of package-lock.json: what the image's `npm ci --omit=dev` installs. */
function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  return Object.entries(lock.packages)
    .filter(([key, meta]) => key.startsWith('node_modules/') && !key.slice(13).includes('/node_modules/') && meta.dev !== true)
    .map(([key]) => key.slice(13));
}

/** Waits for the printed address; the process's output on failure. */
async function printedUrl(proc: ReturnType<typeof start>): Promise<string> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const m = /TFJob dashboard: (http:\/\/\S+)/.exec(proc.output());
    if (m !== null) return m[1]!;
    if (proc.child.exitCode !== null || Date.now() > deadline) throw new Error(`no dashboard address printed:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.skipIf(skipped !== undefined)('the dashboard from the build (the image layout)', () => {
  let dir: string;
  let ns = '';

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tfjob-dashboard-dist-'));
    for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json']) copyFileSync(path.join(REPO_ROOT, f), path.join(dir, f));
    symlinkSync(path.join(REPO_ROOT, 'src'), path.join(dir, 'src'));
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    const build = await start('npm', ['run', 'build'], dir).done;
    expect(build.code, build.output).toBe(0);
    // The runtime stage: no sources, production dependencies only.
    unlinkSync(path.join(dir, 'src'));
    unlinkSync(path.join(dir, 'node_modules'));
    for (const pkg of productionPackages()) {
      const source = path.join(REPO_ROOT, 'node_modules', pkg);
      if (!existsSync(source)) continue; // an optional dependency not installed on this platform
      mkdirSync(path.dirname(path.join(dir, 'node_modules', pkg)), { recursive: true });
      symlinkSync(source, path.join(dir, 'node_modules', pkg));
    }
    ns = await createNamespace('dash-dist');
    await createTFJob(ns, elasticJob('from-dist', { worker: { cpu: '1' }, min: 1, max: 2 }));
  });

  afterAll(async () => {
    if (ns !== '') await deleteNamespace(ns).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('`node dist/cli/main.js dashboard` serves the page, its scripts and uPlot, and the page shows the jobs', async () => {
    const proc = start(
      process.execPath,
      ['dist/cli/main.js', 'dashboard', '--kubeconfig', clusterState().kubeconfig, '--namespace', ns],
      dir,
    );
    const browser = await launchChromium();
    try {
      const url = await printedUrl(proc);
      const page = await browser.context.newPage();
      const failed: string[] = [];
      page.on('response', (r) => {
        if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
      });
      await page.goto(url);
      await page.waitForSelector('#live[data-state="live"]', { timeout: 60_000 });
      await page.goto(`${new URL(page.url()).origin}/#/jobs`);
      await page.waitForSelector(`[data-job="${ns}/from-dist"]`, { timeout: 60_000 });
      // uPlot came from the production node_modules (the job view draws with it).
      expect(await page.evaluate('typeof uPlot')).toBe('function');
      expect(failed).toEqual([]);
    } finally {
      await browser.close();
      proc.child.kill('SIGTERM');
    }
    expect((await proc.done).code, proc.output()).toBe(0);
  });

  it('refuses to start from a build without the page, saying what is missing', async () => {
    const web = path.join(dir, 'dist', 'dashboard', 'web');
    renameSync(web, `${web}.away`);
    try {
      const res = await start(process.execPath, ['dist/cli/main.js', 'dashboard', '--kubeconfig', clusterState().kubeconfig], dir).done;
      expect(res.code).toBe(1);
      expect(res.output).toContain("the dashboard's page is missing");
      expect(res.output).toContain(path.join('dashboard', 'web', 'index.html'));
    } finally {
      renameSync(`${web}.away`, web);
    }
  });
});
