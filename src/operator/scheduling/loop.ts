// The priority scheduler on a live cluster: it turns the caches into a snapshot, runs the pure core
// (kod2 or ours), and turns the plan into desired state per job that the TFJob controller acts on:
// admitted or waiting, how many workers, which node each new pod goes to. It deletes the workers a
// scale-in preempts itself (those exact pods, marked so their end is not a failure), and records
// every decision a user would ask about as an Event and in `status.scheduling`.
//
// Passes run on events (debounced, so a burst yields few passes) and on a timer (starvation aging,
// cool-downs). Decisions live in memory, but everything needed to rebuild them after a restart is
// in the API: the queue, t_j and counters in the job's status, and placements on the pods.
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1Pod } from '@kubernetes/client-node';
import { applyDefaults } from '../../api/v1/defaults.ts';
import {
  ANNOTATION_REMOVAL,
  ANNOTATION_SCALING_CURVE,
  LABEL_REPLICA_INDEX,
  LABEL_REPLICA_TYPE,
  REMOVAL_NODE_LOST,
  REMOVAL_PREEMPTION,
  REMOVAL_SCALE_IN,
} from '../../api/v1/constants.ts';
import { parseTFJob } from '../../api/v1/parse.ts';
import { canonicalReplicaType } from '../../api/v1/replica-types.ts';
import type { SchedulingStatus, TFJob } from '../../api/v1/schema.ts';
import { validateTFJob } from '../../api/v1/validation.ts';
import { buildJobView, isControlledBy, replicaName, workersSummary, type SchedulingInput } from '../../controllers/tfjob/index.ts';
import { schedule } from '../../scheduler/index.ts';
import type { SchedulerConfig } from '../../scheduler/config.ts';
import type { ClusterSnapshot, JobState, OtherPod, Plan, ReplicaInstance, WaitingReason } from '../../scheduler/types.ts';
import type { Logger } from '../../runtime/logger.ts';
import { objectKey } from '../../runtime/store.ts';
import { schedulerConfigFrom, type OperatorConfig } from '../config.ts';
import { BY_JOB, controllingJobKey, type TFJobObject } from '../informers.ts';
import type { SchedulingContext, SchedulingLoop } from '../manager.ts';
import {
  BY_NODE,
  createSchedulerCaches,
  labelMatcher,
  startSchedulerCaches,
  stopSchedulerCaches,
  waitForSchedulerCaches,
  type SchedulerCaches,
} from './caches.ts';
import { jobSpec, nodeInfo, parseScalingCurve, podRequests, type DefaultRequests } from './convert.ts';
import { SchedulerMetrics } from './metrics.ts';
import { canonicalAmount } from './quantity.ts';
import { idleAfterPlan, placeMissing, type MissingReplica } from './repair.ts';

/** A pending placement never observed as a pod within this time is dropped (its create failed). */
const PENDING_TTL_MS = 60_000;
/** At most one Waiting/Starving event per job per this interval (the reason text changes often). */
const WAITING_EVENT_INTERVAL_MS = 60_000;

interface Pending {
  readonly node: string;
  readonly since: number;
}

/** What the scheduler wants for one job, between passes. */
interface Decision {
  admitted: boolean;
  /** Desired live workers of an elastic job. */
  targetWorkers: number;
  /** Fixed replicas (and workers of fixed-size jobs) to create, by pod name. */
  readonly pendingByName: Map<string, Pending>;
  /** Nodes for new workers of an elastic job, whichever free index each one takes. */
  pendingWorkers: Pending[];
  /** Pods preempted for this job that must be gone before its pods are created on their nodes. */
  readonly victims: Set<string>;
  /** Nodes where this job's placements wait for a pod preempted for another job to be gone. */
  readonly heldOnNodes: Set<string>;
  readonly enqueueTime: number;
  weight?: number;
  starving: boolean;
  reason?: string;
  message?: string;
  preemptions: number;
  scaleOuts: number;
  lastScaleTime?: string;
  lastWaitingEvent: number;
  lastWaitingKind?: string;
}

interface JobShape {
  readonly raw: TFJob;
  readonly view: ReturnType<typeof buildJobView>;
  readonly groups: readonly { readonly type: string; readonly replicas: number; readonly template: { spec?: V1Pod['spec'] } | undefined }[];
}

interface JobFacts {
  readonly key: string;
  readonly object: TFJobObject;
  readonly raw: TFJob;
  readonly elastic: boolean;
  readonly bounds: { readonly min: number; readonly max: number };
  readonly state: JobState;
  /** Live pods of the job (not terminating, not removed, not terminated), by name. */
  readonly live: ReadonlyMap<string, V1Pod>;
  /** Every pod name of the job that still exists (terminating included). */
  readonly existing: ReadonlySet<string>;
  readonly missing: readonly MissingReplica[];
  /** Live pods on a node that was deleted or stayed NotReady past the grace period. */
  readonly lost: readonly { readonly pod: V1Pod; readonly why: string; readonly nodeGone: boolean }[];
}

