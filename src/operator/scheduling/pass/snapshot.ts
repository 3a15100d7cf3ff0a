// The snapshot stage of a scheduling pass (snapshot → decide → apply → report): the informer stores in,
// the core's input out. For every unfinished TFJob it works out the job's shape for the core, its live
// pods, the replicas it is missing and the pods stranded on lost nodes; with the nodes and every other
// pod using capacity this makes the `ClusterSnapshot` that the pure core decides on.
//
// Pure: it reads the stores and the decision book and changes neither. What the book must learn from
// it (decisions rebuilt on first sight, placements that expired or materialised, suspended jobs) is
// returned as `upkeep` for the pass to apply.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { ANNOTATION_SCALING_CURVE, ANNOTATION_SUSPENDABLE } from '../../../api/v1/constants.ts';
import type { TFJobEntry } from '../../../api/v1/parse.ts';
import { resolveQoe } from '../../../api/v1/qoe.ts';
import type { TFJob } from '../../../api/v1/schema.ts';
import { isControlledBy, type ElasticOptions, type ReplicaScheduler } from '../../../reconciler/tfjob/index.ts';
import type {
  ClusterSnapshot,
  JobProgress,
  JobSpec,
  JobState,
  MissingReplica,
  NodeInfo,
  OtherPod,
  QoeTarget,
  StepRate,
} from '../../../scheduler/index.ts';
import { objectKey } from '../../../runtime/store.ts';
import type { QueueDirectorySnapshot } from '../queues/directory.ts';
import { avoidingNodes, jobSpec, nodeInfo, parseScalingCurve, podRequests, podSpecRequests, type DefaultRequests } from '../convert.ts';
import type { Upkeep } from '../decisions/book.ts';
import { inFlightAsOtherPods, type PodInFlight } from '../pods-in-flight.ts';
import { restoreDecision, type Decision, type DecisionView, type Pending } from '../decisions/decision.ts';
import {
  isFinished,
  isLive,
  isLiveWorker,
  isTerminatingPreempted,
  podNode,
  replicaOf,
  schedulerRefusal,
  type Refusal,
} from '../pod-facts.ts';
import type { JobShape, JobShapes } from './job-shape.ts';
import { workerBoundsOf } from '../worker-bounds.ts';
import { replicasAndHoles, settlePlacements } from './replicas.ts';

/** Why a node counts as lost (see NodeHealth). */
export interface NodeLoss {
  readonly why: string;
  /** Deleted (its pods are removed at once) rather than NotReady past the grace period. */
  readonly nodeGone: boolean;
}

/** What the snapshot reads: the informer stores, behind the few questions it asks them. */
export interface SnapshotSources {
  readonly tfjobs: readonly TFJobEntry[];
  /** The pods the TFJob controller's cache holds for a job key (any owner; filtered here). */
  podsOf(jobKey: string): readonly V1Pod[];
  /** Every pod using capacity in the cluster (the scheduler's reduced cache). */
  readonly allPods: readonly V1Pod[];
  readonly nodes: readonly V1Node[];
  /** The value of an admin-created PriorityClass, if it exists. */
  priorityClassValue(name: string): number | undefined;
  nodeLost(node: string | undefined, now: number): NodeLoss | undefined;
  /** The job's training phase from its progress signal (--progress-period); undefined: no information. */
  progressOf(jobKey: string): JobProgress | undefined;
  /** The job's measured step rate (jobs with a performance target); undefined: not measured yet. */
  stepRateOf(jobKey: string): StepRate | undefined;
  /** Whether the TFJob controller has pod creates for the job in flight (sent, not yet seen or failed). */
  podCreatesInFlight(jobKey: string): boolean;
  /** Every pod create sent and not yet seen, whatever became of its job (pods-in-flight.ts). */
  readonly podsInFlight?: readonly PodInFlight[];
  /** The queues and how a job finds its own (queues/directory.ts). */
  readonly queues: QueueDirectorySnapshot;
}

export interface SnapshotOptions extends ElasticOptions {
  readonly defaults: DefaultRequests;
  /** Whether the operator may place pods on a node with these labels (--node-selector). */
  readonly managedNode: (labels: Readonly<Record<string, string>> | undefined) => boolean;
  /**
   * A pod kube-scheduler has refused this long on the node chosen for it is placed again elsewhere
   * (ms; 0 = never, it waits there).
   */
  readonly replaceRefusedAfterMs: number;
}

