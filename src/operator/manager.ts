// Assembles the operator (controller-runtime's Manager, in small): API clients, caches, the TFJob
// controller, the scheduling loop, leader election, metrics and health probes, and an orderly
// shutdown. Caches run on every replica (a standby is warm); only the leader reconciles.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { CONTROLLER_NAME } from '../api/v1/constants.ts';
import { Controller, controllerQueue } from '../runtime/controller.ts';
import { DEFAULT_PERIOD_CONFIG, rateConfig } from '../progress/signals/index.ts';
import { isPlacingPolicy } from '../scheduler/index.ts';
import { KubeEventRecorder } from '../runtime/events.ts';
import { Expectations } from '../runtime/expectations.ts';
import { PodsInFlight } from './scheduling/pods-in-flight.ts';
import { HealthServer } from '../runtime/health.ts';
import { KubeClients } from '../runtime/kube-client.ts';
import { LeaderElector } from '../runtime/leader-election.ts';
import { createLogger, type Logger } from '../runtime/logger.ts';
import { RuntimeMetrics } from '../runtime/metrics.ts';
import type { WorkQueue } from '../runtime/workqueue.ts';
import { namespacedKey, objectKey } from '../runtime/store.ts';
import { elasticOptions, type OperatorConfig } from './config.ts';
import { ROUTINE_EVENT_REASONS, UNFILTERED_EVENT_REASONS } from './event-policy.ts';
import { BY_JOB, createOperatorCaches, type OperatorCaches } from './informers.ts';
import { JobMetrics } from './job-metrics.ts';
import { KubePodResizer } from '../progress/follower/cpu-resize.ts';
import { KubeLogSource } from '../progress/follower/kube-log-source.ts';
import { ProgressLoop } from '../progress/follower/loop.ts';
import { ProgressMetrics } from '../progress/follower/metrics.ts';
import { ProgressReader } from '../progress/follower/reader.ts';
import { createAllPodsCache, type AllPodsCache } from './pod-cache.ts';
import { PrioritySchedulingLoop, type SchedulingLoop } from './scheduling/loop.ts';
import { TFJobController } from './tfjob-controller.ts';
import { verticalStage, type VerticalStage } from './vertical/index.ts';
import { MigrationSteering, movingTarget } from './migration/steering.ts';

/** How long a graceful stop waits for pending event writes before dropping them. */
const EVENT_FLUSH_DEADLINE_MS = 5_000;

export interface OperatorOptions {
  /** Use this client configuration instead of --kubeconfig (tests, the demo). */
  readonly kubeConfig?: KubeConfig;
  readonly logger?: Logger;
  /** Called when leadership is lost: the process must stop acting (the CLI exits). */
  readonly onLeadershipLost?: () => void;
}

export class Operator {
  readonly config: OperatorConfig;
  readonly logger: Logger;
  readonly clients: KubeClients;
  readonly caches: OperatorCaches;
  readonly controller: Controller;
  readonly registry: Registry;
  readonly identity: string;
  readonly #recorder: KubeEventRecorder;
  readonly #health: HealthServer[] = [];
  readonly #elector: LeaderElector | undefined;
  readonly #scheduling: SchedulingLoop | undefined;
  /** Reads training progress from the jobs' logs (--progress-period > 0). */
  readonly #progress: ProgressLoop | undefined;
  /** In-place CPU limits of running jobs (--vertical-policy). */
  readonly #vertical: VerticalStage | undefined;
  readonly #opts: OperatorOptions;
  #leading = false;
  #stopping = false;