export class PrioritySchedulingLoop implements SchedulingLoop {
  readonly #ctx: SchedulingContext;
  readonly #config: OperatorConfig;
  readonly #schedulerConfig: SchedulerConfig;
  readonly #policy: 'kod2' | 'ours';
  readonly #caches: SchedulerCaches;
  readonly #core: CoreV1Api;
  readonly #log: Logger;
  readonly #metrics: SchedulerMetrics;
  readonly #defaults: DefaultRequests;
  /** Whether a node's labels match --node-selector (the nodes the operator places pods on). */
  readonly #managedNode: (labels: Readonly<Record<string, string>> | undefined) => boolean;
  readonly #decisions = new Map<string, Decision>();
  readonly #shapes = new Map<string, { rv: string; shape: JobShape | undefined }>();
  /** When each node was last seen turning NotReady (real ms), to apply the node-lost grace. */
  readonly #notReadySince = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #debounce: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #active = false;
  #passes = 0;

  constructor(ctx: SchedulingContext, policy: 'kod2' | 'ours') {
    this.#ctx = ctx;
    this.#config = ctx.config;
    this.#schedulerConfig = schedulerConfigFrom(ctx.config);
    this.#policy = policy;
    this.#log = ctx.logger.child({ component: 'scheduler', policy });
    this.#core = ctx.clients.api(CoreV1Api);
    this.#metrics = new SchedulerMetrics(ctx.registry);
    this.#defaults = {
      cpu: canonicalAmount('cpu', ctx.config.defaultCpuRequest) ?? 100,
      memory: canonicalAmount('memory', ctx.config.defaultMemoryRequest) ?? 256 * 2 ** 20,
    };
    this.#caches = createSchedulerCaches({ kc: ctx.kubeConfig, clients: ctx.clients, logger: ctx.logger, metrics: ctx.metrics });
    this.#managedNode = labelMatcher(ctx.config.nodeSelector);
    this.#wireTriggers();
  }

  // --- lifecycle (SchedulingLoop) ---

  startCaches(): void {
    startSchedulerCaches(this.#caches);
  }

  async waitForCaches(): Promise<void> {
    await waitForSchedulerCaches(this.#caches);
  }

  start(): void {
    this.#active = true;
    const interval = this.#config.schedulingInterval / this.#config.timeScale;
    this.#timer = setInterval(
      () => {
        this.trigger('timer');
      },
      Math.max(50, interval),
    );
    this.#timer.unref();
    this.trigger('start');
  }

  async stop(): Promise<void> {
    this.#active = false;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    if (this.#debounce !== undefined) clearTimeout(this.#debounce);
    await this.#running;
    stopSchedulerCaches(this.#caches);
  }

  ready(): boolean {
    const synced = this.#caches.nodes.hasSynced && this.#caches.pods.hasSynced && this.#caches.priorityClasses.hasSynced;
    return synced && (!this.#active || this.#passes > 0);
  }

  /** Requests a pass soon; many requests within the debounce window make one pass. */
  trigger(why: string): void {
    if (!this.#active) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    if (this.#debounce !== undefined) return;
    this.#log.trace({ why }, 'Scheduling pass requested');
    this.#debounce = setTimeout(() => {
      this.#debounce = undefined;
      this.#running = this.#loop().finally(() => {
        this.#running = undefined;
      });
    }, this.#config.schedulingDebounce / this.#config.timeScale);
    this.#debounce.unref();
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      try {
        await this.pass();
      } catch (err) {
        this.#log.error({ err }, 'Scheduling pass failed; will retry');
        this.#again = false;
        setTimeout(() => {
          this.trigger('retry');
        }, 1_000).unref();
      }
    } while (this.#repeat());
  }

  // A method, not an inline check: both flags change while a pass awaits.
  #repeat(): boolean {
    return this.#again && this.#active;
  }

  // --- the TFJob controller asks ---

  inputFor(key: string, job: TFJobObject, pods: readonly V1Pod[]): SchedulingInput | undefined {
    const parsed = parseTFJob(job);
    if (!parsed.ok) return undefined;
    const decision = this.#decision(key, parsed.job, pods);
    const view = this.#view(parsed.job);
    const bounds = view.elastic ?? { min: view.replicas.Worker ?? 0, max: view.replicas.Worker ?? 0 };
    const now = Date.now();
    // Victims already gone from the cache no longer block (their delete event may have been missed).
    for (const victim of decision.victims) if (this.#caches.pods.store.get(victim) === undefined) decision.victims.delete(victim);
    const ready = decision.victims.size === 0;
    // The core counts a preempted pod's capacity as free from the moment it is marked (the room is
    // its preemptor's), but a kubelet admits a new pod against every pod not yet terminated. A pod
    // of this job placed on a node where such a pod still terminates waits for it to be gone.
    decision.heldOnNodes.clear();
    const held = (node: string) => {
      if (!this.#terminatingPreempted(node)) return false;
      decision.heldOnNodes.add(node);
      return true;
    };
    const placements: Record<string, { nodeName: string; placedBy: string }> = {};
    if (ready) {
      for (const [name, p] of decision.pendingByName)
        if (now - p.since < PENDING_TTL_MS && !held(p.node)) placements[name] = { nodeName: p.node, placedBy: this.#policy };
    }
    const liveWorkers = pods.filter((p) => isLiveWorker(p)).length;
    return {
      admitted: decision.admitted,
      ...(view.elastic ? { workers: decision.targetWorkers } : {}),
      placements,
      workerNodes: ready ? decision.pendingWorkers.filter((p) => now - p.since < PENDING_TTL_MS && !held(p.node)).map((p) => p.node) : [],
      placedBy: this.#policy,
      requirePlacement: true,
      status: this.#status(parsed.job, decision, bounds, liveWorkers),
    };
  }

  observed(key: string, job: TFJobObject | undefined): void {
    if (job === undefined) {
      this.#decisions.delete(key);
      this.#metrics.jobWeight.remove({ namespace: key.split('/')[0] ?? '', tfjob: key.split('/')[1] ?? '', queue: 'waiting' });
      this.#metrics.jobWeight.remove({ namespace: key.split('/')[0] ?? '', tfjob: key.split('/')[1] ?? '', queue: 'running' });
    }
  }

  // --- triggers ---

  #wireTriggers(): void {
    const { caches } = this.#ctx;
    caches.tfjobs.on((type, job, old) => {
      if (type !== 'update') {
        this.trigger(`tfjob ${type}`);
        return;
      }
      // Only what changes scheduling: spec (generation), finishing, suspension, deletion.
      if (
        job.metadata?.generation !== old?.metadata?.generation ||
        finished(job) !== finished(old) ||
        job.metadata?.deletionTimestamp !== undefined
      ) {
        this.trigger('tfjob changed');
      }
    });
    caches.pods.on((type, pod) => {
      if (type !== 'add') return;
      // Our pod appeared: its placement is no longer pending.
      const key = controllingJobKey(pod);
      const d = key === undefined ? undefined : this.#decisions.get(key);
      if (d === undefined) return;
      const name = pod.metadata?.name ?? '';
      if (d.pendingByName.delete(name)) return;
      const node = pod.spec?.nodeName;
      const i = d.pendingWorkers.findIndex((p) => p.node === node);
      if (i >= 0 && pod.metadata?.labels?.[LABEL_REPLICA_TYPE] === 'worker') d.pendingWorkers.splice(i, 1);
    });
    this.#caches.pods.on((type, pod, old) => {
      if (type === 'delete') {
        // Capacity freed; a preempted victim is gone.
        const podKey = objectKey(pod);
        const node = pod.spec?.nodeName;
        for (const [jobKey, d] of this.#decisions) {
          if (d.victims.delete(podKey) && d.victims.size === 0) this.#ctx.controller.enqueue(jobKey);
          else if (node !== undefined && d.heldOnNodes.delete(node)) this.#ctx.controller.enqueue(jobKey);
        }
        this.trigger('pod gone');
      } else if (type === 'add' && pod.spec?.nodeName !== undefined && controllingJobKey(pod) === undefined) {
        this.trigger('foreign pod bound');
      } else if (type === 'update' && pod.spec?.nodeName !== old?.spec?.nodeName) {
        this.trigger('pod bound');
      }
    });
    this.#caches.nodes.on((type, node) => {
      const name = node.metadata?.name ?? '';
      const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
      if (type === 'delete' || ready) this.#notReadySince.delete(name);
      else if (!this.#notReadySince.has(name)) this.#notReadySince.set(name, Date.now());
      this.trigger('node changed');
    });
  }

  // --- one pass ---

  async pass(): Promise<void> {
    const started = performance.now();
    const now = Date.now();
    const facts = this.#collect(now);
    const snapshot: ClusterSnapshot = {
      now,
      nodes: this.#caches.nodes.store
        .list()
        .filter((n) => this.#managedNode(n.metadata?.labels))
        .map(nodeInfo),
      otherPods: this.#otherPods(facts),
      jobs: facts.map((f) => f.state),
    };
    const plan = schedule(this.#policy, snapshot, this.#schedulerConfig);
    const repairs = placeMissing(
      snapshot,
      idleAfterPlan(snapshot, plan),
      facts.flatMap((f) => f.missing),
      (job) => hostsOf(snapshot, job),
    );
    const touched = await this.#apply(facts, plan, repairs, now);
    this.#passes += 1;
    this.#metrics.passDuration.observe((performance.now() - started) / 1000);
    this.#updateQueueMetrics(facts);
    for (const key of touched) this.#ctx.controller.enqueue(key);
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

  #view(raw: TFJob) {
    const defaultElastic =
      this.#config.defaultMinWorkers > 0 || this.#config.defaultMaxWorkers > 0
        ? { min: this.#config.defaultMinWorkers, max: this.#config.defaultMaxWorkers }
        : undefined;
    return buildJobView(raw, applyDefaults(raw), { ...(defaultElastic ? { defaultElastic } : {}) });
  }

  #priority(raw: TFJob): number {
    // Only PriorityClasses the admin created count; a TFJob cannot set its own number.
    const name = raw.spec?.runPolicy?.schedulingPolicy?.priorityClass;
    if (name === undefined || name === '') return 0;
    return this.#caches.priorityClasses.store.get(name)?.value ?? 0;
  }

  /**
   * A job's parsed shape (zod parse, validation, defaults, replica groups), memoised per
   * resourceVersion: a pass over thousands of jobs must not re-parse unchanged pod templates.
   */
  #shape(key: string, object: TFJobObject): JobShape | undefined {
    const rv = object.metadata?.resourceVersion ?? '';
    const cached = this.#shapes.get(key);
    if (cached !== undefined && cached.rv === rv) return cached.shape;
    const parsed = parseTFJob(object);
    let shape: JobShape | undefined;
    if (parsed.ok && validateTFJob(parsed.job).length === 0) {
      const raw = parsed.job;
      const view = this.#view(raw);
      const defaulted = applyDefaults(raw);
      const workers = view.elastic?.max ?? view.replicas.Worker ?? 0;
      const groups = Object.entries(view.replicaSpecs).map(([type, spec]) => ({
        type,
        replicas: type === 'Worker' ? workers : (view.replicas[type] ?? spec.replicas),
        template: defaulted.spec.tfReplicaSpecs[type]?.template,
      }));
      shape = { raw, view, groups };
    }
    this.#shapes.set(key, { rv, shape });
    return shape;
  }

  /** The jobs the scheduler manages, with their state for the core and what they are missing. */
  #collect(now: number): JobFacts[] {
    const out: JobFacts[] = [];
    const unfinished = new Set<string>();
    for (const object of this.#ctx.caches.tfjobs.list()) {
      const key = objectKey(object);
      // Finished jobs are most of a long-lived cluster's TFJobs: skip them before any parsing.
      if (finished(object) || object.metadata?.deletionTimestamp !== undefined) continue;
      unfinished.add(key);
      const shape = this.#shape(key, object);
      if (shape === undefined) continue; // unparsable or invalid: the reconciler fails it
      const { raw, view, groups } = shape;
      const pods = this.#ctx.caches.pods.byIndex(BY_JOB, key).filter((p) => isControlledBy(p, raw.metadata.uid ?? ''));
      const decision = this.#decision(key, raw, pods);
      if (raw.spec?.runPolicy?.suspend === true) {
        // A suspended job leaves the queues; on resume it waits again (t_j kept).
        decision.admitted = false;
        decision.pendingByName.clear();
        decision.pendingWorkers = [];
        continue;
      }
      const elastic = view.elastic !== undefined;
      const bounds = view.elastic ?? { min: view.replicas.Worker ?? 0, max: view.replicas.Worker ?? 0 };
      const scalingCurve = parseScalingCurve(raw.metadata.annotations?.[ANNOTATION_SCALING_CURVE]);
      const spec = jobSpec({
        key,
        priority: this.#priority(raw),
        submittedAt: decision.enqueueTime,
        groups,
        ...(view.replicaSpecs.Worker ? { workerBounds: bounds } : {}),
        ...(scalingCurve === undefined ? {} : { scalingCurve }),
        defaults: this.#defaults,
      });
      const live = new Map<string, V1Pod>();
      const existing = new Set<string>();
      const lost: { pod: V1Pod; why: string; nodeGone: boolean }[] = [];
      for (const p of pods) {
        const name = p.metadata?.name ?? '';
        existing.add(name);
        if (!isLive(p)) continue;
        const loss = this.#nodeLost(p.spec?.nodeName, now);
        if (loss !== undefined && decision.admitted) lost.push({ pod: p, ...loss });
        else live.set(name, p);
      }
      // Expire placements never observed (their create failed): the job is then missing them.
      for (const [name, p] of decision.pendingByName)
        if (now - p.since >= PENDING_TTL_MS || existing.has(name)) decision.pendingByName.delete(name);
      decision.pendingWorkers = decision.pendingWorkers.filter((p) => now - p.since < PENDING_TTL_MS);

      const replicas: ReplicaInstance[] = [];
      const missing: MissingReplica[] = [];
      if (decision.admitted) {
        for (const p of live.values()) {
          const type = canonicalReplicaType(p.metadata?.labels?.[LABEL_REPLICA_TYPE] ?? '') ?? '';
          const index = Number(p.metadata?.labels?.[LABEL_REPLICA_INDEX] ?? -1);
          if (p.spec?.nodeName === undefined) continue;
          replicas.push({
            type,
            index,
            node: p.spec.nodeName,
            ...(p.metadata?.creationTimestamp ? { createdAt: new Date(p.metadata.creationTimestamp).getTime() } : {}),
          });
        }
        // Assumed: placements decided but not yet visible as pods.
        for (const [name, p] of decision.pendingByName) {
          const [type, index] = typeAndIndex(view.replicaSpecs, name, raw.metadata.name);
          if (type !== undefined) replicas.push({ type, index, node: p.node, createdAt: p.since });
        }
        const used = new Set([...existing].map((n) => indexOf(n, raw.metadata.name, 'worker')).filter((i): i is number => i !== undefined));
        let next = 0;
        for (const p of decision.pendingWorkers) {
          while (used.has(next)) next += 1;
          used.add(next);
          replicas.push({ type: 'Worker', index: next, node: p.node, createdAt: p.since });
        }
        // Holes: fixed replicas with no pod and no pending placement; workers below target.
        for (const g of spec.fixed) {
          for (let i = 0; i < g.count; i++) {
            const name = replicaName(raw.metadata.name, g.type, i);
            if (!existing.has(name) && !decision.pendingByName.has(name)) missing.push({ job: key, group: g, name });
          }
        }
        if (spec.workers !== undefined) {
          if (elastic) {
            const have = replicas.filter((r) => r.type === 'Worker').length;
            for (let i = have; i < decision.targetWorkers; i++) missing.push({ job: key, group: spec.workers });
          } else {
            for (let i = 0; i < spec.workers.max; i++) {
              const name = replicaName(raw.metadata.name, 'Worker', i);
              if (!existing.has(name) && !decision.pendingByName.has(name)) missing.push({ job: key, group: spec.workers, name });
            }
          }
        }
      }
      out.push({
        key,
        object,
        raw,
        elastic,
        bounds,
        live,
        existing,
        missing,
        lost,
        state: { spec, phase: decision.admitted ? 'running' : 'waiting', replicas },
      });
    }
    for (const key of this.#shapes.keys()) if (!unfinished.has(key)) this.#shapes.delete(key);
    return out;
  }

  /** Whether a pod preempted by this operator is still terminating on the node. */
  #terminatingPreempted(node: string): boolean {
    return this.#caches.pods.store
      .byIndex(BY_NODE, node)
      .some((p) => p.metadata?.deletionTimestamp !== undefined && p.metadata.annotations?.[ANNOTATION_REMOVAL] === REMOVAL_PREEMPTION);
  }

  /** Every pod using capacity that is not a live replica of a managed job (terminating ones too). */
  #otherPods(facts: readonly JobFacts[]): OtherPod[] {
    const liveKeys = new Set<string>();
    for (const f of facts) if (f.state.phase === 'running') for (const p of f.live.values()) liveKeys.add(objectKey(p));
    const out: OtherPod[] = [];
    for (const pod of this.#caches.pods.store.list()) {
      const node = pod.spec?.nodeName;
      if (node === undefined) continue;
      const key = objectKey(pod);
      if (liveKeys.has(key)) continue;
      // A worker we preempted is on its way out; its replacement is already counted as pending.
      if (pod.metadata?.deletionTimestamp !== undefined && pod.metadata.annotations?.[ANNOTATION_REMOVAL] === REMOVAL_PREEMPTION) continue;
      out.push({ key, node, requests: podRequests(pod, this.#defaults) });
    }
    return out;
  }

  async #apply(facts: readonly JobFacts[], plan: Plan, repairs: ReturnType<typeof placeMissing>, now: number): Promise<Set<string>> {
    const byKey = new Map(facts.map((f) => [f.key, f]));
    const touched = new Set<string>();
    const stamp = new Date(now).toISOString();

    // Pods stranded on lost nodes go first: they are removed so their replicas can be placed again.
    for (const f of facts) {
      for (const { pod, why, nodeGone } of f.lost) {
        await this.#removePod(pod, REMOVAL_NODE_LOST, nodeGone);
        touched.add(f.key);
        this.#ctx.recorder.event(
          f.object,
          'Warning',
          'NodeLost',
          `Removed ${pod.metadata?.name ?? ''}: its node ${pod.spec?.nodeName ?? ''} ${why}; it will be placed again`,
          'Schedule',
        );
      }
    }

    // Preemptions next: the victims' pods are marked and deleted before anything is created.
    for (const s of plan.scaleIn) {
      const f = byKey.get(s.job);
      const d = this.#decisions.get(s.job);
      if (f === undefined || d === undefined) continue;
      const preemption = s.forJob !== s.job;
      const removedNames: string[] = [];
      for (const r of s.remove) {
        const name = replicaName(f.raw.metadata.name, r.type, r.index);
        const pod = f.live.get(name);
        if (pod !== undefined) {
          // Registered before the delete: its watch event may arrive before the call returns.
          if (preemption) this.#decisions.get(s.forJob)?.victims.add(objectKey(pod));
          await this.#removePod(pod, preemption ? REMOVAL_PREEMPTION : REMOVAL_SCALE_IN);
          removedNames.push(name);
        } else {
          const i = d.pendingWorkers.findIndex((p) => p.node === r.node);
          if (i >= 0) d.pendingWorkers.splice(i, 1);
        }
      }
      d.targetWorkers = Math.max(f.bounds.min, d.targetWorkers - s.remove.length);
      d.preemptions += s.remove.length;
      d.lastScaleTime = stamp;
      touched.add(s.job);
      const ns = s.job.split('/')[0] ?? '';
      this.#metrics.preemptedWorkers.inc({ namespace: ns }, s.remove.length);
      const what = `${s.remove.length} worker(s)${removedNames.length > 0 ? ` (${removedNames.join(', ')})` : ''}`;
      const weights = `weight ${fmt(plan.weights[s.forJob])} vs ${fmt(plan.weights[s.job])}`;
      if (preemption)
        this.#ctx.recorder.event(
          f.object,
          'Normal',
          'Preempted',
          `Scaled in by ${what} to admit ${s.forJob} (${weights}); now ${d.targetWorkers} worker(s), minimum ${f.bounds.min}`,
          'Preempt',
        );
      else this.#ctx.recorder.event(f.object, 'Normal', 'ScaledIn', `Scaled in by ${what}; now ${d.targetWorkers} worker(s)`, 'Scale');
    }

    for (const a of plan.admit) {
      const f = byKey.get(a.job);
      const d = this.#decisions.get(a.job);
      if (f === undefined || d === undefined) continue;
      d.admitted = true;
      let workers = 0;
      for (const r of a.replicas) {
        if (r.node === undefined) continue;
        if (r.type === 'Worker' && f.elastic) {
          d.pendingWorkers.push({ node: r.node, since: now });
          workers += 1;
        } else {
          d.pendingByName.set(replicaName(f.raw.metadata.name, r.type, r.index), { node: r.node, since: now });
          if (r.type === 'Worker') workers += 1;
        }
      }
      d.targetWorkers = f.elastic ? Math.max(f.bounds.min, workers) : f.bounds.max;
      d.reason = 'Admitted';
      d.message = undefined;
      d.starving = false;
      touched.add(a.job);
      const ns = a.job.split('/')[0] ?? '';
      this.#metrics.admissions.inc({ namespace: ns });
      this.#metrics.timeInQueue.observe({ namespace: ns }, Math.max(0, (now - d.enqueueTime) / 1000));
      const nodes = summarizeNodes(a.replicas);
      const waitedMs = now - d.enqueueTime;
      const starving =
        waitedMs >= this.#schedulerConfig.starveLimitMs
          ? `, starving after waiting ${Math.round((waitedMs * this.#config.timeScale) / 1000)}s`
          : '';
      this.#ctx.recorder.event(
        f.object,
        'Normal',
        'Admitted',
        `Admitted with ${workers} worker(s) (weight ${fmt(plan.weights[a.job])}${starving}) on ${nodes}`,
        'Schedule',
      );
    }

    for (const s of plan.scaleOut) {
      const f = byKey.get(s.job);
      const d = this.#decisions.get(s.job);
      if (f === undefined || d === undefined || !f.elastic) continue;
      for (const r of s.add) if (r.node !== undefined) d.pendingWorkers.push({ node: r.node, since: now });
      d.targetWorkers = Math.min(f.bounds.max, d.targetWorkers + s.add.length);
      d.scaleOuts += s.add.length;
      d.lastScaleTime = stamp;
      touched.add(s.job);
      this.#metrics.scaledOutWorkers.inc({ namespace: s.job.split('/')[0] ?? '' }, s.add.length);
      this.#ctx.recorder.event(
        f.object,
        'Normal',
        'ScaledOut',
        `Scaled out by ${s.add.length} worker(s) into idle capacity on ${summarizeNodes(s.add)}; now ${d.targetWorkers} worker(s), maximum ${f.bounds.max}`,
        'Scale',
      );
    }

    for (const r of repairs) {
      const f = byKey.get(r.replica.job);
      const d = this.#decisions.get(r.replica.job);
      if (f === undefined || d === undefined) continue;
      if (r.replica.name !== undefined) d.pendingByName.set(r.replica.name, { node: r.node, since: now });
      else d.pendingWorkers.push({ node: r.node, since: now });
      touched.add(r.replica.job);
      this.#metrics.placementRepairs.inc({ namespace: r.replica.job.split('/')[0] ?? '' });
      this.#ctx.recorder.event(
        f.object,
        'Normal',
        'Placed',
        `Placed ${r.replica.name ?? 'a replacement worker'} on ${r.node} (replacing a lost replica)`,
        'Schedule',
      );
    }
    // Elastic jobs that lost workers and cannot get them back shrink, but never below their minimum.
    for (const f of facts) {
      const d = this.#decisions.get(f.key);
      if (d === undefined || !d.admitted || !f.elastic) continue;
      const lost = f.missing.filter((m) => m.name === undefined).length;
      const replaced = repairs.filter((r) => r.replica.job === f.key && r.replica.name === undefined).length;
      const shrink = Math.min(lost - replaced, d.targetWorkers - f.bounds.min);
      if (shrink > 0) {
        d.targetWorkers -= shrink;
        touched.add(f.key);
      }
    }

    for (const w of plan.waiting) this.#noteWaiting(byKey.get(w.job), w, now, touched);
    for (const [job, weight] of Object.entries(plan.weights)) {
      const d = this.#decisions.get(job);
      if (d === undefined) continue;
      const rounded = Math.round(weight * 1000) / 1000;
      if (d.weight !== rounded) {
        d.weight = rounded;
        touched.add(job);
      }
    }
    return touched;
  }

  #noteWaiting(f: JobFacts | undefined, w: WaitingReason, now: number, touched: Set<string>): void {
    const d = this.#decisions.get(w.job);
    if (f === undefined || d === undefined) return;
    const kind = w.starving ? 'Starving' : 'Waiting';
    if (d.message !== w.reason || d.reason !== kind || d.starving !== w.starving) {
      d.reason = kind;
      d.message = w.reason;
      d.starving = w.starving;
      touched.add(w.job);
    }
    if (kind !== d.lastWaitingKind || now - d.lastWaitingEvent >= WAITING_EVENT_INTERVAL_MS) {
      d.lastWaitingKind = kind;
      d.lastWaitingEvent = now;
      this.#ctx.recorder.event(f.object, kind === 'Starving' ? 'Warning' : 'Normal', kind, w.reason, 'Schedule');
    }
  }

  /**
   * Whether a pod's node counts as lost: deleted, or NotReady past the grace period. A deleted node's
   * pods are deleted at once (no kubelet will ever confirm their end, as kube-controller-manager's
   * pod GC would conclude after its quarantine); a NotReady node may come back, so its pods are
   * deleted gracefully and only elastic workers can be replaced before they are gone.
   */
  #nodeLost(node: string | undefined, now: number): { why: string; nodeGone: boolean } | undefined {
    if (node === undefined) return undefined;
    if (this.#caches.nodes.store.get(node) === undefined) return { why: 'no longer exists', nodeGone: true };
    const since = this.#notReadySince.get(node);
    const grace = this.#config.nodeLostGrace / this.#config.timeScale;
    if (since !== undefined && now - since >= grace)
      return { why: `has been NotReady for ${Math.round((now - since) / 1000)}s`, nodeGone: false };
    return undefined;
  }

  async #removePod(pod: V1Pod, removal: string, force = false): Promise<void> {
    const name = pod.metadata?.name ?? '';
    const namespace = pod.metadata?.namespace ?? 'default';
    try {
      await this.#core.patchNamespacedPod(
        { name, namespace, body: { metadata: { annotations: { [ANNOTATION_REMOVAL]: removal } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await this.#core.deleteNamespacedPod({
        name,
        namespace,
        body: { preconditions: { uid: pod.metadata?.uid }, ...(force ? { gracePeriodSeconds: 0 } : {}) },
      });
      this.#log.info({ pod: `${namespace}/${name}`, removal }, 'Removed worker');
    } catch (err) {
      if ((err as { code?: number }).code === 404) return;
      throw err;
    }
  }

  /** The decision for a job, rebuilt from the API on first sight (e.g. after an operator restart). */
  #decision(key: string, raw: TFJob, pods: readonly V1Pod[]): Decision {
    let d = this.#decisions.get(key);
    if (d !== undefined) return d;
    const status = raw.status?.scheduling;
    const created = raw.metadata.creationTimestamp === undefined ? Date.now() : new Date(raw.metadata.creationTimestamp).getTime();
    const enqueue = status?.enqueueTime === undefined ? created : new Date(status.enqueueTime).getTime();
    const liveWorkers = pods.filter(isLiveWorker).length;
    const running = status?.queue === 'Running' || pods.some(isLive);
    d = {
      admitted: running,
      targetWorkers: status?.workers?.current ?? liveWorkers,
      pendingByName: new Map(),
      pendingWorkers: [],
      victims: new Set(),
      heldOnNodes: new Set(),
      enqueueTime: Number.isFinite(enqueue) ? enqueue : created,
      starving: status?.starving ?? false,
      ...(status?.reason === undefined ? {} : { reason: status.reason }),
      ...(status?.message === undefined ? {} : { message: status.message }),
      preemptions: status?.preemptions ?? 0,
      scaleOuts: status?.scaleOuts ?? 0,
      ...(status?.lastScaleTime === undefined ? {} : { lastScaleTime: status.lastScaleTime }),
      lastWaitingEvent: 0,
      ...(status?.weight === undefined ? {} : { weight: Number(status.weight) }),
    };
    this.#decisions.set(key, d);
    return d;
  }

  #status(raw: TFJob, d: Decision, bounds: { min: number; max: number }, liveWorkers: number): SchedulingStatus {
    const queue = finished(raw as TFJobObject) ? 'Finished' : d.admitted ? 'Running' : 'Waiting';
    const current = queue === 'Waiting' ? 0 : liveWorkers;
    return {
      queue,
      ...(d.weight === undefined ? {} : { weight: d.weight.toFixed(3) }),
      enqueueTime: new Date(d.enqueueTime).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      workers: { current, min: bounds.min, max: bounds.max },
      workersSummary: workersSummary(current, bounds.min, bounds.max),
      ...(queue === 'Waiting' && d.reason !== undefined ? { reason: d.reason } : queue === 'Running' ? { reason: 'Admitted' } : {}),
      ...(queue === 'Waiting' && d.message !== undefined ? { message: d.message } : {}),
      starving: queue === 'Waiting' && d.starving,
      preemptions: d.preemptions,
      scaleOuts: d.scaleOuts,
      ...(d.lastScaleTime === undefined ? {} : { lastScaleTime: d.lastScaleTime }),
    };
  }

  #updateQueueMetrics(facts: readonly JobFacts[]): void {
    let waiting = 0;
    let running = 0;
    for (const f of facts) {
      const d = this.#decisions.get(f.key);
      const [namespace = '', tfjob = ''] = f.key.split('/');
      const queue = d?.admitted === true ? 'running' : 'waiting';
      if (queue === 'running') running += 1;
      else waiting += 1;
      if (d?.weight !== undefined) {
        this.#metrics.jobWeight.set({ namespace, tfjob, queue }, d.weight);
        this.#metrics.jobWeight.remove({ namespace, tfjob, queue: queue === 'running' ? 'waiting' : 'running' });
      }
    }
    const finishedJobs = this.#ctx.caches.tfjobs.list().filter((j) => finished(j)).length;
    this.#metrics.queueLength.set({ queue: 'waiting' }, waiting);
    this.#metrics.queueLength.set({ queue: 'running' }, running);
    this.#metrics.queueLength.set({ queue: 'finished' }, finishedJobs);
  }
}