/** Everything the later stages need to know about one job the scheduler manages. */
export interface JobFacts {
  readonly key: string;
  readonly object: TFJobEntry;
  readonly raw: TFJob;
  readonly elastic: boolean;
  readonly bounds: { readonly min: number; readonly max: number };
  readonly state: JobState;
  /** Live pods of the job on nodes that are not lost, by name. */
  readonly live: ReadonlyMap<string, V1Pod>;
  /** Every pod name of the job that still exists (terminating included). */
  readonly existing: ReadonlySet<string>;
  readonly missing: readonly MissingReplica[];
  /** Live pods on a node that was deleted or stayed NotReady past the grace period. */
  readonly lost: readonly ({ readonly pod: V1Pod } & NodeLoss)[];
  /** Live pods kube-scheduler has refused on their chosen node for longer than `replaceRefusedAfterMs`. */
  readonly refused: readonly { readonly pod: V1Pod; readonly refusal: Refusal }[];
}

/** An unfinished job whose templates name another scheduler: not ours to place (decisions/elsewhere.ts). */
export interface PlacedElsewhere {
  readonly key: string;
  readonly object: TFJobEntry;
  readonly named: readonly ReplicaScheduler[];
}

export interface PassSnapshot {
  readonly snapshot: ClusterSnapshot;
  readonly facts: readonly JobFacts[];
  readonly upkeep: Upkeep;
  /** Left to the schedulers their templates name: not in `snapshot.jobs`; their bound pods are `otherPods`. */
  readonly elsewhere: readonly PlacedElsewhere[];
}

/** Reads the book, never writes it: `upkeep` says what it should learn. */
export interface DecisionReader {
  get(key: string): DecisionView | undefined;
}

export function takeSnapshot(
  sources: SnapshotSources,
  book: DecisionReader,
  shapes: JobShapes,
  options: SnapshotOptions,
  now: number,
): PassSnapshot {
  const facts: JobFacts[] = [];
  const restored = new Map<string, Decision>();
  const suspended: string[] = [];
  const settled = new Map<string, { names: string[]; workersAlive: Pending[] }>();
  const attained = new Map<string, number>();
  const nodes = sources.nodes.filter((n) => options.managedNode(n.metadata?.labels)).map(nodeInfo);
  const nodesByName = new Map(nodes.map((n) => [n.name, n]));
  const creating: OtherPod[] = [];
  // Jobs whose in-flight creates the snapshot counts as placements; anyone else's count as pods.
  const counted = new Set<string>();
  const elsewhere: PlacedElsewhere[] = [];
  for (const object of sources.tfjobs) {
    const key = objectKey(object);
    // Finished jobs are most of a long-lived cluster's TFJobs: skip them before any parsing. The
    // reconcile that creates a job's last placed pods can also mark it Succeeded, and the status may
    // reach the cache before the pods: until those creates are seen, their room stays taken.
    if (isFinished(object) || object.metadata?.deletionTimestamp !== undefined) {
      if (sources.podCreatesInFlight(key)) {
        creating.push(...placementsInFlight(key, object, book.get(key), shapes, sources, options));
        counted.add(object.metadata?.uid ?? '');
      }
      continue;
    }
    const shape = shapes.get(object, options);
    if (shape === undefined) continue; // unparsable or invalid: the reconciler fails it
    if (shape.named !== undefined) {
      elsewhere.push({ key, object, named: shape.named });
      continue;
    }
    const { raw } = shape;
    const pods = sources.podsOf(key).filter((p) => isControlledBy(p, raw.metadata.uid ?? ''));
    let decision = book.get(key);
    if (decision === undefined) {
      const rebuilt = restoreDecision(raw, pods, now);
      restored.set(key, rebuilt);
      decision = rebuilt;
    }
    // A suspension gives the job's placements up, but not while the controller is creating pods from
    // them: their room stays taken (the job is read as before) until those creates are seen or fail.
    if (raw.spec?.runPolicy?.suspend === true && !sources.podCreatesInFlight(key)) {
      suspended.push(key);
      continue;
    }
    const f = jobFacts(key, object, shape, decision, pods, sources, options, nodesByName, now);
    if (f.settled.names.length > 0 || f.settled.workersAlive.length !== decision.pendingWorkers.length) settled.set(key, f.settled);
    facts.push(f.facts);
    attained.set(key, f.facts.state.attainedWorkerSeconds ?? 0);
  }
  const snapshot: ClusterSnapshot = {
    now,
    nodes,
    otherPods: [
      ...otherPods(sources.allPods, facts, options.defaults),
      ...creating,
      ...uncountedInFlight(sources, facts, counted, options.defaults),
    ],
    jobs: facts.map((f) => f.state),
    ...(sources.queues.specs.length > 0 ? { queues: sources.queues.specs } : {}),
  };
  return { snapshot, facts, upkeep: { restored, suspended, settled, attained, at: now }, elsewhere };
}

