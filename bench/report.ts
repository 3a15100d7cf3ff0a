// Renders the Markdown tables of docs/benchmarks.md from a results folder, so the document quotes
// the JSON exactly (no hand-copied numbers).
//
//   node bench/report.ts [bench/results/<date>]      (default: the newest folder)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../lab/local-cluster/index.ts';
import type { Spread } from './lib/stats.ts';

const base = path.join(REPO_ROOT, 'bench', 'results');
const dir =
  process.argv[2] ??
  path.join(
    base,
    readdirSync(base)
      .filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d))
      .sort()
      .pop() ?? '',
  );

function readJson(file: string): unknown {
  const f = path.join(dir, file);
  return existsSync(f) ? JSON.parse(readFileSync(f, 'utf8')) : undefined;
}

const s0 = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${Math.round(v)}`);
const pct = (v: number | null | undefined) => (v === null || v === undefined ? '–' : (v * 100).toFixed(1));
const x = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toFixed(2));
const sp = (s: Spread | null | undefined, f = s0) =>
  s === null || s === undefined ? '–' : s.n === 1 ? f(s.median) : `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
const cv = (s: Spread | null | undefined) => (s === null || s === undefined || s.n < 2 ? '–' : `${(s.cv * 100).toFixed(1)}%`);

interface Header {
  readonly command: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly machine: { cpus: number; cpuModel: string; memoryBytes: number; node: string; loadAverage: number[] };
  readonly source: { commit: string };
}

function provenance(h: Header, extra = ''): string {
  const m = h.machine;
  return `Command: \`${h.command}\` — ${h.startedAt.slice(0, 16).replace('T', ' ')}–${(h.finishedAt ?? '').slice(11, 16)} UTC; ${m.cpus} × ${m.cpuModel}, ${(m.memoryBytes / 2 ** 30).toFixed(0)} GiB, Node ${m.node}, load average at start ${m.loadAverage.join(' / ')}${extra}.`;
}

// --- real runs -----------------------------------------------------------------------------------

interface RealCell {
  runs: number;
  jctMean: Spread | null;
  jctP95: Spread | null;
  jctMeanInclUnfinished: Spread | null;
  makespan: Spread | null;
  unfinished: Spread | null;
  cpu: Spread | null;
  vsTrainingOperator: {
    jctMean: number | null;
    jctP95: number | null;
    jctMeanInclUnfinished: number | null;
    makespan: number | null;
    cpu: number | null;
  } | null;
  simulator: {
    jctMean: number | null;
    jctP95: number | null;
    jctMeanInclUnfinished: number | null;
    makespan: number | null;
    unfinished: number;
    utilisation: Record<string, number>;
  };
  simGapJctMean: number | null;
}

const real = readJson('real-runs.json') as
  | (Header & {
      params: { timeScale: number; operatorRevision: string };
      runs: { loadAverage: number }[];
      summary: Record<string, Record<string, RealCell>>;
    })
  | undefined;
