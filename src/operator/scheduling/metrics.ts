// Scheduler metrics (ours): queue lengths, weights, preemptions, scale-outs, pass duration and time
// spent waiting, for dashboards and for "why is my job waiting?" at cluster scale.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export class SchedulerMetrics {
  readonly queueLength: Gauge<'queue'>;
  readonly jobWeight: Gauge<'namespace' | 'tfjob' | 'queue'>;
  readonly preemptedWorkers: Counter<'namespace'>;
  readonly scaledOutWorkers: Counter<'namespace'>;
  readonly admissions: Counter<'namespace'>;
  readonly passDuration: Histogram;
  readonly timeInQueue: Histogram<'namespace'>;
  readonly placementRepairs: Counter<'namespace'>;
  readonly qoeJobs: Gauge<'class'>;
  readonly qoeBehindSeconds: Counter<'namespace' | 'tfjob'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.queueLength = new Gauge({
      name: 'tfjob_operator_queue_length',
      help: 'TFJobs per queue (waiting, running, finished)',
      labelNames: ['queue'],
      registers,
    });
    this.jobWeight = new Gauge({
      name: 'tfjob_operator_job_weight',
      help: 'Effective weight of each waiting or running TFJob',
      labelNames: ['namespace', 'tfjob', 'queue'],
      registers,
    });
    this.preemptedWorkers = new Counter({
      name: 'tfjob_operator_preempted_workers_total',
      help: 'Workers removed by scale-in to make room for heavier jobs',
      labelNames: ['namespace'],
      registers,
    });
    this.scaledOutWorkers = new Counter({
      name: 'tfjob_operator_scaled_out_workers_total',
      help: 'Workers added by scale-out into idle capacity',
      labelNames: ['namespace'],
      registers,
    });
    this.admissions = new Counter({
      name: 'tfjob_operator_admissions_total',
      help: 'TFJobs moved from the waiting to the running queue',
      labelNames: ['namespace'],
      registers,
    });
    this.passDuration = new Histogram({
      name: 'tfjob_operator_scheduling_pass_duration_seconds',
      help: 'Time of one scheduling pass (snapshot, policy, plan)',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.timeInQueue = new Histogram({
      name: 'tfjob_operator_time_in_queue_seconds',
      help: 'Time from first entering the waiting queue to admission',
      labelNames: ['namespace'],
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600],
      registers,
    });
    this.placementRepairs = new Counter({
      name: 'tfjob_operator_replacement_placements_total',
      help: 'Replicas of running jobs placed again after they were lost (node failure, PS restart)',
      labelNames: ['namespace'],
      registers,
    });
    this.qoeJobs = new Gauge({
      name: 'tfjob_operator_qoe_jobs',
      help: 'TFJobs with a performance target (spec.qoe) per class: Satisfied is DQoES |S|, Ahead |G|, Behind |B|',
      labelNames: ['class'],
      registers,
    });
    this.qoeBehindSeconds = new Counter({
      name: 'tfjob_operator_qoe_behind_seconds_total',
      help: 'Seconds each TFJob with a performance target ran behind it',
      labelNames: ['namespace', 'tfjob'],
      registers,
    });
  }
}
