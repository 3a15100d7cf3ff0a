// Where benchmark results go and what every result document carries: a schema name and version (so
// docs/benchmarks.md and later tooling know what they read), the parameters, the machine, and the
// source revision the numbers were measured on (a dirty tree is listed, since the working tree is
// shared with other engineers).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../lab/local-cluster/index.ts';
import { cliArgs } from './args.ts';

export const SCHEMA_PREFIX = 'tfjob-operator.kubeflow.org/bench';

export interface MachineInfo {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly memoryBytes: number;
  readonly node: string;
  readonly platform: string;
  readonly kernel: string;
  /** 1/5/15-minute load averages when the benchmark started: other work on the same cores. */
  readonly loadAverage: readonly number[];
}

export function machineInfo(): MachineInfo {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryBytes: os.totalmem(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    kernel: os.release(),
    loadAverage: os.loadavg().map((l) => Number(l.toFixed(2))),
  };
}

export interface SourceInfo {
  readonly commit: string;
  /** Files under src/ that differ from the commit when the benchmark ran (empty = clean). */
  readonly dirty: readonly string[];
}

export function sourceInfo(): SourceInfo {
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' });
    } catch {
      return '';
    }
  };
  return {
    commit: git('rev-parse', 'HEAD').trim(),
    dirty: git('status', '--porcelain', '--', 'src')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.slice(3)),
  };
}

/** UTC date as YYYY-MM-DD: results of one day share a folder. */
export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/** `bench/results/<date>/` (or `--out DIR`), created if needed. */
export function resultDir(out: string | undefined): string {
  const dir = out ?? path.join(REPO_ROOT, 'bench', 'results', today());
  mkdirSync(dir, { recursive: true });
  return dir;
}

export interface ResultHeader {
  readonly schema: string;
  readonly command: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly machine: MachineInfo;
  readonly source: SourceInfo;
}

/** The header every document starts with; `name` is e.g. `real-runs/v1`. */
export function header(name: string, startedAt: Date): ResultHeader {
  return {
    schema: `${SCHEMA_PREFIX}/${name}`,
    command: commandLine(),
    startedAt: startedAt.toISOString(),
    machine: machineInfo(),
    source: sourceInfo(),
  };
}

/** How this benchmark was invoked, as a user would retype it. */
export function commandLine(): string {
  const script = path.relative(REPO_ROOT, process.argv[1] ?? '');
  return ['node', script, ...cliArgs()].join(' ');
}

export function writeJson(file: string, doc: unknown): void {
  writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
}

export function writeText(file: string, text: string): void {
  writeFileSync(file, text);
}