if (real !== undefined) {
  console.log(
    `### Real control plane: kod2-paper\n\n${provenance(real, `; operator ${real.params.operatorRevision.slice(0, 10)}, time ×${real.params.timeScale}`)}\n`,
  );
  console.log(
    "Median over repeats (min–max); scenario seconds. *sim* = the simulator's prediction for the same scenario and policy (training-operator and tf-operator mode: the `tf-operator` policy). Unfinished jobs are not in mean/p95 JCT; *incl. unf.* counts them at the horizon.\n",
  );
  for (const [b, row] of Object.entries(real.summary)) {
    console.log(`**Batch size ${b}**\n`);
    console.log(
      '| system | runs | mean JCT | CV | sim | p95 JCT | sim | makespan | sim | CPU alloc % | sim | unfinished | sim | mean JCT incl. unf. | sim | ÷ (a) mean JCT | ÷ (a) incl. unf. | ÷ (a) p95 |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const [system, c] of Object.entries(row)) {
      const name =
        system === 'training-operator'
          ? '(a) training-operator v1.7.0'
          : system === 'tf-operator'
            ? '(b) ours, tf-operator mode'
            : system === 'kod2'
              ? '(c) ours, kod2'
              : '(d) ours, ours';
      const mk = c.makespan === null ? '–' : `${sp(c.makespan)}${c.makespan.n < c.runs ? ` [${c.makespan.n}/${c.runs} runs]` : ''}`;
      console.log(
        `| ${name} | ${c.runs} | ${sp(c.jctMean)} | ${cv(c.jctMean)} | ${s0(c.simulator.jctMean)} | ${sp(c.jctP95)} | ${s0(c.simulator.jctP95)} | ${mk} | ${s0(c.simulator.makespan)} | ${sp(c.cpu, pct)} | ${pct(c.simulator.utilisation.cpu)} | ${sp(c.unfinished, (v) => (v === null || v === undefined ? '–' : String(v)))} | ${c.simulator.unfinished} | ${sp(c.jctMeanInclUnfinished)} | ${s0(c.simulator.jctMeanInclUnfinished)} | ${x(c.vsTrainingOperator?.jctMean)} | ${x(c.vsTrainingOperator?.jctMeanInclUnfinished)} | ${x(c.vsTrainingOperator?.jctP95)} |`,
      );
    }
    console.log('');
  }
  // Headline: geometric mean over batch sizes of the ratio to (a).
  const systems = [...new Set(Object.values(real.summary).flatMap((r) => Object.keys(r)))];
  console.log('**Geometric mean over batch sizes of the median ratio to (a)**\n');
  console.log(
    '| system | mean JCT | mean JCT incl. unfinished | p95 JCT | CPU allocated | median CV of mean JCT | mean |real − sim| / sim (mean JCT) |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const s of systems) {
    const cells = Object.values(real.summary)
      .map((r) => r[s])
      .filter((c): c is RealCell => c !== undefined);
    const g = (f: (c: RealCell) => number | null | undefined) => {
      const v = cells.map(f).filter((n): n is number => typeof n === 'number' && n > 0);
      return v.length === 0 ? null : Math.exp(v.reduce((a, n) => a + Math.log(n), 0) / v.length);
    };
    const cvs = cells
      .map((c) => c.jctMean?.cv)
      .filter((n): n is number => n !== undefined)
      .sort((a, b) => a - b);
    const gaps = cells
      .map((c) => c.simGapJctMean)
      .filter((n): n is number => n !== null)
      .map(Math.abs);
    console.log(
      `| ${s} | ${x(g((c) => c.vsTrainingOperator?.jctMean))} | ${x(g((c) => c.vsTrainingOperator?.jctMeanInclUnfinished))} | ${x(g((c) => c.vsTrainingOperator?.jctP95))} | ${x(g((c) => c.vsTrainingOperator?.cpu))} | ${cvs.length === 0 ? '–' : `${(cvs[Math.floor(cvs.length / 2)]! * 100).toFixed(1)}%`} | ${gaps.length === 0 ? '–' : `${((gaps.reduce((a, b) => a + b, 0) / gaps.length) * 100).toFixed(1)}%`} |`,
    );
  }
  const loads = real.runs.map((r) => r.loadAverage).sort((a, b) => a - b);
  console.log(
    `\n1-minute load average at the start of the ${loads.length} runs: min ${loads[0] ?? '–'}, median ${loads[Math.floor(loads.length / 2)] ?? '–'}, max ${loads[loads.length - 1] ?? '–'}.\n`,
  );
}

// --- burst ---------------------------------------------------------------------------------------

interface BurstCell {
  runs: number;
  incomplete: number;
  createSeconds: Spread | null;
  allBoundSeconds: Spread | null;
  allRunningSeconds: Spread | null;
  systemRequestsAtBound: Spread | null;
  systemRequestsAtBoundByVerb: Record<string, Spread | null>;
  systemRequestsAtRunning: Spread | null;
  schedulerRequestsAtBound: Spread | null;
  systemCpuSeconds: Spread | null;
  schedulerCpuSeconds: Spread | null;
  systemPeakRssMiB: Spread | null;
}
const burst = readJson('burst.json') as
  (Header & { params: { jobs: number; nodes: number; operatorRevision: string }; summary: Record<string, BurstCell> }) | undefined;
if (burst !== undefined) {
  console.log(`### Burst\n\n${provenance(burst, `; operator ${burst.params.operatorRevision.slice(0, 10)}`)}\n`);
  console.log(
    '| system | runs | all pods bound, s | CV | ÷ training-operator | all jobs Running, s | API requests until bound (by verb) | kube-scheduler requests | requests until Running | CPU s (system + kube-scheduler) | peak RSS MiB |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [label, c] of Object.entries(burst.summary)) {
    const api = label.includes('apiserver=unlimited') ? 'unlimited' : 'default';
    const ref = Object.entries(burst.summary).find(([l]) => l.startsWith('training-operator') && l.includes(`apiserver=${api}`))?.[1];
    const ratio = ref?.allBoundSeconds && c.allBoundSeconds ? (c.allBoundSeconds.median / ref.allBoundSeconds.median).toFixed(2) : '–';
    const verbs = Object.entries(c.systemRequestsAtBoundByVerb)
      .map(([v, s]) => `${v} ${s0(s?.median)}`)
      .join(', ');
    const f1 = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toFixed(1));
    console.log(
      `| ${label}${c.incomplete > 0 ? ` (${c.incomplete} incomplete)` : ''} | ${c.runs} | ${sp(c.allBoundSeconds, f1)} | ${cv(c.allBoundSeconds)} | ${ratio} | ${sp(c.allRunningSeconds, f1)} | ${s0(c.systemRequestsAtBound?.median)} (${verbs}) | ${s0(c.schedulerRequestsAtBound?.median)} | ${s0(c.systemRequestsAtRunning?.median)} | ${f1(c.systemCpuSeconds?.median)} + ${f1(c.schedulerCpuSeconds?.median)} | ${s0(c.systemPeakRssMiB?.median)} |`,
    );
  }
  console.log('');
}

