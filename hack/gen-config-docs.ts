// Writes the README's configuration table (from src/operator/config.ts's OPTIONS, the table `--help`
// and the parser use) and its metrics table (from the metric classes themselves), between
// `<!-- BEGIN GENERATED: <name> -->` and `<!-- END GENERATED: <name> -->` markers, so the README
// cannot drift from the code. Run: `node hack/gen-config-docs.ts` (`--check`: write nothing, exit 1
// when stale; test/unit/docs/readme.test.ts runs the same check).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { JobMetrics } from '../src/operator/job-metrics.ts';
import { OPTIONS } from '../src/operator/config.ts';
import { ProgressMetrics } from '../src/progress/follower/metrics.ts';
import { SchedulerMetrics } from '../src/operator/scheduling/metrics.ts';
import { QueueMetrics } from '../src/operator/scheduling/queues/status.ts';
import { RuntimeMetrics } from '../src/runtime/metrics.ts';

export const README_PATH = path.join(import.meta.dirname, '..', 'README.md');

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

function code(text: string): string {
  return `\`${text}\``;
}

/** One row per option: flag, environment variable, default, meaning. */
export function configTable(): string {
  const rows = OPTIONS.map((o) => {
    const def = Array.isArray(o.default) ? o.default.join(',') : String(o.default);
    const env = 'env' in o ? code(o.env) : '';
    return `| ${code(`--${o.flag}`)} | ${env} | ${def === '' ? '""' : code(def)} | ${cell(o.help)} |`;
  });
  return ['| flag | env | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

interface Family {
  readonly name: string;
  readonly type: string;
  readonly help: string;
  readonly labels: readonly string[];
}

/** Every family the operator registers (prom-client keeps the label names on the metric object). */
export async function metricFamilies(): Promise<Family[]> {
  const families: Family[] = [];
  const collect = async (register: (r: Registry) => void) => {
    const registry = new Registry();
    register(registry);
    for (const metric of await registry.getMetricsAsJSON()) {
      const labelNames = (registry.getSingleMetric(metric.name) as unknown as { labelNames?: unknown }).labelNames;
      families.push({
        name: metric.name,
        type: String(metric.type),
        help: metric.help,
        labels: Array.isArray(labelNames) ? labelNames.map(String) : [],
      });
    }
  };
  await collect((r) => new JobMetrics(r));
  await collect((r) => new SchedulerMetrics(r));
  await collect((r) => new QueueMetrics(r));
  await collect((r) => new ProgressMetrics(r));
  await collect((r) => new RuntimeMetrics(r, { defaultMetrics: false }));
  return families;
}

export async function metricsTable(): Promise<string> {
  const rows = (await metricFamilies()).map((f) => `| ${code(f.name)} | ${f.type} | ${f.labels.map(code).join(', ')} | ${cell(f.help)} |`);
  return ['| metric | type | labels | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** Replaces the content between the markers named `name`; throws when they are missing. */
export function replaceBlock(text: string, name: string, content: string): string {
  const begin = `<!-- BEGIN GENERATED: ${name} (hack/gen-config-docs.ts) -->`;
  const end = `<!-- END GENERATED: ${name} -->`;
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`markers for "${name}" not found: ${begin} ... ${end}`);
  return `${text.slice(0, from + begin.length)}\n${content}\n${text.slice(to)}`;
}

export async function renderReadme(current: string): Promise<string> {
  return replaceBlock(replaceBlock(current, 'configuration', configTable()), 'metrics', await metricsTable());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const current = readFileSync(README_PATH, 'utf8');
  const next = await renderReadme(current);
  if (process.argv.includes('--check')) {
    if (next !== current) {
      console.error(`${README_PATH} is stale: run node hack/gen-config-docs.ts`);
      process.exitCode = 1;
    }
  } else if (next !== current) {
    writeFileSync(README_PATH, next);
    console.log(`updated ${README_PATH}`);
  }
}
