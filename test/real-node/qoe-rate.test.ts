// The QoE step rate measured from a real job (policy ours): a job with spec.qoe.stepsPerSecond gets
// status.qoe.measuredStepsPerSecond from the global steps its real TensorFlow log reports, close to
// the rate its log itself shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/kube.ts';
import { createTFJob, getTFJob } from '../support/tfjob.ts';
import { podLog, realJob, realNodeSkipped, statusOf, startRealNodeRun, type RealNodeRun } from './support.ts';

/** Steps per second over the log's progress lines that carry a time (first to last). */
function logRate(log: string): number | undefined {
  const samples: { step: number; time: number }[] = [];
  for (const m of log.matchAll(/TFJOB_PROGRESS (\{[^\n]*\})/g)) {
    const v = JSON.parse(m[1] ?? '{}') as { step?: number; time?: number };
    if (typeof v.step === 'number' && typeof v.time === 'number') samples.push({ step: v.step, time: v.time });
  }
  const first = samples[0];
  const last = samples.at(-1);
  if (first === undefined || last === undefined || last.time <= first.time) return undefined;
  return (last.step - first.step) / (last.time - first.time);
}

describe.skipIf(realNodeSkipped() !== undefined)('QoE step rate of a real job (ours)', () => {
  let run: RealNodeRun;
  let ns: string;
  beforeAll(async () => {
    run = await startRealNodeRun('real-qoe', 'ours', ['--progress-period', '3s', '--qoe-rate-window', '30s']);
    ns = run.ns;
  });
  afterAll(async () => {
    await run.stop();
  });

  it('measures the step rate from the real log', async () => {
    await createTFJob(
      ns,
      realJob(
        'rated',
        { PS: { replicas: 1, cpu: '200m' }, Worker: { replicas: 2, cpu: '500m' } },
        { spec: { qoe: { stepsPerSecond: 1 } }, env: { STEPS: '100000', STEP_SLEEP: '0.1', PROGRESS_EVERY: '5' } },
      ),
    );
    const measured = await eventually(
      async () => {
        const v = Number(statusOf(await getTFJob(ns, 'rated')).qoe?.measuredStepsPerSecond);
        return Number.isFinite(v) && v > 0 ? v : false;
      },
      { what: 'status.qoe.measuredStepsPerSecond', timeoutMs: 300_000, intervalMs: 2_000 },
    );
    const fromLog = logRate(await podLog(ns, 'rated-worker-0'));
    expect(fromLog).toBeDefined();
    // Same order of magnitude as the log's own rate (the operator's window is the last 30 s only).
    expect(measured).toBeGreaterThan((fromLog ?? 0) / 3);
    expect(measured).toBeLessThan((fromLog ?? 0) * 3);
    expect(statusOf(await getTFJob(ns, 'rated')).qoe?.class).toMatch(/Ahead|Satisfied|Behind/);
  });
});
