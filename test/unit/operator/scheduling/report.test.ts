import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { Applied, Outcome } from '../../../../src/operator/scheduling/apply.ts';
import { DecisionBook } from '../../../../src/operator/scheduling/decisions.ts';
import { SchedulerMetrics } from '../../../../src/operator/scheduling/metrics.ts';
import { SchedulingReporter, WAITING_EVENT_INTERVAL_MS, summarizeNodes } from '../../../../src/operator/scheduling/report.ts';
import type { JobFacts } from '../../../../src/operator/scheduling/snapshot.ts';
import { MemoryEventRecorder } from '../../../../src/runtime/events.ts';
import { NS, T0, tfjob } from './fixtures.ts';

const A = `${NS}/a`;
const B = `${NS}/b`;

function setup() {
  const registry = new Registry();
  const recorder = new MemoryEventRecorder();
  const reporter = new SchedulingReporter(recorder, new SchedulerMetrics(registry), { starveLimitMs: 60_000, timeScale: 1 });
  const facts = [A, B].map((key) => ({ key, object: tfjob(key.split('/')[1]!) }) as unknown as JobFacts);
  const report = (outcomes: Outcome[], now = T0) => {
    const applied: Applied = { touched: new Set(), outcomes };
    reporter.outcomes(applied, facts, { [A]: 0.9, [B]: 0.3 }, now);
  };
  return { registry, recorder, reporter, facts, report };
}

async function metric(registry: Registry, name: string): Promise<string> {
  return (await registry.getSingleMetricAsString(name))
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n');
}

describe('report stage', () => {
  it('says who took the workers, with both weights, on the victim', async () => {
    const { recorder, registry, report } = setup();
    report([{ kind: 'scaledIn', job: B, forJob: A, count: 2, removed: ['b-worker-2', 'b-worker-1'], workers: 1, min: 1 }]);
    expect(recorder.events).toEqual([
      {
        object: `${NS}/b`,
        type: 'Normal',
        reason: 'Preempted',
        message: `Scaled in by 2 worker(s) (b-worker-2, b-worker-1) to admit ${A} (weight 0.90 vs 0.30); now 1 worker(s), minimum 1`,
      },
    ]);
    expect(await metric(registry, 'tfjob_operator_preempted_workers_total')).toBe(
      `tfjob_operator_preempted_workers_total{namespace="${NS}"} 2`,
    );
  });

  it('says where an admitted job runs and whether it was starving', () => {
    const { recorder, report } = setup();
    const replicas = [
      { type: 'PS', index: 0, node: 'n1' },
      { type: 'Worker', index: 0, node: 'n1' },
      { type: 'Worker', index: 1, node: 'n2' },
    ];
    report([{ kind: 'admitted', job: A, workers: 2, replicas, waitedMs: 90_000 }]);
    expect(recorder.events[0]?.message).toBe(
      'Admitted with 2 worker(s) (weight 0.90, starving after waiting 90s) on n1 (ps-0, worker-0), n2 (worker-1)',
    );
  });

  it('rate-limits Waiting events per job, but not a change to Starving', () => {
    const { recorder, report } = setup();
    const waiting = (starving: boolean): Outcome => ({ kind: 'waiting', job: A, reason: 'needs 3 cpu', starving });
    report([waiting(false)], T0);
    report([waiting(false)], T0 + 1_000);
    report([waiting(true)], T0 + 2_000);
    report([waiting(true)], T0 + 2_000 + WAITING_EVENT_INTERVAL_MS);
    expect(recorder.events.map((e) => `${e.type}/${e.reason}`)).toEqual(['Normal/Waiting', 'Warning/Starving', 'Warning/Starving']);
  });

  it('reports lost nodes, scale-outs and replacements', () => {
    const { recorder, report } = setup();
    report([
      { kind: 'nodeLost', job: B, pod: 'b-worker-2', node: 'n2', why: 'no longer exists' },
      { kind: 'placed', job: B, node: 'n1' },
      { kind: 'scaledOut', job: B, added: [{ type: 'Worker', index: 3, node: 'n1' }], workers: 4, max: 4 },
    ]);
    expect(recorder.events.map((e) => e.message)).toEqual([
      'Removed b-worker-2: its node n2 no longer exists; it will be placed again',
      'Placed a replacement worker on n1 (replacing a lost replica)',
      'Scaled out by 1 worker(s) into idle capacity on n1 (worker-3); now 4 worker(s), maximum 4',
    ]);
    expect(recorder.events[0]?.type).toBe('Warning');
  });

  it('ignores outcomes of jobs it has no object for', () => {
    const { recorder, report } = setup();
    report([{ kind: 'placed', job: `${NS}/gone`, node: 'n1' }]);
    expect(recorder.events).toEqual([]);
  });

  it('sets queue lengths and weights, and drops a deleted job’s series', async () => {
    const { registry, reporter, facts } = setup();
    const book = new DecisionBook();
    const a = book.ensure(A, { metadata: { name: 'a' } }, [], T0);
    a.admitted = true;
    a.weight = 0.9;
    book.ensure(B, { metadata: { name: 'b' } }, [], T0).weight = 0.3;
    reporter.queues(facts, book, 7, 0.012);
    expect(await metric(registry, 'tfjob_operator_queue_length')).toBe(
      'tfjob_operator_queue_length{queue="waiting"} 1\ntfjob_operator_queue_length{queue="running"} 1\ntfjob_operator_queue_length{queue="finished"} 7',
    );
    reporter.forget(A);
    expect(await metric(registry, 'tfjob_operator_job_weight')).toBe(
      `tfjob_operator_job_weight{namespace="${NS}",tfjob="b",queue="waiting"} 0.3`,
    );
  });

  it('summarises placements by node', () => {
    expect(summarizeNodes([{ type: 'Worker', index: 0 }])).toBe('');
  });
});
