// The priority scheduler on a live cluster, as a pipeline of small stages:
//
//   pass/trigger.ts    when a pass runs (events, debounced; a timer; retry after a failure)
//   pass/snapshot.ts   informer stores in, the core's ClusterSnapshot out             (pure)
//   pass/decide.ts     the scheduling core: policy plan + repairs                     (pure)
//   pass/apply.ts      the plan becomes decision book transitions and removals
//   pass/report*.ts    events, metrics, status.qoe; queues/status.ts the queues' statuses
//   decisions/input.ts what the TFJob controller reads for one job between passes  (pure)
//
// This file only wires them: it owns the decision book (decisions/book.ts, its one writer) and the
// trigger, and runs the stages in order. Decisions live in memory, but everything needed to rebuild
// them after a restart is in the API: the queue, enqueue time and counters in the job's status,
// placements on the pods.
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import { LABEL_REPLICA_TYPE } from '../../api/v1/constants.ts';
import type { TFJobEntry } from '../../api/v1/parse.ts';
import type { QoeStatus } from '../../api/v1/schema.ts';
import { isControlledBy, type SchedulingInput } from '../../reconciler/tfjob/index.ts';
import type { JobProgress, PlacingPolicyName, SchedulerConfig, StepRate } from '../../scheduler/index.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import type { Expectations } from '../../runtime/expectations.ts';
import type { KubeClients } from '../../runtime/kube-client.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { RuntimeMetrics } from '../../runtime/metrics.ts';
import { objectKey } from '../../runtime/store.ts';
import { schedulerConfigFrom, type OperatorConfig } from '../config.ts';
import { BY_JOB, controllingJobKey, type OperatorCaches } from '../informers.ts';
import type { ActivePods } from '../pod-cache.ts';
import type { SchedulingSource } from '../tfjob-controller.ts';
import { applyDecisions } from './pass/apply.ts';
import {
  createSchedulerCaches,
  startSchedulerCaches,
  stopSchedulerCaches,
  waitForSchedulerCaches,
  type SchedulerCaches,
} from './caches.ts';
import { decide, idleAfterRepairs, type MigrationHook } from './pass/decide.ts';
import { DecisionBook } from './decisions/book.ts';
import { restoreDecision } from './decisions/decision.ts';
import { readInput, type InputCache } from './decisions/input.ts';
import { placedElsewhereInput } from './decisions/elsewhere.ts';
import { SchedulerMetrics } from './metrics.ts';
import { NodeHealth } from './node-health.ts';
import { KubePodRemover, type PodRemover } from './pod-remover.ts';
import { isFinished, isLiveWorker, podNode } from './pod-facts.ts';
import { avoidNodesThatRefuse } from './refused-nodes.ts';
import { workerBoundsOf } from './worker-bounds.ts';
import { QoeBook } from './pass/report-qoe.ts';
import { SchedulingReporter } from './pass/report.ts';
import { JobShapes, jobView } from './pass/job-shape.ts';
import { snapshotOptionsOf } from './pass/options.ts';
import { takeSnapshot, type JobFacts, type SnapshotOptions, type SnapshotSources } from './pass/snapshot.ts';
import { PassTrigger } from './pass/trigger.ts';
import type { PodsInFlight } from './pods-in-flight.ts';
import { placementTrace } from './pass/trace.ts';
import { summarizeQueues, type ClusterSnapshot, type Plan } from '../../scheduler/index.ts';
import { queueLookups } from './queues/caches.ts';
import { connectQueues, type ConnectedQueues } from './queues/connect.ts';
import { queueDirectory, type QueueDirectorySnapshot } from './queues/directory.ts';
import { QueueMetrics } from './queues/status.ts';

/** The priority scheduler's lifecycle, as the manager drives it. */
export interface SchedulingLoop extends SchedulingSource {
  /** Extra caches (nodes, priority classes, queues): started on every replica. */
  startCaches(): void;
  waitForCaches(): Promise<void>;
  /** Scheduling passes: only on the leader. */
  start(): void;
  stop(): Promise<void>;
  /**
   * True once caches synced and, when `leading`, a first pass ran. The manager says whether it
   * leads: between taking the lead and the first pass (pods listed again) no pass has run yet.
   */
  ready(leading: boolean): boolean;
  /** The job's class against its performance target after the last pass (the progress loop's period). */
  qoeClassOf(key: string): string | undefined;
}