function finished(job: TFJobObject | undefined): boolean {
  const conditions = (job?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => (c.type === 'Succeeded' || c.type === 'Failed') && c.status === 'True');
}

function isLive(p: V1Pod): boolean {
  const phase = p.status?.phase;
  return (
    p.metadata?.deletionTimestamp === undefined &&
    p.metadata?.annotations?.[ANNOTATION_REMOVAL] === undefined &&
    phase !== 'Succeeded' &&
    phase !== 'Failed'
  );
}

function isLiveWorker(p: V1Pod): boolean {
  return isLive(p) && p.metadata?.labels?.[LABEL_REPLICA_TYPE] === 'worker';
}

function indexOf(podName: string, jobName: string, lowerType: string): number | undefined {
  const prefix = `${jobName}-${lowerType}-`;
  if (!podName.startsWith(prefix)) return undefined;
  const n = Number(podName.slice(prefix.length));
  return Number.isInteger(n) ? n : undefined;
}

function typeAndIndex(specs: Readonly<Record<string, unknown>>, podName: string, jobName: string): [string | undefined, number] {
  for (const type of Object.keys(specs)) {
    const i = indexOf(podName, jobName.replace(/\//g, '-'), type.toLowerCase());
    if (i !== undefined) return [type, i];
  }
  return [undefined, -1];
}

function hostsOf(snapshot: ClusterSnapshot, job: string): Map<string, number> {
  const hosts = new Map<string, number>();
  const state = snapshot.jobs.find((j) => j.spec.key === job);
  for (const r of state?.replicas ?? []) if (r.node !== undefined) hosts.set(r.node, (hosts.get(r.node) ?? 0) + (r.type === 'PS' ? 10 : 1));
  return hosts;
}

function summarizeNodes(replicas: readonly ReplicaInstance[]): string {
  const counts = new Map<string, string[]>();
  for (const r of replicas) {
    if (r.node === undefined) continue;
    counts.set(r.node, [...(counts.get(r.node) ?? []), `${r.type.toLowerCase()}-${r.index}`]);
  }
  return [...counts].map(([node, names]) => `${node} (${names.join(', ')})`).join(', ');
}

function fmt(weight: number | undefined): string {
  return weight === undefined ? '?' : weight.toFixed(2);
}
