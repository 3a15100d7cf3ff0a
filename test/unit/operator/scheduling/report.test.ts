import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../../../src/operator/scheduling/pass/apply.ts';
import { DecisionBook } from '../../../../src/operator/scheduling/decisions/book.ts';
import { SchedulerMetrics } from '../../../../src/operator/scheduling/metrics.ts';
import { SchedulingReporter, WAITING_EVENT_INTERVAL_MS } from '../../../../src/operator/scheduling/pass/report.ts';
import type { JobFacts } from '../../../../src/operator/scheduling/pass/snapshot.ts';
import { MemoryEventRecorder } from '../../../../src/runtime/events.ts';
import { NS, T0, adopt, tfjob } from './fixtures.ts';

const A = `${NS}/a`;
const B = `${NS}/b`;

function setup() {
  const registry = new Registry();
  const recorder = new MemoryEventRecorder();
  const reporter = new SchedulingReporter(recorder, new SchedulerMetrics(registry));
  const facts = [A, B].map((key) => ({ key, object: tfjob(key.split('/')[1]!) }) as unknown as JobFacts);
  const report = (outcomes: Outcome[], now = T0) => {
    reporter.outcomes({ touched: new Set(), outcomes }, facts, now);
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
  it('writes each outcome as an event on its job, Warning for lost nodes and starving jobs', () => {
    const { recorder, report } = setup();
    report([
      { job: B, reason: 'NodeLost', message: 'lost' },
      { job: B, reason: 'Preempted', message: 'preempted', workers: 2 },
      { job: A, reason: 'Admitted', message: 'admitted', waitedMs: 1_000 },
      { job: A, reason: 'ScaledOut', message: 'grew', workers: 1 },
      { job: B, reason: 'Placed', message: 'placed' },
      { job: A, reason: 'Starving', message: 'needs 4 cpu', news: true },
    ]);
    expect(recorder.events.map((e) => `${e.object} ${e.type}/${e.reason}: ${e.message}`)).toEqual([
      `${B} Warning/NodeLost: lost`,
      `${B} Normal/Preempted: preempted`,
      `${A} Normal/Admitted: admitted`,
      `${A} Normal/ScaledOut: grew`,
      `${B} Normal/Placed: placed`,
      `${A} Warning/Starving: needs 4 cpu`,
    ]);
  });

  it('counts preempted and scaled-out workers, admissions, time in queue and replacements', async () => {
    const { registry, report } = setup();
    report([
      { job: B, reason: 'Preempted', message: '', workers: 2 },
      { job: B, reason: 'ScaledIn', message: '', workers: 1 },
      { job: A, reason: 'Admitted', message: '', waitedMs: 30_000 },
      { job: A, reason: 'ScaledOut', message: '', workers: 3 },
      { job: B, reason: 'Placed', message: '' },
    ]);
    expect(await metric(registry, 'tfjob_operator_preempted_workers_total')).toBe(
      `tfjob_operator_preempted_workers_total{namespace="${NS}"} 3`,
    );
    expect(await metric(registry, 'tfjob_operator_scaled_out_workers_total')).toBe(
      `tfjob_operator_scaled_out_workers_total{namespace="${NS}"} 3`,
    );
    expect(await metric(registry, 'tfjob_operator_admissions_total')).toBe(`tfjob_operator_admissions_total{namespace="${NS}"} 1`);
    expect(await metric(registry, 'tfjob_operator_time_in_queue_seconds')).toContain(
      `tfjob_operator_time_in_queue_seconds_sum{namespace="${NS}"} 30`,
    );
    expect(await metric(registry, 'tfjob_operator_replacement_placements_total')).toBe(
      `tfjob_operator_replacement_placements_total{namespace="${NS}"} 1`,
    );
  });

  it('rate-limits Waiting events per job, but not a change to Starving', () => {
    const { recorder, report } = setup();
    const waiting = (starving: boolean): Outcome => ({
      job: A,
      reason: starving ? 'Starving' : 'Waiting',
      message: 'needs 3 cpu',
      news: true,
    });
    report([waiting(false)], T0);
    report([waiting(false)], T0 + 1_000);
    report([waiting(true)], T0 + 2_000);
    report([waiting(true)], T0 + 2_000 + WAITING_EVENT_INTERVAL_MS);
    expect(recorder.events.map((e) => `${e.type}/${e.reason}`)).toEqual(['Normal/Waiting', 'Warning/Starving', 'Warning/Starving']);
  });

  it('writes no Waiting event for what the status already said (after a restart), until the interval passes', () => {
    const { recorder, report } = setup();
    report([{ job: A, reason: 'Waiting', message: 'needs 3 cpu', news: false }], T0);
    report([{ job: A, reason: 'Waiting', message: 'needs 3 cpu', news: false }], T0 + 1_000);
    expect(recorder.events).toEqual([]);
    report([{ job: A, reason: 'Waiting', message: 'needs 3 cpu', news: false }], T0 + WAITING_EVENT_INTERVAL_MS);
    expect(recorder.events.map((e) => e.reason)).toEqual(['Waiting']);
  });

  it('ignores outcomes of jobs it has no object for', () => {
    const { recorder, report } = setup();
    report([{ job: `${NS}/gone`, reason: 'Placed', message: 'placed' }]);
    expect(recorder.events).toEqual([]);
  });

  it('sets queue lengths and weights, and drops a deleted job’s series', async () => {
    const { registry, reporter, facts } = setup();
    const book = new DecisionBook();
    adopt(book, A, (d) => {
      d.admitted = true;
      d.weight = 0.9;
    });
    adopt(book, B, (d) => {
      d.weight = 0.3;
    });
    reporter.queues(facts, book, 7, 0.012);
    expect(await metric(registry, 'tfjob_operator_queue_length')).toBe(
      'tfjob_operator_queue_length{queue="waiting"} 1\ntfjob_operator_queue_length{queue="running"} 1\ntfjob_operator_queue_length{queue="finished"} 7',
    );
    reporter.forget(A);
    expect(await metric(registry, 'tfjob_operator_job_weight')).toBe(
      `tfjob_operator_job_weight{namespace="${NS}",tfjob="b",queue="waiting"} 0.3`,
    );
  });
});
