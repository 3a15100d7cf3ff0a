// A real headless browser for the dashboard's tests: Debian's Chromium, installed with apt-get when it
// is missing (root, as on this project's machines and CI), driven by playwright-core. Playwright's own
// browser downloads are never used. Without root and without Chromium the tests are skipped with the
// reason printed; CI=true (or TFJOB_BROWSER_REQUIRED=1) makes that an error.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type BrowserContext } from 'playwright-core';

const run = promisify(execFile);
export const CHROMIUM = '/usr/bin/chromium';

const required = () => process.env.TFJOB_BROWSER_REQUIRED === '1' || process.env.CI === 'true';

/** Installs Chromium if needed; returns why the browser tests cannot run here, or undefined. */
export async function ensureChromium(): Promise<string | undefined> {
  if (existsSync(CHROMIUM)) return undefined;
  let problem: string | undefined;
  if (process.getuid?.() !== 0) problem = `${CHROMIUM} is missing and installing it needs root (apt-get install chromium)`;
  else {
    process.stderr.write('[dashboard] installing chromium with apt-get\n');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    try {
      await run('apt-get', ['update', '-q'], { env, timeout: 300_000 });
      await run('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'chromium'], { env, timeout: 600_000 });
    } catch (err) {
      problem = `apt-get install chromium failed: ${(err as Error).message}`;
    }
    if (problem === undefined && !existsSync(CHROMIUM)) problem = `apt-get installed chromium but ${CHROMIUM} is not there`;
  }
  if (problem === undefined) return undefined;
  const line = '='.repeat(100);
  process.stderr.write(`${line}\n[dashboard] SKIPPED: the browser tests did not run because ${problem}.\n${line}\n`);
  if (required()) throw new Error(`browser tests required but ${problem}`);
  return problem;
}

export interface TestBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<TestBrowser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'tfjob-chromium-'));
  // A fresh profile each run (Playwright takes it as the persistent context's directory).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 900 },
    // Quiet and offline: no first-run, sync, component updates or background requests.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 120_000,
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