function jobFacts(
  key: string,
  object: TFJobEntry,
  shape: JobShape,
  decision: DecisionView,
  pods: readonly V1Pod[],
  sources: SnapshotSources,
  options: SnapshotOptions,
  nodesByName: ReadonlyMap<string, NodeInfo>,
  now: number,
): { facts: JobFacts; settled: { names: string[]; workersAlive: Pending[] } } {
  const { raw, view } = shape;
  const elastic = view.elastic !== undefined;
  const bounds = workerBoundsOf(view, pods);
  const spec = specOf(key, shape, decision, sources, options, bounds, now);
  const { live, existing, lost, refused } = sortPods(pods, decision, sources, options, now);
  const placements = settlePlacements(key, shape, spec, decision, existing, sources, nodesByName, now);
  const { replicas, missing } = decision.admitted
    ? replicasAndHoles(key, shape, spec, decision, live, existing, placements, elastic)
    : { replicas: [], missing: [] };
  return {
    facts: {
      key,
      object,
      raw,
      elastic,
      bounds,
      live,
      existing,
      missing,
      lost,
      refused,
      state: {
        spec,
        phase: decision.admitted ? 'running' : 'waiting',
        replicas,
        attainedWorkerSeconds: attainedService(decision, decision.admitted ? runningWorkers(live.values()) : 0, now),
        ...progressOf(sources, key),
        ...stepRateOf(sources, key, raw),
      },
    },
    settled: { names: placements.settledNames, workersAlive: placements.pendingWorkers },
  };
}

/** The job as the core sees it: its groups, priority, queue, target and the nodes it avoids. */
function specOf(
  key: string,
  { raw, view, groups }: JobShape,
  decision: DecisionView,
  sources: SnapshotSources,
  options: SnapshotOptions,
  bounds: { min: number; max: number },
  now: number,
): JobSpec {
  const scalingCurve = parseScalingCurve(raw.metadata.annotations?.[ANNOTATION_SCALING_CURVE]);
  const className = raw.spec?.runPolicy?.schedulingPolicy?.priorityClass;
  // Nodes kube-scheduler refused one of the job's pods on are left out of its placements for a while.
  const avoided = [...decision.avoidNodes].filter(([, until]) => until > now).map(([node]) => node);
  return avoidingNodes(
    jobSpec({
      key,
      // Only PriorityClasses the admin created count; a TFJob cannot set its own number.
      priority: className === undefined || className === '' ? 0 : (sources.priorityClassValue(className) ?? 0),
      submittedAt: decision.enqueueTime,
      groups,
      ...(view.replicaSpecs.Worker ? { workerBounds: bounds } : {}),
      ...(scalingCurve === undefined ? {} : { scalingCurve }),
      suspendable: raw.metadata.annotations?.[ANNOTATION_SUSPENDABLE] === 'true',
      ...qoeOf(raw),
      ...sources.queues.resolve(raw.metadata.namespace ?? '', raw.metadata.labels, decision.admitted),
      defaults: options.defaults,
    }),
    avoided,
  );
}

/** The job's pods by what they are to the scheduler: live, on a lost node, refused by kube-scheduler. */
function sortPods(pods: readonly V1Pod[], decision: DecisionView, sources: SnapshotSources, options: SnapshotOptions, now: number) {
  const live = new Map<string, V1Pod>();
  const existing = new Set<string>();
  const lost: ({ pod: V1Pod } & NodeLoss)[] = [];
  const refused: { pod: V1Pod; refusal: Refusal }[] = [];
  for (const p of pods) {
    const name = p.metadata?.name ?? '';
    existing.add(name);
    if (!isLive(p)) continue;
    const loss = sources.nodeLost(podNode(p), now);
    const refusal = options.replaceRefusedAfterMs > 0 && decision.admitted ? schedulerRefusal(p) : undefined;
    if (loss !== undefined && decision.admitted) lost.push({ pod: p, ...loss });
    else if (refusal !== undefined && now - refusal.since >= options.replaceRefusedAfterMs) refused.push({ pod: p, refusal });
    else live.set(name, p);
  }
  return { live, existing, lost, refused };
}

