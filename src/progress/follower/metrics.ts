// Prometheus metrics of the progress reader: what the log polling costs the API server and whether
// its budget (--progress-reads-per-second) holds, so an admin can size the period for many jobs.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RoundReport } from './reader.ts';

export class ProgressMetrics {
  readonly #reads: Counter<'result'>;
  readonly #rounds: Histogram;
  readonly #followed: Gauge;
  readonly #deferred: Gauge;
  readonly #period: Gauge;
  readonly #skipped: Counter<'reason'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.#reads = new Counter({
      name: 'tfjob_operator_progress_log_reads_total',
      help: 'pods/log reads for training progress, by result (ok, or problem: unreadable log or bad lines)',
      labelNames: ['result'],
      registers,
    });
    this.#rounds = new Histogram({
      name: 'tfjob_operator_progress_round_duration_seconds',
      help: 'Time of one progress round (all its pods/log reads, concurrently)',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.#followed = new Gauge({
      name: 'tfjob_operator_progress_followed_jobs',
      help: 'Running TFJobs whose progress is read',
      registers,
    });
    this.#deferred = new Gauge({
      name: 'tfjob_operator_progress_deferred_jobs',
      help: 'Followed TFJobs the last round left unread because its read budget ran out (read first next round)',
      registers,
    });
    this.#skipped = new Counter({
      name: 'tfjob_operator_progress_lines_skipped_total',
      help: 'Progress log lines or line segments skipped, by reason (a bad progress line, a segment over 4096 characters or whose start was not read)',
      labelNames: ['reason'],
      registers,
    });
    this.#period = new Gauge({
      name: 'tfjob_operator_progress_period_seconds',
      help: 'Current progress period (doubles while every followed job is quiet, FlowCon/DQoES back-off)',
      registers,
    });
  }

  round(report: RoundReport, seconds: number, periodMs: number): void {
    const problems = report.read.filter((k) => report.problems.has(k)).length;
    this.#reads.inc({ result: 'ok' }, report.read.length - problems);
    if (problems > 0) this.#reads.inc({ result: 'problem' }, problems);
    this.#rounds.observe(seconds);
    this.#followed.set(report.read.length + report.deferred.length);
    this.#deferred.set(report.deferred.length);
    this.#period.set(periodMs / 1000);
    for (const [reason, n] of report.skipped ?? []) this.#skipped.inc({ reason }, n);
  }
}
