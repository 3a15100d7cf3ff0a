// Markdown tables of the performance-target figures (docs/results/log.md §1c) from one or more
// `bench/policy-sweep.ts --json FILE` runs on the QoE scenarios.
//
//   node bench/qoe-table.ts FILE.json... [--reference ours-no-qoeTargets] [--variants a,b,...]
//
// One row per scenario and seed: for each variant, the share of targeted jobs whose target was met
// (per job), the time-weighted share of throughput-target time met, throughput jobs met / all, and
// deadlines met / all; then the mean JCT of the jobs without a target against the reference variant
// (the cost of serving the targets). A summary per scenario: mean and worst of that cost over the seeds.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { cliArgs } from './lib/args.ts';

const { values, positionals } = parseArgs({
  args: cliArgs(),
  allowPositionals: true,
  options: { reference: { type: 'string', default: 'ours-no-qoeTargets' }, variants: { type: 'string' } },
});

interface Qoe {
  readonly jobsMetFraction: number;
  readonly throughputMetFraction: number | null;
  readonly throughputJobsMet: number;
  readonly throughputJobs: number;
  readonly deadlinesMet: number;
  readonly deadlineJobs: number;
  readonly untargetedMeanJct: number | null;
}

interface Row {
  readonly scenario: string;
  readonly seed: number;
  readonly variant: string;
  readonly qoe: Qoe | null;
}

const rows = positionals.flatMap((file) => JSON.parse(readFileSync(file, 'utf8')) as Row[]).filter((r) => r.qoe !== null);
const variants = values.variants === undefined ? [...new Set(rows.map((r) => r.variant))] : values.variants.split(',');
const reference = values.reference;
const runs = [...new Set(rows.map((r) => `${r.scenario}#${r.seed}`))];
const find = (run: string, variant: string): Row | undefined =>
  rows.find((r) => `${r.scenario}#${r.seed}` === run && r.variant === variant);
const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : `${(100 * x).toFixed(1)} %`);
const signed = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)} %`;

console.log(
  `| scenario, seed | ${variants.map((v) => `${v}: jobs met / time met / throughput / deadlines`).join(' | ')} | ${variants
    .filter((v) => v !== reference)
    .map((v) => `${v}: untargeted vs ${reference}`)
    .join(' | ')} |`,
);
console.log(
  `|---|${variants.map(() => '---').join('|')}|${variants
    .filter((v) => v !== reference)
    .map(() => '---:')
    .join('|')}|`,
);
const costs = new Map<string, Map<string, number[]>>();
for (const run of runs) {
  const cells: string[] = [];
  for (const v of variants) {
    const q = find(run, v)?.qoe;
    cells.push(
      q === undefined || q === null
        ? '—'
        : `${pct(q.jobsMetFraction)} / ${pct(q.throughputMetFraction)} / ${q.throughputJobsMet}/${q.throughputJobs} / ${q.deadlinesMet}/${q.deadlineJobs}`,
    );
  }
  const ref = find(run, reference)?.qoe?.untargetedMeanJct;
  const costCells: string[] = [];
  for (const v of variants.filter((x) => x !== reference)) {
    const own = find(run, v)?.qoe?.untargetedMeanJct;
    if (ref === undefined || ref === null || own === undefined || own === null) {
      costCells.push('—');
      continue;
    }
    const c = own / ref - 1;
    costCells.push(signed(c));
    const scenario = run.split('#')[0]!;
    const byVariant = costs.get(scenario) ?? new Map<string, number[]>();
    costs.set(scenario, byVariant);
    byVariant.set(v, [...(byVariant.get(v) ?? []), c]);
  }
  console.log(`| ${run.replace('#', ' ')} | ${cells.join(' | ')} | ${costCells.join(' | ')} |`);
}
console.log(`\nCost to jobs without a target (their mean JCT ÷ ${reference}'s − 1), over the seeds: mean (worst)`);
for (const [scenario, byVariant] of costs) {
  const parts = [...byVariant].map(([v, cs]) => `${v} ${signed(cs.reduce((s, c) => s + c, 0) / cs.length)} (${signed(Math.max(...cs))})`);
  console.log(`${scenario.padEnd(16)} ${parts.join('   ')}`);
}
