// Load soak (issue 8), the full size the CI test (test/integration/faults/load.test.ts) scales down:
// 2,000 TFJobs submitted within a minute onto 500 kwok nodes, on a control plane of its own, with the
// operator as a real process. Every job must reach a terminal state with every invariant of
// test/support/invariants.ts held and no key left in the work queue; prints the figures (time to all
// terminal, peak work-queue depth from /metrics, peak RSS) as JSON.
//
//   node bench/soak-load.ts [--jobs 2000] [--nodes 500] [--window 60] [--seed 8200] [--out FILE]
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createPriorityClass, scratchDir } from '../test/support/fault-scenario.ts';
import { namespaceIn, poolIn, startDedicatedCluster } from '../test/support/dedicated-cluster.ts';
import { runLoad } from '../test/support/load-run.ts';
import { OperatorChild } from '../test/support/operator-child.ts';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '2000' },
    nodes: { type: 'string', default: '500' },
    window: { type: 'string', default: '60' },
    seed: { type: 'string', default: '8200' },
    out: { type: 'string' },
  },
});
const jobs = Number(values.jobs);
const nodes = Number(values.nodes);

const started = Date.now();
const log = (line: string) => {
  process.stderr.write(`[soak-load ${Math.round((Date.now() - started) / 1000)}s] ${line}\n`);
};
const cluster = await startDedicatedCluster({ noRateLimits: true });
let operator: OperatorChild | undefined;
try {
  const kc = cluster.kubeConfig();
  const namespace = await namespaceIn(kc, 'soak-load');
  log(`creating ${nodes} kwok nodes`);
  const pool = await poolIn(cluster, 'soak', nodes, { cpu: '4', memory: '16Gi' }, 900_000);
  await createPriorityClass(kc, 'soak-high', 1000);
  operator = await OperatorChild.start(
    'soak-load',
    cluster.kubeconfigPath,
    [
      '--namespace',
      namespace,
      '--policy',
      'ours',
      '--scheduling-interval',
      '2s',
      '--kube-api-qps',
      '500',
      '--kube-api-burst',
      '1000',
      ...pool.operatorFlags,
    ],
    { logFile: path.join(scratchDir('soak-load'), 'operator.log') },
  );
  await operator.ready();
  log(`submitting ${jobs} jobs within ${values.window}s`);
  const report = await runLoad({
    kc,
    namespace,
    pool,
    operator,
    jobs,
    submitWithinMs: Number(values.window) * 1000,
    seed: Number(values.seed),
    timeoutMs: 3_600_000,
    drainTimeoutMs: 900_000,
    highClass: 'soak-high',
    auditLog: cluster.state.auditLog,
  });
  const result = { ...report, operatorRunning: operator.running, at: new Date().toISOString() };
  const text = JSON.stringify(result, null, 2);
  process.stdout.write(`${text}\n`);
  if (values.out !== undefined) writeFileSync(values.out, `${text}\n`);
  const ok = report.unfinished.length === 0 && report.violations.length === 0 && report.finalQueueDepth === 0 && operator.running;
  log(ok ? 'OK' : 'FAILED');
  process.exitCode = ok ? 0 : 1;
} finally {
  await operator?.kill();
  await cluster.stop();
}
