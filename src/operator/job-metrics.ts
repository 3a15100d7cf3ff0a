// tf-operator's job counters, with its names and labels, so existing dashboards keep working.
import { Counter, type Registry } from 'prom-client';

export class JobMetrics {
  readonly created: Counter<'job_namespace' | 'framework'>;
  readonly deleted: Counter<'job_namespace' | 'framework'>;
  readonly successful: Counter<'job_namespace' | 'framework'>;
  readonly failed: Counter<'job_namespace' | 'framework'>;
  readonly restarted: Counter<'job_namespace' | 'framework'>;
  /** Ours: pods a kubelet refused (OutOfcpu, ...), deleted and placed again (kubelet-rejection.ts). */
  readonly podRejections: Counter<'reason'>;

  constructor(registry: Registry) {
    const make = (what: string, help: string) =>
      new Counter({
        name: `training_operator_jobs_${what}_total`,
        help,
        labelNames: ['job_namespace', 'framework'],
        registers: [registry],
      });
    this.created = make('created', 'Counts number of jobs created');
    this.deleted = make('deleted', 'Counts number of jobs deleted');
    this.successful = make('successful', 'Counts number of jobs successful');
    this.failed = make('failed', 'Counts number of jobs failed');
    this.restarted = make('restarted', 'Counts number of jobs restarted');
    this.podRejections = new Counter({
      name: 'tfjob_operator_pod_rejections_total',
      help: 'Replica pods a kubelet refused to admit (by its reason), deleted so their replicas are placed again',
      labelNames: ['reason'],
      registers: [registry],
    });
  }
}