/** Everything the loop uses, passed in by the manager. */
export interface SchedulingLoopDeps {
  readonly config: OperatorConfig;
  readonly policy: PlacingPolicyName;
  readonly clients: KubeClients;
  readonly kubeConfig: KubeConfig;
  /** The TFJob controller's caches (TFJobs, owned pods) and every pod using capacity (one pod cache). */
  readonly caches: Pick<OperatorCaches, 'tfjobs' | 'pods'> & { readonly activePods: ActivePods };
  /** Puts a job key on the TFJob controller's work queue. */
  readonly enqueue: (key: string) => void;
  readonly logger: Logger;
  readonly registry: Registry;
  readonly metrics: RuntimeMetrics;
  readonly recorder: EventRecorder;
  /** Replaces the API-backed pod removal (unit tests). */
  readonly remover?: PodRemover;
  /** The TFJob controller's expectations: which jobs have pod creates in flight. */
  readonly creates?: Pick<Expectations, 'creatingAny'>;
  /** The pods those creates make, whatever becomes of their jobs (pods-in-flight.ts). */
  readonly podsInFlight?: PodsInFlight;
  /** Training phases and step rates read from the jobs' logs; absent: none. */
  readonly progress?: { phaseOf(key: string): JobProgress | undefined; stepRateOf(key: string): StepRate | undefined };
  /** SpeCon's migrations (--vertical-policy specon): steer replacements, see each pass's room. */
  readonly migration?: MigrationHook;
}

export class PrioritySchedulingLoop implements SchedulingLoop {
  readonly #deps: SchedulingLoopDeps;
  readonly #log: Logger;
  readonly #schedulerConfig: SchedulerConfig;
  readonly #snapshotOptions: SnapshotOptions;
  readonly #caches: SchedulerCaches;
  readonly #book = new DecisionBook();
  readonly #shapes = new JobShapes();
  readonly #nodeHealth: NodeHealth;
  readonly #remover: PodRemover;
  readonly #reporter: SchedulingReporter;
  readonly #trigger: PassTrigger;
  readonly #qoe = new QoeBook();
  readonly #queueMetrics: QueueMetrics;
  /** Present once discovery found the queue CRDs served (waitForCaches). */
  #queues: ConnectedQueues | undefined;
  #passes = 0;