  constructor(config: OperatorConfig, opts: OperatorOptions = {}) {
    this.config = config;
    this.#opts = opts;
    this.logger = opts.logger ?? createLogger({ level: config.logLevel });
    this.identity = config.identity !== '' ? config.identity : `${os.hostname()}-${randomBytes(4).toString('hex')}`;
    const kc = opts.kubeConfig ?? loadKubeConfig(config.kubeconfig);
    this.registry = new Registry();
    const metrics = new RuntimeMetrics(this.registry);
    // Every request names this replica (`kubectl get events`'s reportingInstance does the same for
    // events), so the API server's audit log tells which replica made a write.
    const userAgent = `tfjob-operator (${process.platform}/${process.arch}) ${CONTROLLER_NAME}/${this.identity}`;
    const rateLimit = { qps: config.kubeApiQps, burst: config.kubeApiBurst };
    this.clients = new KubeClients(kc, { rateLimit, metrics, userAgent });
    const cacheDeps = { kc, clients: this.clients, namespaces: config.namespace, logger: this.logger, metrics };
    // Placing pods, the operator reads every pod (the scheduler counts them all): one cache for both.
    const allPods = isPlacingPolicy(config.policy) ? createAllPodsCache(cacheDeps) : undefined;
    this.caches = createOperatorCaches({ ...cacheDeps, ...(allPods === undefined ? {} : { pods: allPods.owned }) });
    // Events get a client of their own (its own rate limiter, as controller-runtime's broadcaster has
    // its own clientset): under a burst they must not take the budget pod and service creates need.
    const eventClients = new KubeClients(kc, { rateLimit, metrics, userAgent });
    this.#recorder = new KubeEventRecorder(eventClients, {
      controller: CONTROLLER_NAME,
      instance: this.identity,
      logger: this.logger,
      routineReasons: ROUTINE_EVENT_REASONS,
      unfilteredReasons: UNFILTERED_EVENT_REASONS,
    });
    const expectations = new Expectations();
    const podsInFlight = new PodsInFlight();
    const jobMetrics = new JobMetrics(this.registry);

    // Wiring order: the work queue first (the other loops enqueue into it), then the progress loop
    // (the scheduler reads phases from it), the scheduling loop (the TFJob controller asks it), then
    // the TFJob controller, then the reconcile workers.
    const queue = controllerQueue(CONTROLLER_NAME, metrics);
    // The progress loop before the scheduling loop: the scheduler reads each job's phase from it.
    // Jobs with a performance target (spec.qoe) are always followed: the scheduler needs their step
    // rate. --progress-period > 0 follows every running job.
    this.#progress = this.#progressLoop(queue);
    // specon: the vertical stage steers the scheduling pass's placement of a migrated worker.
    const steering =
      config.verticalPolicy === 'specon' ? new MigrationSteering(undefined, (key) => movingTarget(this.caches.tfjobs.get(key))) : undefined;
    this.#vertical = verticalStage(config, {
      clients: this.clients,
      caches: this.caches,
      progress: this.#progress,
      recorder: this.#recorder,
      logger: this.logger,
      registry: this.registry,
      ...(steering === undefined ? {} : { steering }),
    });
    this.#scheduling =
      allPods === undefined ? undefined : this.#schedulingLoop({ kc, allPods, queue, metrics, expectations, podsInFlight, steering });
    const tfjobController = this.#tfjobController({ expectations, podsInFlight, jobMetrics });
    this.controller = new Controller({
      name: CONTROLLER_NAME,
      logger: this.logger,
      workers: config.controllerThreads,
      metrics,
      objectLogKey: 'tfjob',
      queue,
      reconciler: tfjobController.reconcile,
    });
    tfjobController.watch(this.controller);

    this.#elector = config.leaderElect ? this.#leaderElector(metrics) : undefined;
  }

  /** The scheduling loop of a placing policy (the operator places pods itself); none for tf-operator. */
  #schedulingLoop(w: {
    kc: KubeConfig;
    allPods: AllPodsCache;
    queue: WorkQueue;
    metrics: RuntimeMetrics;
    expectations: Expectations;
    podsInFlight: PodsInFlight;
    steering: MigrationSteering | undefined;
  }): PrioritySchedulingLoop | undefined {
    const { config } = this;
    const policy = config.policy;
    if (!isPlacingPolicy(policy)) return undefined;
    return new PrioritySchedulingLoop({
      config,
      policy,
      clients: this.clients,
      kubeConfig: w.kc,
      caches: { tfjobs: this.caches.tfjobs, pods: this.caches.pods, activePods: w.allPods.active },
      enqueue: (key) => {
        w.queue.add(key);
      },
      logger: this.logger,
      registry: this.registry,
      metrics: w.metrics,
      recorder: this.#recorder,
      creates: w.expectations,
      podsInFlight: w.podsInFlight,
      ...(this.#progress === undefined ? {} : { progress: this.#progress }),
      ...(w.steering === undefined ? {} : { migration: w.steering }),
    });
  }

  #tfjobController(w: { expectations: Expectations; podsInFlight: PodsInFlight; jobMetrics: JobMetrics }): TFJobController {
    const { config } = this;
    return new TFJobController({
      clients: this.clients,
      caches: this.caches,
      expectations: w.expectations,
      // Only the scheduling loop reads (and prunes) them.
      ...(this.#scheduling === undefined ? {} : { podsInFlight: w.podsInFlight }),
      recorder: this.#recorder,
      jobMetrics: w.jobMetrics,
      options: {
        clusterDomain: config.clusterDomain,
        legacyLabels: config.legacyLabels,
        notTrainingAfterMs: config.notTrainingAfter,
        ...elasticOptions(config),
      },
      ...(this.#scheduling === undefined ? {} : { scheduling: this.#scheduling }),
      ...(this.#progress === undefined ? {} : { progress: this.#progress }),
    });
  }

  /** The progress follower, or none when no job needs following (see the constructor). */
  #progressLoop(queue: WorkQueue): ProgressLoop | undefined {
    const config = this.config;
    if (!(config.progressPeriod > 0 || isPlacingPolicy(config.policy))) return undefined;
    const periodMs = (config.progressPeriod > 0 ? config.progressPeriod : DEFAULT_PERIOD_CONFIG.initialMs) / config.timeScale;
    return new ProgressLoop({
      jobs: () => this.caches.tfjobs.list(),
      pod: (namespace, name) => this.caches.pods.get(namespacedKey(namespace, name)),
      podsOf: (key) => this.caches.pods.byIndex(BY_JOB, key),
      followAll: config.progressPeriod > 0,
      qoeClassOf: (key) => this.#scheduling?.qoeClassOf(key),
      metrics: new ProgressMetrics(this.registry),
      reader: new ProgressReader({
        logs: new KubeLogSource(this.clients),
        maxReadsPerRound: Math.max(1, Math.floor(config.progressReadsPerSecond * (periodMs / 1000))),
        rate: rateConfig(config.qoeRateWindow / config.timeScale),
      }),
      event: (job, type, reason, message) => {
        this.#recorder.event(job, type, reason, message);
      },
      changed: (key) => {
        queue.add(key);
      },
      log: this.logger.child({ component: 'progress' }),
      period: { initialMs: periodMs, maxMs: 8 * periodMs },
      ...(config.resizeConvergedCpu > 0
        ? { resize: { fraction: config.resizeConvergedCpu, resizer: new KubePodResizer(this.clients) } }
        : {}),
    });
  }

  /** --leader-elect: takes over on leading; on a lost lease, stops taking work at once. */
  #leaderElector(metrics: RuntimeMetrics): LeaderElector {
    const config = this.config;
    return new LeaderElector(
      this.clients,
      {
        namespace: config.leaderElectionNamespace,
        name: config.leaderElectionId,
        identity: this.identity,
        leaseDurationMs: config.leaderElectionLeaseDuration,
        renewDeadlineMs: config.leaderElectionRenewDeadline,
        retryPeriodMs: config.leaderElectionRetryPeriod,
      },
      {
        onStartedLeading: () => {
          void this.#takeOver();
        },
        onStoppedLeading: (reason) => {
          this.#leading = false;
          if (reason !== 'lost') return;
          // Another replica may be acting already: no new work from here on, also when the lease
          // is lost in the middle of a graceful stop (which would otherwise go on taking work
          // while in-flight reconciles drain).
          this.controller.queue.shutdown();
          void this.#scheduling?.stop();
          void this.#progress?.stop();
          void this.#vertical?.stop();
          if (!this.#stopping) this.#opts.onLeadershipLost?.();
        },
        onNewLeader: (id) => {
          this.logger.info({ leader: id }, 'New leader observed');
        },
      },
      { logger: this.logger, metrics },
    );
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  get synced(): boolean {
    return this.caches.tfjobs.hasSynced && this.caches.pods.hasSynced && this.caches.services.hasSynced;
  }

  /** Starts caches, probes and (once leading) the controller; resolves when caches are synced. */
  async start(): Promise<void> {
    this.logger.info(
      { identity: this.identity, policy: this.config.policy, namespaces: this.config.namespace },
      'Starting the TFJob operator',
    );
    await this.#startServers();
    this.caches.tfjobs.start();
    this.caches.pods.start();
    this.caches.services.start();
    this.#scheduling?.startCaches();
    await Promise.all([
      this.caches.tfjobs.waitForSync(),
      this.caches.pods.waitForSync(),
      this.caches.services.waitForSync(),
      this.#scheduling?.waitForCaches(),
    ]);
    this.logger.info({ tfjobs: this.caches.tfjobs.size, pods: this.caches.pods.size }, 'Caches synced');
    if (this.#elector === undefined) this.#startLeading();
    else void this.#elector.run();
  }

  /**
   * Taking the lead from another replica: every pod is listed again before the first pass. The
   * standby's watch may lag behind pods the previous leader created just before it handed over, and
   * a pass on such a cache would count their room as free (pods placed by nodeName on a full node).
   */
  async #takeOver(): Promise<void> {
    this.#leading = true;
    const started = performance.now();
    await this.caches.pods.resync();
    // Leadership may have been lost, or a stop begun, while listing.
    if (!this.isLeader || this.#stopping) return;
    this.logger.info({ pods: this.caches.pods.size, ms: Math.round(performance.now() - started) }, 'Pods listed again on taking the lead');
    this.#startLeading();
  }

  #startLeading(): void {
    if (this.#stopping) return;
    this.#leading = true;
    this.#scheduling?.start();
    this.#progress?.start();
    this.#vertical?.start();
    this.controller.start();
    // Level-triggered: every known job is reconciled once on taking over.
    for (const job of this.caches.tfjobs.list()) this.controller.enqueue(objectKey(job));
  }

  async #startServers(): Promise<void> {
    const readyChecks = {
      caches: () => ({ ok: this.synced, detail: 'informer caches not synced' }),
      scheduler: () => ({
        ok: this.#scheduling === undefined || this.#scheduling.ready(this.#leading),
        detail: 'scheduler has not completed a pass',
      }),
    };
    const healthChecks = { ping: () => ({ ok: true }) };
    const metricsAddr = this.config.metricsBindAddress;
    const probeAddr = this.config.healthProbeBindAddress;
    if (metricsAddr !== '0' && metricsAddr === probeAddr) {
      this.#health.push(
        new HealthServer({ address: metricsAddr, registry: this.registry, healthChecks, readyChecks, logger: this.logger }),
      );
    } else {
      if (metricsAddr !== '0') this.#health.push(new HealthServer({ address: metricsAddr, registry: this.registry, logger: this.logger }));
      if (probeAddr !== '0') this.#health.push(new HealthServer({ address: probeAddr, healthChecks, readyChecks, logger: this.logger }));
    }
    for (const s of this.#health) await s.listen();
  }

  /** Graceful stop: no new work, in-flight reconciles finish, events flushed, lease released. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    this.logger.info('Shutting down');
    // Together: no scheduling pass or progress round may start while reconciles drain.
    await Promise.all([this.controller.stop(), this.#scheduling?.stop(), this.#progress?.stop(), this.#vertical?.stop()]);
    await this.#recorder.flush(EVENT_FLUSH_DEADLINE_MS);
    await this.#elector?.stop();
    this.caches.tfjobs.stop();
    this.caches.pods.stop();
    this.caches.services.stop();
    for (const s of this.#health) await s.close();
    this.logger.info('Stopped');
  }
}

export function loadKubeConfig(file: string): KubeConfig {
  const kc = new KubeConfig();
  if (file !== '') kc.loadFromFile(file);
  else kc.loadFromDefault();
  return kc;
}
