// Benchmark (not a test), docs/dashboard.md "Scale": what the dashboard costs with many TFJobs. Against
// a real apiserver (no operator, no nodes: the jobs only have to exist), it creates N TFJobs (one in
// ten with an odd status written through the status subresource, the rest with none), starts the
// dashboard in this process, opens the jobs view in headless Chromium and measures:
//   - the dashboard's RSS growth and CPU time from its start until the page lists every job,
//   - time from opening the page until the list reads "N of N TFJobs",
//   - the page's JS heap (CDP Performance.getMetrics) and the rows in the DOM (virtualised),
//   - time for a scroll to the end until the last job's row is drawn.
//
//   node bench/dashboard-scale.ts [--jobs 500,2000] [--out DIR]
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { LocalCluster } from '../lab/local-cluster/index.ts';
import { installCrd } from '../lab/local-cluster/crd.ts';
import { startDashboard } from '../src/dashboard/index.ts';
import { createLogger } from '../src/runtime/logger.ts';
import { ensureChromium, launchChromium } from '../test/support/browser.ts';
import { cliArgs } from './lib/args.ts';
import { header, resultDir, writeJson, writeText } from './lib/results.ts';
import { round } from './lib/stats.ts';
import { createNamespace, driverClients, pool, simpleTfjob, tfjobsPath } from './lib/workload.ts';

const NAMESPACE = 'dash-scale';
const SHAPE = { workers: 2, ps: { cpu: '1', memory: '1Gi' }, worker: { cpu: '1', memory: '1Gi' } };
/** Valid for the CRD's schema, odd for a reader: an unknown condition, an empty replica map, no times. */
const ODD_STATUS = { conditions: [{ type: 'Weird', status: 'Unknown' }], replicaStatuses: {} };
const MIB = 1024 * 1024;

interface Row {
  jobs: number;
  dashboardRssMiB: number;
  dashboardCpuSeconds: number;
  pageListedSeconds: number;
  pageHeapMiB: number;
  rowsInDom: number;
  scrollToEndSeconds: number;
}

const { values } = parseArgs({ args: cliArgs(), options: { jobs: { type: 'string', default: '500,2000' }, out: { type: 'string' } } });
const sizes = values.jobs.split(',').map(Number);
const names = (n: number) => Array.from({ length: n }, (_, i) => `job-${String(i).padStart(5, '0')}`);

async function measure(n: number): Promise<Row> {
  const cluster = await LocalCluster.start({ onProgress: () => undefined });
  try {
    const kc = cluster.kubeConfig();
    const clients = driverClients(kc);
    await installCrd(kc);
    await createNamespace(clients, NAMESPACE);
    await pool(names(n), 32, (name) => clients.request('POST', tfjobsPath(NAMESPACE), simpleTfjob(name, NAMESPACE, SHAPE)));
    const odd = names(n).filter((_, i) => i % 10 === 0);
    await pool(odd, 32, (name) =>
      clients.request('PATCH', `${tfjobsPath(NAMESPACE)}/${name}/status`, { status: ODD_STATUS }, 'application/merge-patch+json'),
    );
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const cpuBefore = process.cpuUsage();
    const dashboard = await startDashboard({ kubeConfig: kc, logger: createLogger({ level: 'silent' }), namespaces: [NAMESPACE], port: 0 });
    const browser = await launchChromium();
    try {
      const page = await browser.context.newPage();
      const opened = performance.now();
      await page.goto(dashboard.url); // the token becomes a cookie
      await page.goto(`${new URL(page.url()).origin}/#/jobs`);
      await page.waitForFunction(`document.querySelector('[data-testid="job-count"]')?.textContent === '${n} of ${n} TFJobs'`, undefined, {
        timeout: 300_000,
      });
      const listed = (performance.now() - opened) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const rss = process.memoryUsage().rss;
      const cdp = await browser.context.newCDPSession(page);
      await cdp.send('Performance.enable');
      const metrics = (await cdp.send('Performance.getMetrics')).metrics;
      const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? Number.NaN;
      const rowsInDom = await page.locator('[data-testid="jobs"] [data-job]').count();
      const last = `${NAMESPACE}/${names(n).at(-1) ?? ''}`;
      const scrolled = performance.now();
      // A string: the benchmark's TypeScript has no DOM types.
      await page.evaluate(`(() => { const s = document.querySelector('[data-testid="jobs"]'); s.scrollTop = s.scrollHeight; })()`);
      await page.waitForSelector(`[data-job="${last}"]`, { timeout: 60_000 });
      const scrollToEnd = (performance.now() - scrolled) / 1000;
      return {
        jobs: n,
        dashboardRssMiB: round((rss - rssBefore) / MIB, 1),
        dashboardCpuSeconds: round((cpu.user + cpu.system) / 1e6, 2),
        pageListedSeconds: round(listed, 2),
        pageHeapMiB: round(heap / MIB, 1),
        rowsInDom,
        scrollToEndSeconds: round(scrollToEnd, 3),
      };
    } finally {
      await browser.close();
      await dashboard.stop();
    }
  } finally {
    await cluster.stop();
  }
}

const problem = await ensureChromium();
if (problem !== undefined) throw new Error(`the benchmark needs Chromium: ${problem}`);
const startedAt = new Date();
const rows: Row[] = [];
for (const n of sizes) {
  process.stderr.write(`[dashboard-scale] ${n} jobs\n`);
  rows.push(await measure(n));
}
// Small results only: bench/results keeps at most 20 files, so the default is a scratch directory.
const dir = resultDir(values.out ?? path.join(os.tmpdir(), 'dashboard-scale'));
writeJson(path.join(dir, 'dashboard-scale.json'), { ...header('dashboard-scale/v1', startedAt), loadAverage: os.loadavg(), rows });
const table = [
  '| TFJobs | dashboard RSS growth (MiB) | dashboard CPU (s) until listed | page listed all (s) | page JS heap (MiB) | rows in DOM | scroll to end (s) |',
  '|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.jobs} | ${r.dashboardRssMiB} | ${r.dashboardCpuSeconds} | ${r.pageListedSeconds} | ${r.pageHeapMiB} | ${r.rowsInDom} | ${r.scrollToEndSeconds} |`,
  ),
].join('\n');
writeText(path.join(dir, 'dashboard-scale.md'), `${table}\n`);
process.stdout.write(
  `${table}\n\nload average at the end: ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}\n`,
);