  constructor(deps: SchedulingLoopDeps) {
    const { config } = deps;
    this.#deps = deps;
    this.#log = deps.logger.child({ component: 'scheduler', policy: deps.policy });
    this.#schedulerConfig = schedulerConfigFrom(config);
    this.#snapshotOptions = snapshotOptionsOf(config);
    this.#caches = createSchedulerCaches({ kc: deps.kubeConfig, clients: deps.clients, logger: deps.logger, metrics: deps.metrics });
    this.#nodeHealth = new NodeHealth(config.nodeLostGrace / config.timeScale);
    this.#remover = deps.remover ?? new KubePodRemover(deps.clients, this.#log);
    this.#reporter = new SchedulingReporter(deps.recorder, new SchedulerMetrics(deps.registry));
    this.#queueMetrics = new QueueMetrics(deps.registry);
    this.#trigger = new PassTrigger(() => this.pass(), {
      debounceMs: config.schedulingDebounce / config.timeScale,
      intervalMs: config.schedulingInterval / config.timeScale,
      log: this.#log,
    });
    this.#wireTriggers();
  }

  // --- lifecycle (SchedulingLoop) ---

  startCaches(): void {
    startSchedulerCaches(this.#caches);
  }

  async waitForCaches(): Promise<void> {
    this.#queues ??= await connectQueues({
      clients: this.#deps.clients,
      kubeConfig: this.#deps.kubeConfig,
      namespaces: this.#deps.config.namespace,
      logger: this.#deps.logger,
      log: this.#log,
      metrics: this.#deps.metrics,
      queueMetrics: this.#queueMetrics,
      trigger: (why) => {
        this.trigger(why);
      },
    });
    await waitForSchedulerCaches(this.#caches);
    if (this.#queues !== undefined)
      await Promise.all([
        this.#queues.caches.clusterQueues.waitForSync(),
        this.#queues.caches.localQueues.waitForSync(),
        this.#queues.caches.namespaces?.waitForSync(),
      ]);
  }

  start(): void {
    this.#trigger.start();
  }

  async stop(): Promise<void> {
    await this.#trigger.stop();
    stopSchedulerCaches(this.#caches);
    this.#queues?.caches.clusterQueues.stop();
    this.#queues?.caches.localQueues.stop();
    this.#queues?.caches.namespaces?.stop();
  }

  ready(leading: boolean): boolean {
    const c = this.#queues?.caches;
    const queues = c === undefined || (c.clusterQueues.hasSynced && c.localQueues.hasSynced && (c.namespaces?.hasSynced ?? true));
    const synced =
      queues && this.#caches.nodes.hasSynced && this.#deps.caches.activePods.hasSynced && this.#caches.priorityClasses.hasSynced;
    return synced && (!leading || this.#passes > 0);
  }

  /** Requests a pass soon (see PassTrigger). */
  trigger(why: string): void {
    this.#trigger.request(why);
  }

  // --- one pass: snapshot → decide → apply → report ---

  async pass(): Promise<void> {
    const started = performance.now();
    const now = Date.now();
    const sources = this.#sources();
    const { snapshot, facts, upkeep, elsewhere } = takeSnapshot(sources, this.#book, this.#shapes, this.#snapshotOptions, now);
    this.#book.upkeep(upkeep);
    this.#reporter.placedElsewhere(elsewhere);
    // Victims gone from the cache no longer block (their delete event may have been missed).
    const { activePods } = this.#deps.caches;
    this.#book.pruneVictims((victim) => {
      const pod = activePods.get(victim);
      return pod === undefined ? undefined : { uid: pod.metadata?.uid };
    });
    const decided = decide(this.#deps.policy, snapshot, facts, this.#schedulerConfig, (job) => this.#deps.migration?.preferredNode(job));
    this.#deps.migration?.passed({ nodes: snapshot.nodes, idle: idleAfterRepairs(snapshot, decided) });
    const applied = await applyDecisions(this.#book, this.#remover, facts, decided, now, {
      starveLimitMs: this.#schedulerConfig.starveLimitMs,
      timeScale: this.#deps.config.timeScale,
      avoidRefusedNodeMs: this.#deps.config.refusedNodeAvoidFor / this.#deps.config.timeScale,
    });
    // Every node a pass places on, with what it counted there: an over-commit names its pass.
    if (this.#log.isLevelEnabled('info')) {
      for (const t of placementTrace(snapshot, decided.plan, decided.repairs)) this.#log.info(t, 'Placed pods on node');
    }
    this.#reporter.outcomes(applied, facts, now);
    await this.#publishQueues(sources.queues, decided.plan, snapshot, facts, now);
    for (const key of applied.touched) this.#deps.enqueue(key);
    const raw = new Map(facts.map((f) => [f.key, f.raw]));
    const qoe = this.#qoe.update(snapshot.jobs, (key) => raw.get(key), now);
    this.#reporter.qoe(qoe, facts);
    for (const key of qoe.changed) this.#deps.enqueue(key);
    if (applied.error !== undefined) throw applied.error;
    this.#passes += 1;
    const finishedJobs = this.#deps.caches.tfjobs.list().filter(isFinished).length;
    this.#reporter.queues(facts, this.#book, finishedJobs, (performance.now() - started) / 1000);
    const { plan, repairs } = decided;
    this.#log.debug(
      {
        jobs: facts.length,
        admitted: plan.admit.length,
        scaledIn: plan.scaleIn.length,
        scaledOut: plan.scaleOut.length,
        repaired: repairs.length,
        waiting: plan.waiting.length,
        ms: Math.round(performance.now() - started),
      },
      'Scheduling pass',
    );
    if (this.#log.isLevelEnabled('trace')) {
      this.#log.trace(
        {
          nodes: snapshot.nodes.map((n) => `${n.name}:${n.ready ? 'ready' : 'notready'}${n.unschedulable ? ',cordoned' : ''}`),
          otherPods: snapshot.otherPods.map((p) => `${p.key}@${p.node}`),
          jobs: snapshot.jobs.map(
            (j) => `${j.spec.key}:${j.phase}:${j.replicas.map((r) => `${r.type}-${r.index}@${r.node ?? '-'}`).join(',')}`,
          ),
        },
        'Scheduling snapshot',
      );
    }
  }

  /** Queue statuses and metrics (the report stage, queues); nothing without the queue CRDs. */
  async #publishQueues(
    directory: QueueDirectorySnapshot,
    plan: Plan,
    snapshot: ClusterSnapshot,
    facts: readonly JobFacts[],
    now: number,
  ): Promise<void> {
    if (this.#queues === undefined) return;
    const admitted = new Set(plan.admit.map((a) => a.job));
    const jobs = facts.map((f) => {
      const { localQueue } = directory.resolve(f.raw.metadata.namespace ?? '', f.raw.metadata.labels);
      return {
        key: f.key,
        running: f.state.phase === 'running' || admitted.has(f.key),
        ...(localQueue === undefined ? {} : { localQueue }),
      };
    });
    await this.#queues.writer.publish(summarizeQueues(snapshot, plan), directory, jobs, now);
  }

  #sources(): SnapshotSources {
    const { tfjobs, pods } = this.#deps.caches;
    const nodes = this.#caches.nodes.store;
    return {
      tfjobs: tfjobs.list(),
      podsOf: (key) => pods.byIndex(BY_JOB, key),
      allPods: this.#deps.caches.activePods.list(),
      nodes: nodes.list(),
      priorityClassValue: (name) => this.#caches.priorityClasses.store.get(name)?.value,
      nodeLost: (node, now) => this.#nodeHealth.lost(node, node === undefined || nodes.get(node) !== undefined, now),
      progressOf: (key) => this.#deps.progress?.phaseOf(key),
      stepRateOf: (key) => this.#deps.progress?.stepRateOf(key),
      podCreatesInFlight: (key) => this.#deps.creates?.creatingAny(key, 'pod/') ?? false,
      ...(this.#deps.podsInFlight === undefined ? {} : { podsInFlight: this.#deps.podsInFlight.current(Date.now()) }),
      queues: queueDirectory(this.#queues === undefined ? undefined : queueLookups(this.#queues.caches)),
    };
  }

  // --- the TFJob controller asks (SchedulingSource) ---

  /** A pure read: a job the book does not know yet reads as rebuilt from the API (the pass adopts it). */
  inputFor(key: string, job: TFJobEntry, pods: readonly V1Pod[]): SchedulingInput | undefined {
    if (!job.ok) return undefined;
    const now = Date.now();
    const view = jobView(job, this.#snapshotOptions);
    const shape = this.#shapes.get(job, this.#snapshotOptions);
    const named = shape?.named;
    if (named !== undefined) {
      const workers = view.elastic?.max ?? view.replicas.Worker ?? 0;
      const own = pods.filter((p) => isControlledBy(p, job.job.metadata.uid ?? ''));
      return placedElsewhereInput({ named, pods: own, finished: isFinished(job), elastic: view.elastic !== undefined, workers });
    }
    const decision = this.#book.get(key) ?? restoreDecision(job.job, pods, now);
    const facts = {
      elastic: view.elastic !== undefined,
      bounds: workerBoundsOf(view, pods),
      finished: isFinished(job),
      liveWorkers: pods.filter(isLiveWorker).length,
      placedBy: this.#deps.policy,
    };
    return readInput(decision, facts, this.#inputCache, now);
  }

  handedOut(key: string, input: SchedulingInput): void {
    this.#book.handedOut(key, Object.keys(input.placements ?? {}), input.workerNodes ?? [], Date.now());
  }

  /** What the input reads of the caches and the book. */
  readonly #inputCache: InputCache = {
    pod: (key) => this.#deps.caches.activePods.get(key),
    onNode: (node) => this.#deps.caches.activePods.onNode(node),
    isPreempted: (pod, uid) => this.#book.isPreempted(pod, uid),
  };

  qoeStatusOf(key: string): QoeStatus | undefined {
    return this.#qoe.statusOf(key);
  }

  qoeClassOf(key: string): string | undefined {
    return this.#qoe.classOf(key);
  }

  observed(key: string, job: TFJobEntry | undefined): void {
    if (job !== undefined) return;
    this.#qoe.forget(key);
    this.#book.forget(key);
    this.#reporter.forget(key);
  }

  // --- what requests a pass ---

  #wireTriggers(): void {
    const { tfjobs, pods } = this.#deps.caches;
    tfjobs.on((type, job, old) => {
      if (type !== 'update') {
        this.trigger(`tfjob ${type}`);
        return;
      }
      // Only what changes scheduling: spec (generation), finishing, suspension, deletion.
      if (
        job.metadata?.generation !== old?.metadata?.generation ||
        isFinished(job) !== isFinished(old) ||
        job.metadata?.deletionTimestamp !== undefined
      ) {
        this.trigger('tfjob changed');
      }
    });
    const { refusedNodeAvoidFor, timeScale } = this.#deps.config;
    pods.on(
      avoidNodesThatRefuse(this.#book, this.#log, refusedNodeAvoidFor / timeScale, (job) => {
        this.#deps.enqueue(job);
      }),
    );
    pods.on((type, pod) => {
      if (type !== 'add') return;
      this.#deps.podsInFlight?.observed(objectKey(pod));
      const key = controllingJobKey(pod);
      if (key === undefined) return;
      const worker = pod.metadata?.labels?.[LABEL_REPLICA_TYPE] === 'worker';
      this.#book.podCreated(key, { name: pod.metadata?.name ?? '', node: podNode(pod), worker });
    });
    this.#deps.caches.activePods.on((type, pod, old) => {
      if (type === 'delete') {
        // Capacity freed; a preempted victim is gone.
        const gone = { key: objectKey(pod), uid: pod.metadata?.uid, node: podNode(pod) };
        for (const jobKey of this.#book.podGone(gone)) this.#deps.enqueue(jobKey);
        this.trigger('pod gone');
      } else if (type === 'add' && pod.spec?.nodeName !== undefined && controllingJobKey(pod) === undefined) {
        this.trigger('foreign pod bound');
      } else if (type === 'update' && pod.spec?.nodeName !== old?.spec?.nodeName) {
        this.trigger('pod bound');
      }
    });
    this.#caches.nodes.on((type, node) => {
      this.#nodeHealth.observe(type, node, Date.now());
      this.trigger('node changed');
    });
  }
}
