// Prometheus metrics named like controller-runtime's (so existing dashboards and alerts work), on a
// dedicated registry. Components receive the small observer interfaces below, not prom-client.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { WorkQueue, WorkQueueObserver } from './workqueue.ts';

export interface ControllerObserver {
  reconciled(result: 'success' | 'error' | 'requeue' | 'requeue_after', seconds: number): void;
  panicked(): void;
  activeWorkers(delta: number): void;
}

/** The work queues' gauges, read from the queues themselves when scraped (client-go's names). */
function workQueueGauges(queues: ReadonlyMap<string, WorkQueue>, registers: Registry[]): void {
  const gauges: [string, string, (q: WorkQueue) => number][] = [
    ['workqueue_depth', 'Current depth of workqueue', (q) => q.length],
    [
      'workqueue_unfinished_work_seconds',
      "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
      (q) => q.unfinishedWorkSeconds(),
    ],
    [
      'workqueue_longest_running_processor_seconds',
      'How many seconds has the longest running processor for workqueue been running',
      (q) => q.longestRunningProcessorSeconds(),
    ],
  ];
  for (const [name, help, read] of gauges) {
    new Gauge({
      name,
      help,
      labelNames: ['name', 'controller'],
      registers,
      collect() {
        for (const [queue, q] of queues) this.set({ name: queue, controller: queue }, read(q));
      },
    });
  }
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class RuntimeMetrics {
  readonly registry: Registry;
  readonly #reconcileTotal: Counter<'controller' | 'result'>;
  readonly #reconcileErrors: Counter<'controller'>;
  readonly #panics: Counter<'controller'>;
  readonly #reconcileTime: Histogram<'controller'>;
  readonly #activeWorkers: Gauge<'controller'>;
  readonly #maxConcurrent: Gauge<'controller'>;
  readonly #wqAdds: Counter<'name' | 'controller'>;
  readonly #wqRetries: Counter<'name' | 'controller'>;
  readonly #wqQueueDuration: Histogram<'name' | 'controller'>;
  readonly #wqWorkDuration: Histogram<'name' | 'controller'>;
  readonly #queues = new Map<string, WorkQueue>();
  readonly restClientRequests: Counter<'code' | 'method' | 'host'>;
  readonly restClientLatency: Histogram<'verb' | 'host'>;
  readonly leaderStatus: Gauge<'name'>;
  readonly leaderSlowpath: Counter<'name'>;
  readonly informerEvents: Counter<'informer' | 'event'>;

  constructor(registry = new Registry(), opts: { defaultMetrics?: boolean } = {}) {
    this.registry = registry;
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
    const registers = [registry];
    const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
      new Counter<L>({ name, help, labelNames, registers });
    const gauge = <L extends string>(name: string, help: string, labelNames: L[]) => new Gauge<L>({ name, help, labelNames, registers });
    const histogram = <L extends string>(name: string, help: string, labelNames: L[]) =>
      new Histogram<L>({ name, help, labelNames, buckets: DURATION_BUCKETS, registers });
    this.#reconcileTotal = counter('controller_runtime_reconcile_total', 'Total number of reconciliations per controller', [
      'controller',
      'result',
    ]);
    this.#reconcileErrors = counter('controller_runtime_reconcile_errors_total', 'Total number of reconciliation errors per controller', [
      'controller',
    ]);
    // controller-runtime's name, kept for dashboards; the TFJob reconciler has no terminal errors (an
    // invalid spec is reported on the object and not requeued), so it stays without samples.
    counter('controller_runtime_terminal_reconcile_errors_total', 'Total number of terminal reconciliation errors per controller', [
      'controller',
    ]);
    this.#panics = counter('controller_runtime_reconcile_panics_total', 'Total number of reconciliation panics per controller', [
      'controller',
    ]);
    this.#reconcileTime = histogram('controller_runtime_reconcile_time_seconds', 'Length of time per reconciliation per controller', [
      'controller',
    ]);
    this.#activeWorkers = gauge('controller_runtime_active_workers', 'Number of currently used workers per controller', ['controller']);
    this.#maxConcurrent = gauge('controller_runtime_max_concurrent_reconciles', 'Maximum number of concurrent reconciles per controller', [
      'controller',
    ]);
    this.#wqAdds = counter('workqueue_adds_total', 'Total number of adds handled by workqueue', ['name', 'controller']);
    this.#wqRetries = counter('workqueue_retries_total', 'Total number of retries handled by workqueue', ['name', 'controller']);
    this.#wqQueueDuration = histogram(
      'workqueue_queue_duration_seconds',
      'How long in seconds an item stays in workqueue before being requested',
      ['name', 'controller'],
    );
    this.#wqWorkDuration = histogram('workqueue_work_duration_seconds', 'How long in seconds processing an item from workqueue takes', [
      'name',
      'controller',
    ]);
    workQueueGauges(this.#queues, registers);
    this.restClientRequests = counter(
      'rest_client_requests_total',
      'Number of HTTP requests, partitioned by status code, method, and host',
      ['code', 'method', 'host'],
    );
    this.restClientLatency = histogram('rest_client_request_duration_seconds', 'Request latency in seconds, by verb and host', [
      'verb',
      'host',
    ]);
    this.leaderStatus = gauge(
      'leader_election_master_status',
      'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
      ['name'],
    );
    this.leaderSlowpath = counter('leader_election_slowpath_total', 'Total number of slow path exercised in renewing leader leases', [
      'name',
    ]);
    this.informerEvents = counter(
      'tfjob_operator_informer_events_total',
      'Lists, watch (re)connects, errors and 410 Gone relists per informer',
      ['informer', 'event'],
    );
  }

  workQueueObserver(name: string): WorkQueueObserver {
    const labels = { name, controller: name };
    return {
      added: () => {
        this.#wqAdds.inc(labels);
      },
      retried: () => {
        this.#wqRetries.inc(labels);
      },
      started: (_k, ms) => {
        this.#wqQueueDuration.observe(labels, ms / 1000);
      },
      finished: (_k, ms) => {
        this.#wqWorkDuration.observe(labels, ms / 1000);
      },
    };
  }

  registerQueue(name: string, queue: WorkQueue): void {
    this.#queues.set(name, queue);
  }

  controllerObserver(controller: string, maxConcurrent: number): ControllerObserver {
    this.#maxConcurrent.set({ controller }, maxConcurrent);
    this.#activeWorkers.set({ controller }, 0);
    return {
      reconciled: (result, seconds) => {
        this.#reconcileTotal.inc({ controller, result });
        if (result === 'error') this.#reconcileErrors.inc({ controller });
        this.#reconcileTime.observe({ controller }, seconds);
      },
      panicked: () => {
        this.#panics.inc({ controller });
      },
      activeWorkers: (delta) => {
        this.#activeWorkers.inc({ controller }, delta);
      },
    };
  }
}