// --- memory --------------------------------------------------------------------------------------

interface MemRow {
  revision: string;
  state: string;
  readySeconds: number;
  idleAfterSeconds: number;
  rssMiB: Spread | null;
  peakRssMiB: number;
  heapUsedMiB: number | null;
  startupRequests: Record<string, number>;
  idle?: { seconds: number; cpuSeconds: number; cpuPercentOfOneCore: number; requests: number; reconciles: number };
}
const memory = readJson('memory.json') as
  | (Header & {
      params: { jobs: number; podsExpected: number };
      objects?: { tfjobs: number; pods: number; services: number };
      measurements: MemRow[];
      composition?: Record<string, { objects: number; meanBytes: Record<string, number>; byPath: [string, number][] }>;
    })
  | undefined;
if (memory !== undefined) {
  console.log(`### Memory and idle CPU\n\n${provenance(memory)}; objects: ${JSON.stringify(memory.objects ?? {})}\n`);
  console.log(
    '| revision | jobs | RSS MiB (median of samples) | peak RSS MiB | V8 heap used MiB | start → ready s | requests at start-up | idle CPU (% of one core) | requests while idle |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const m of memory.measurements) {
    const reqs = Object.entries(m.startupRequests)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    console.log(
      `| ${m.revision.slice(0, 10)} | ${m.state} | ${s0(m.rssMiB?.median)} | ${s0(m.peakRssMiB)} | ${s0(m.heapUsedMiB)} | ${m.readySeconds.toFixed(1)} | ${reqs || '0'} | ${m.idle === undefined ? '–' : `${m.idle.cpuPercentOfOneCore.toFixed(2)}% (${m.idle.cpuSeconds} s in ${m.idle.seconds} s)`} | ${m.idle?.requests ?? '–'} |`,
    );
  }
  if (memory.composition !== undefined) {
    console.log('\nCached object size (mean JSON bytes per object) and the largest fields of the API form:\n');
    console.log('| kind | objects | JSON bytes: API / cache transforms | largest fields (share of API bytes) |');
    console.log('|---|---|---|---|');
    for (const [kind, c] of Object.entries(memory.composition)) {
      console.log(
        `| ${kind} | ${c.objects} | ${Object.entries(c.meanBytes)
          .map(([k, v]) => `${k} ${v}`)
          .join(' / ')} | ${c.byPath
          .slice(0, 6)
          .map(([p, share]) => `${p} ${(share * 100).toFixed(0)}%`)
          .join(', ')} |`,
      );
    }
  }
  console.log('');
}

// --- scheduling pass -----------------------------------------------------------------------------

interface PassRow {
  sweep: string;
  scenario: string;
  nodes: number;
  waiting: number;
  running: number;
  policy: string;
  runs: number;
  medianMs: number;
  p99Ms: number;
}
const pass = readJson('scheduling-pass.json') as (Header & { params: { revision: string }; rows: PassRow[] }) | undefined;
if (pass !== undefined) {
  console.log(`### One scheduling pass\n\n${provenance(pass, `; scheduler ${pass.params.revision.slice(0, 10)}`)}\n`);
  const policies = [...new Set(pass.rows.map((r) => r.policy))];
  for (const scenario of [...new Set(pass.rows.map((r) => r.scenario))]) {
    console.log(`**${scenario}** — median / p99 ms per pass\n`);
    console.log(`| nodes | waiting | running | ${policies.join(' | ')} |`);
    console.log(`|---|---|---|${policies.map(() => '---').join('|')}|`);
    const keys = [...new Set(pass.rows.filter((r) => r.scenario === scenario).map((r) => `${r.nodes}/${r.waiting}/${r.running}`))];
    for (const k of keys) {
      const rows = pass.rows.filter((r) => r.scenario === scenario && `${r.nodes}/${r.waiting}/${r.running}` === k);
      const [n, w, r] = k.split('/');
      console.log(
        `| ${n} | ${w} | ${r} | ${policies
          .map((p) => {
            const row = rows.find((q) => q.policy === p);
            return row === undefined ? '–' : `${row.medianMs.toFixed(1)} / ${row.p99Ms.toFixed(1)}`;
          })
          .join(' | ')} |`,
      );
    }
    console.log('');
  }
}
