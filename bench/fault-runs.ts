// Repeated fault runs (not a test), docs/reliability.md "Repeated fault runs": runs fault test
// files of test/integration/faults/ again and again (each run its own vitest process with its own
// control plane, up to --parallel at once), collects each run's [fault-report] line (the violations
// with their forensics), samples the load average, and prints one summary: runs, passes,
// over-commits (each with its forensics header), other violations, load average.
//
//   node bench/fault-runs.ts [--file operator-kill=50 --file load=5 ...] [--parallel 2]
//                            [--until 22:35] [--out DIR] [--seed N]
//
// --file NAME=COUNT: run test/integration/faults/NAME.test.ts COUNT times (runs of the files are
// interleaved); --until HH:MM (UTC): start no run after that time; --seed: FAULT_SEED for every run
// (default: each file's own seed, the one CI uses).
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { untilDeadline } from './lib/args.ts';

interface Violation {
  readonly kind: string;
  readonly message: string;
}

interface FaultReport {
  readonly scenario: string;
  readonly seed: number;
  readonly succeeded: number;
  readonly jobs: number;
  readonly violations: readonly Violation[];
  readonly seconds: number;
}

interface RunResult {
  readonly index: number;
  readonly file: string;
  readonly exitCode: number | null;
  readonly seconds: number;
  readonly startedAt: string;
  readonly reports: readonly FaultReport[];
  readonly log: string;
}

const { values } = parseArgs({
  options: {
    file: { type: 'string', multiple: true, default: ['operator-kill=50'] },
    parallel: { type: 'string', default: '2' },
    until: { type: 'string' },
    out: { type: 'string' },
    seed: { type: 'string' },
  },
});

const root = path.resolve(import.meta.dirname, '..');
const outDir = values.out ?? path.join(os.tmpdir(), `fault-runs-${new Date().toISOString().replace(/[:.]/g, '-')}`);
mkdirSync(outDir, { recursive: true });

/** The runs to make, interleaved so that every file is run under the same conditions over time. */
function plannedRuns(specs: readonly string[]): string[] {
  const wanted = specs.map((s) => {
    const [name, count] = s.split('=');
    const file = `test/integration/faults/${name}.test.ts`;
    if (!existsSync(path.join(root, file))) throw new Error(`no fault test file ${file}`);
    const n = Number(count ?? '1');
    if (!Number.isInteger(n) || n < 1) throw new Error(`--file ${s}: the count must be a positive integer`);
    return { file, n };
  });
  const total = wanted.reduce((a, w) => a + w.n, 0);
  const runs: { file: string; at: number }[] = [];
  for (const w of wanted) for (let i = 0; i < w.n; i++) runs.push({ file: w.file, at: (i + 0.5) / w.n });
  runs.sort((a, b) => a.at - b.at);
  if (runs.length !== total) throw new Error('internal: planned run count');
  return runs.map((r) => r.file);
}

function parseReports(file: string): FaultReport[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('[fault-report] '))
    .map((l) => JSON.parse(l.slice('[fault-report] '.length)) as FaultReport);
}

function runOnce(index: number, file: string): Promise<RunResult> {
  const base = path.join(outDir, `run-${String(index).padStart(3, '0')}-${path.basename(file, '.test.ts')}`);
  const reportFile = `${base}.jsonl`;
  const log = `${base}.log`;
  const started = Date.now();
  const env: NodeJS.ProcessEnv = { ...process.env, FAULT_REPORT_FILE: reportFile };
  if (values.seed !== undefined) env.FAULT_SEED = values.seed;
  return new Promise((resolve) => {
    const child = spawn(path.join(root, 'hack/dev'), ['test:integration', file], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (b: Buffer) => {
      appendFileSync(log, b);
    });
    child.stderr.on('data', (b: Buffer) => {
      appendFileSync(log, b);
    });
    child.on('close', (code) => {
      resolve({
        index,
        file,
        exitCode: code,
        seconds: Math.round((Date.now() - started) / 1000),
        startedAt: new Date(started).toISOString(),
        reports: parseReports(reportFile),
        log,
      });
    });
  });
}

function loadSampler(): { stop(): { samples: number; min: number; mean: number; max: number } } {
  const loads: number[] = [];
  const sample = () => loads.push(Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]));
  sample();
  const timer = setInterval(sample, 10_000);
  return {
    stop() {
      clearInterval(timer);
      const mean = loads.reduce((a, b) => a + b, 0) / loads.length;
      return { samples: loads.length, min: Math.min(...loads), mean: Math.round(mean * 100) / 100, max: Math.max(...loads) };
    },
  };
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? '';
}

async function main(): Promise<void> {
  const queue = plannedRuns(values.file);
  const parallel = Number(values.parallel);
  const stopAt = untilDeadline(values.until);
  const load = loadSampler();
  const results: RunResult[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < queue.length && (stopAt === undefined || Date.now() < stopAt)) {
      const index = next++;
      const r = await runOnce(index, queue[index]!);
      results.push(r);
      const v = r.reports.flatMap((x) => x.violations);
      process.stdout.write(
        `[run ${r.index}] ${path.basename(r.file)} exit ${r.exitCode} ${r.seconds}s violations ${v.length}${v.length > 0 ? `: ${v.map((x) => firstLine(x.message)).join(' | ')}` : ''} (load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})\n`,
      );
      writeFileSync(path.join(outDir, 'results.json'), JSON.stringify(results, null, 2));
    }
  };
  await Promise.all(Array.from({ length: parallel }, () => worker()));
  const loadSummary = load.stop();
  printSummary(results, loadSummary, queue.length);
}

function printSummary(results: readonly RunResult[], load: ReturnType<ReturnType<typeof loadSampler>['stop']>, planned: number): void {
  const lines: string[] = [];
  lines.push(`fault runs: ${results.length} of ${planned} planned, --parallel ${values.parallel}, output ${outDir}`);
  lines.push(
    `load average (1 min, sampled every 10 s, ${load.samples} samples): min ${load.min}, mean ${load.mean}, max ${load.max}; ${os.cpus().length} cpus`,
  );
  const files = [...new Set(results.map((r) => r.file))];
  for (const file of files) {
    const rs = results.filter((r) => r.file === file);
    const passes = rs.filter((r) => r.exitCode === 0).length;
    const violations = rs.flatMap((r) => r.reports.flatMap((x) => x.violations));
    const over = violations.filter((v) => v.kind === 'overcommitted-node').length;
    const noReport = rs.filter((r) => r.reports.length === 0).length;
    const secs = rs.map((r) => r.seconds);
    lines.push(
      `${path.basename(file)}: runs ${rs.length}, passes ${passes}, over-commits ${over}, other violations ${violations.length - over}, runs without a report ${noReport}, seconds ${Math.min(...secs)}–${Math.max(...secs)}`,
    );
  }
  for (const r of results) {
    if (r.exitCode === 0) continue;
    lines.push(`failed: run ${r.index} ${path.basename(r.file)} exit ${r.exitCode} (log ${r.log})`);
    for (const v of r.reports.flatMap((x) => x.violations)) lines.push(`  ${v.kind}: ${v.message.split('\n').slice(0, 3).join(' / ')}`);
  }
  const text = `${lines.join('\n')}\n`;
  process.stdout.write(text);
  writeFileSync(path.join(outDir, 'summary.txt'), text);
}

await main();
