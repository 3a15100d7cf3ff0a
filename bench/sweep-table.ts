// Markdown table of a `bench/policy-sweep.ts --json FILE` run, for docs/simulation-results.md.
//
//   node bench/sweep-table.ts FILE.json... [--reference kod2] [--variants a,b,...] [--absolute]
//
// Several files are merged (the same scenario, seed and variant in two files must agree: runs are
// deterministic). `--variants` picks and orders the columns.
// One row per scenario, one column per variant: the variant's mean JCT (incl. unfinished) divided
// by the reference variant's, as a geometric mean over the seeds of the run (with `--absolute` and
// a single seed: the mean JCT in seconds). Summary rows: geometric mean over every run, runs lost
// and won by more than 0.5 %, and the worst ratio.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { cliArgs } from './lib/args.ts';

const { values, positionals } = parseArgs({
  args: cliArgs(),
  allowPositionals: true,
  options: { reference: { type: 'string', default: 'kod2' }, absolute: { type: 'boolean', default: false }, variants: { type: 'string' } },
});

interface Row {
  readonly scenario: string;
  readonly seed: number;
  readonly variant: string;
  readonly meanJctInclUnfinished: number | null;
}

const rows = positionals.flatMap((file) => JSON.parse(readFileSync(file, 'utf8')) as Row[]);
const variants = values.variants === undefined ? [...new Set(rows.map((r) => r.variant))] : values.variants.split(',');
const scenarios = [...new Set(rows.map((r) => r.scenario))];
const seeds = [...new Set(rows.map((r) => r.seed))];
const ref = values.reference;
const at = (scenario: string, seed: number, variant: string): number | null =>
  rows.find((r) => r.scenario === scenario && r.seed === seed && r.variant === variant)?.meanJctInclUnfinished ?? null;

const logs = new Map<string, number[]>(variants.map((v) => [v, []]));
console.log(`| scenario | ${variants.join(' | ')} |`);
console.log(`|---|${variants.map(() => '---:').join('|')}|`);
for (const scenario of scenarios) {
  const cells = variants.map((v) => {
    const ratios: number[] = [];
    for (const seed of seeds) {
      const x = at(scenario, seed, v);
      const y = at(scenario, seed, ref);
      if (x !== null && y !== null && y > 0) ratios.push(x / y);
    }
    logs.get(v)!.push(...ratios.map(Math.log));
    if (values.absolute && seeds.length === 1) return Math.round(at(scenario, seeds[0]!, v) ?? Number.NaN).toLocaleString('en-US');
    if (ratios.length === 0) return '—';
    return Math.exp(ratios.reduce((s, q) => s + Math.log(q), 0) / ratios.length).toFixed(3);
  });
  console.log(`| ${scenario} | ${cells.join(' | ')} |`);
}
const summary = (f: (l: number[]) => string): string => variants.map((v) => f(logs.get(v)!)).join(' | ');
console.log(
  `| **geo-mean ÷ ${ref}** | ${summary((l) => `**${Math.exp(l.reduce((s, x) => s + x, 0) / Math.max(1, l.length)).toFixed(3)}**`)} |`,
);
console.log(
  `| runs worse / better than ${ref} by > 0.5 % | ${summary((l) => `${l.filter((x) => x > Math.log(1.005)).length} / ${l.filter((x) => x < Math.log(0.995)).length}`)} |`,
);
console.log(`| worst ratio | ${summary((l) => Math.exp(Math.max(...l)).toFixed(3))} |`);
