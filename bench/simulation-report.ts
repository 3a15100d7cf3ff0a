// Markdown tables for docs/simulation-results.md from the JSON documents `simulate --json` writes
// (one file per scenario, `--policy all`). Not a test; the numbers are the simulator's, unchanged.
//
//   node bench/simulation-report.ts out/sim/*.json
//
// Prints a summary (mean JCT per scenario and policy; ours ÷ kod2, tf-operator, tiresias and srsf-oracle
// with their geometric means) and the full table (mean and p95 JCT, makespan, utilisation of the
// scarcest resource, unfinished jobs, ratios to tf-operator and to the lower bounds).

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

const SUMMARY_POLICIES = ['tf-operator', 'gang-fifo', 'tiresias', 'srsf-oracle', 'kod2', 'ours'];
const RATIOS = ['kod2', 'tf-operator', 'tiresias', 'srsf-oracle'];
const meanJct = (docs: readonly RunDocument[], p: string): number | undefined =>
  policyOf(docs, p)?.summary.jctInclUnfinished?.mean ?? undefined;
const ratiosByReference = new Map<string, number[]>(RATIOS.map((ref) => [ref, []]));

console.log(`| scenario | ${SUMMARY_POLICIES.join(' | ')} | ${RATIOS.map((ref) => `ours ÷ ${ref}`).join(' | ')} |`);
console.log(`|---|${SUMMARY_POLICIES.map(() => '---:').join('|')}|${RATIOS.map(() => '---:').join('|')}|`);
for (const docs of docsByScenario) {
  const ours = meanJct(docs, 'ours');
  const ratios = RATIOS.map((ref) => {
    const base = meanJct(docs, ref);
    if (ours === undefined || base === undefined) return null;
    ratiosByReference.get(ref)!.push(ours / base);
    return ours / base;
  });
  console.log(`| ${docs[0]!.scenario} | ${SUMMARY_POLICIES.map((p) => s(meanJct(docs, p))).join(' | ')} | ${ratios.map(r).join(' | ')} |`);
}
const geoMean = (xs: readonly number[]): number => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
for (const [ref, xs] of ratiosByReference) {
  if (xs.length === 0) continue;
  const better = xs.filter((x) => x < 0.995).length;
  const worse = xs.filter((x) => x > 1.005).length;
  console.log(
    `ours ÷ ${ref}: geometric mean ${geoMean(xs).toFixed(3)}, better in ${better}, worse in ${worse} (by > 0.5 %), worst ${Math.max(...xs).toFixed(3)}`,
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