/** Workers whose pod runs (started, not finished): they attain service. */
function runningWorkers(pods: Iterable<V1Pod>): number {
  let n = 0;
  for (const p of pods) if (p.status?.phase === 'Running' && isLiveWorker(p)) n += 1;
  return n;
}

/**
 * Service attained by `now` (worker-seconds): what the decision counted so far, plus the workers
 * running now × the time since it last counted (passes are seconds apart, so the count at the end
 * of the interval stands for the whole interval).
 */
export function attainedService(d: Pick<DecisionView, 'attainedWorkerSeconds' | 'attainedAt'>, running: number, now: number): number {
  const since = d.attainedAt ?? now;
  return d.attainedWorkerSeconds + (running * Math.max(0, now - since)) / 1000;
}

/** The job's performance target; a deadline relative to creation is anchored there. */
function qoeOf(raw: TFJob): { qoe?: QoeTarget } {
  const created = raw.metadata.creationTimestamp === undefined ? Number.NaN : new Date(raw.metadata.creationTimestamp).getTime();
  const qoe = resolveQoe(raw.spec?.qoe, Number.isFinite(created) ? created : 0);
  return qoe === undefined ? {} : { qoe };
}

/** The measured step rate, only for jobs with a target (no other policy input reads it). */
function stepRateOf(sources: SnapshotSources, key: string, raw: TFJob): { stepRate?: StepRate } {
  if (raw.spec?.qoe === undefined) return {};
  const stepRate = sources.stepRateOf(key);
  return stepRate === undefined ? {} : { stepRate };
}

function progressOf(sources: SnapshotSources, key: string): { progress?: JobProgress } {
  const progress = sources.progressOf(key);
  return progress === undefined ? {} : { progress };
}

/**
 * The placements of a job that left the queues (finished, or being deleted) while the controller was
 * creating pods from them, as pods using their nodes: those whose pod is not cached yet (a fixed
 * replica by name; elastic workers, which take any free index, all of them while creates are in flight).
 */
function placementsInFlight(
  key: string,
  object: TFJobEntry,
  decision: DecisionView | undefined,
  shapes: JobShapes,
  sources: SnapshotSources,
  options: SnapshotOptions,
): OtherPod[] {
  const shape = decision === undefined ? undefined : shapes.get(object, options);
  if (decision === undefined || shape === undefined) return [];
  const jobName = shape.raw.metadata.name;
  const requests = (type: string) => podSpecRequests(shape.groups.find((g) => g.type === type)?.template?.spec, options.defaults);
  const cached = new Set(sources.podsOf(key).map((p) => p.metadata?.name ?? ''));
  const namespace = object.metadata?.namespace ?? '';
  const out: OtherPod[] = [];
  for (const [name, p] of decision.pendingByName) {
    const replica = replicaOf(Object.keys(shape.view.replicaSpecs), name, jobName);
    if (replica !== undefined && !cached.has(name)) out.push({ key: `${namespace}/${name}`, node: p.node, requests: requests(replica[0]) });
  }
  for (const p of decision.pendingWorkers)
    out.push({ key: `${namespace}/${jobName}-worker(creating)`, node: p.node, requests: requests('Worker') });
  return out;
}

/** Pods being created for jobs the snapshot left out (gone from the cache, suspended, finished). */
function uncountedInFlight(
  sources: SnapshotSources,
  facts: readonly JobFacts[],
  counted: Set<string>,
  defaults: DefaultRequests,
): OtherPod[] {
  if (sources.podsInFlight === undefined || sources.podsInFlight.length === 0) return [];
  for (const f of facts) counted.add(f.raw.metadata.uid ?? '');
  return inFlightAsOtherPods(sources.podsInFlight, counted, new Set(sources.allPods.map(objectKey)), defaults);
}

/** Every pod using capacity that is not a live replica of a managed job (terminating ones too). */
function otherPods(all: readonly V1Pod[], facts: readonly JobFacts[], defaults: DefaultRequests): OtherPod[] {
  const liveKeys = new Set<string>();
  for (const f of facts) if (f.state.phase === 'running') for (const p of f.live.values()) liveKeys.add(objectKey(p));
  const out: OtherPod[] = [];
  for (const pod of all) {
    const node = podNode(pod);
    if (node === undefined) continue;
    const key = objectKey(pod);
    if (liveKeys.has(key)) continue;
    // A worker we preempted is on its way out; its replacement is already counted as pending.
    if (isTerminatingPreempted(pod)) continue;
    out.push({ key, node, requests: podRequests(pod, defaults) });
  }
  return out;
}
