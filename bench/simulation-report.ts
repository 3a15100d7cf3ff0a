// Markdown tables for docs/simulation-results.md from the JSON documents `simulate --json` writes
// (one file per scenario, `--policy all`). Not a test; the numbers are the simulator's, unchanged.
//
//   node bench/simulation-report.ts out/sim/*.json
//
// Prints a summary (mean JCT per scenario and policy, ours ÷ kod2) and the full table (mean and
// p95 JCT, makespan, utilisation of the scarcest resource, unfinished jobs, ratios to tf-operator
// and to the lower bounds).

import { readFileSync } from 'node:fs';
import type { RunDocument } from '../lab/simulator/report.ts';
import { cliArgs } from './lib/args.ts';

const files = cliArgs();
if (files.length === 0) {
  console.error('usage: node bench/simulation-report.ts FILE.json...');
  process.exit(2);
}

const docsByScenario = files.map((f) => {
  const parsed: unknown = JSON.parse(readFileSync(f, 'utf8'));
  const docs = (Array.isArray(parsed) ? parsed : [parsed]) as RunDocument[];
  return docs;
});
docsByScenario.sort((a, b) => a[0]!.scenario.localeCompare(b[0]!.scenario, 'en', { numeric: true }));

const s = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : Math.round(x).toLocaleString('en-US'));
const r = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : x.toFixed(2));
const pct = (x: number | null | undefined): string => (x === null || x === undefined ? '—' : `${(100 * x).toFixed(1)}%`);

/** The resource the makespan bound names as scarcest (nvidia.com/gpu on Philly, cpu on kod2-paper). */
function scarce(doc: RunDocument): string {
  return doc.summary.lowerBounds.workBoundResource;
}

const policyOf = (docs: readonly RunDocument[], p: string): RunDocument | undefined => docs.find((d) => d.policy === p);

console.log('| scenario | tf-operator | gang-fifo | kod2 | ours | ours ÷ kod2 | ours ÷ tf-operator |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const docs of docsByScenario) {
  const mean = (p: string): number | null | undefined => policyOf(docs, p)?.summary.jctInclUnfinished?.mean;
  const ours = mean('ours');
  const kod2 = mean('kod2');
  const tf = mean('tf-operator');
  console.log(
    `| ${docs[0]!.scenario} | ${s(tf)} | ${s(mean('gang-fifo'))} | ${s(kod2)} | ${s(ours)} | ${r(ours != null && kod2 != null ? ours / kod2 : null)} | ${r(ours != null && tf != null ? ours / tf : null)} |`,
  );
}

console.log('');
console.log(
  '| scenario | policy | mean JCT (s) | p95 JCT (s) | makespan (s) | util. (scarcest, allocated) | unfinished | mean ÷ tf-op | p95 ÷ tf-op | makespan ÷ tf-op | mean ÷ bound | makespan ÷ bound |',
);
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const docs of docsByScenario) {
  for (const d of docs) {
    const m = d.summary;
    const res = scarce(d);
    const vs = m.vsTfOperator;
    console.log(
      `| ${d.scenario} | ${d.policy} | ${s(m.jctInclUnfinished?.mean)} | ${s(m.jct?.p95)} | ${m.makespan === null ? `>${s(m.window.horizon)}` : s(m.makespan)} | ${pct(m.utilisation.allocated[res])} ${res === 'nvidia.com/gpu' ? 'gpu' : res} | ${m.unfinished} | ${r(vs?.meanJctInclUnfinished)} | ${r(vs?.p95Jct)} | ${r(vs?.makespan)} | ${r(m.toLowerBound.meanJctInclUnfinished)} | ${r(m.toLowerBound.makespan)} |`,
    );
  }
}
