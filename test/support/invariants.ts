// The invariant monitor of the fault-injection scenarios (issue 8). It watches a namespace's pods,
// services and TFJobs (and the nodes of the scenario's pool) from the start of a scenario, and
// records every broken promise as it happens:
// - two live pods with the same job/type/index;
// - a pod or service deleted for no reason the operator may have: the reasons allowed are a
//   scale-in/preemption (the `removal` annotation), a restart of a Failed pod, a fixed-size
//   scale-down, cleanup of a finished job (by its cleanPodPolicy), suspension, deletion of the job,
//   or a deletion the test itself injected (`allowDeletion`, `allowNodeLoss`);
// - a node whose live pods request more than its allocatable;
// - a changed `status.scheduling.enqueueTime` (a job's first-enqueue time);
// - a pod created on a node that had been cordoned, or tainted NoSchedule/NoExecute without the pod
//   tolerating it, for more than a few seconds (the operator's cache may lag a moment);
// - a pod marked for removal (scale-in/preemption) that is still not being deleted long after: its
//   capacity is never freed, and a job waiting for it as a preemption victim waits forever;
// and at the end: pods/services without their TFJob, jobs that did not finish.
//
// Events of different resources arrive on different watch streams, so their order is not the order
// in which they happened. Deletions are therefore judged against the job's state *as of the
// deletion's resourceVersion* (one etcd, so revisions are totally ordered), a few seconds after they
// were seen. `InvariantState` is pure (unit-tested); `InvariantMonitor` feeds it from the API.
import { auditDeleterLookup } from './forensics.ts';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CoreV1Api,
  CustomObjectsApi,
  Watch,
  type KubeConfig,
  type KubernetesObject,
  type V1Node,
  type V1Pod,
  type V1Service,
  type V1Taint,
  type V1Toleration,
} from '@kubernetes/client-node';
import {
  ANNOTATION_REMOVAL,
  LABEL_JOB_NAME,
  LABEL_OPERATOR_NAME,
  LABEL_REPLICA_INDEX,
  LABEL_REPLICA_TYPE,
} from '../../src/api/v1/constants.ts';
import { podSpecRequests } from '../../src/operator/scheduling/convert.ts';
import { canonicalResources } from '../../src/api/v1/quantity.ts';
import { httpStatus } from '../../src/runtime/http-status.ts';

export type ViolationKind =
  | 'duplicate-replica'
  | 'unexpected-pod-deletion'
  | 'unexpected-service-deletion'
  | 'overcommitted-node'
  | 'enqueue-time-changed'
  | 'stuck-removal'
  | 'placed-on-forbidden-node'
  | 'orphan'
  | 'not-terminal';

export interface Violation {
  readonly kind: ViolationKind;
  readonly message: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** The TFJob fields deletions are judged by, one entry per observed version. */
interface JobVersion {
  readonly rv: number;
  readonly name: string;
  readonly finished: boolean;
  readonly suspended: boolean;
  readonly deleting: boolean;
  readonly cleanPodPolicy: string;
  readonly elastic: boolean;
  /** `status.scheduling.queue` (Waiting, Running, Finished), for reports. */
  readonly queue: string | undefined;
  /** Desired replicas per lower-case type; the Worker entry is the elastic maximum when elastic. */
  readonly replicas: Readonly<Record<string, number>>;
}

interface PendingDeletion {
  readonly kind: 'pod' | 'service';
  readonly name: string;
  readonly rv: number;
  readonly ownerUid: string | undefined;
  readonly type: string | undefined;
  readonly index: number | undefined;
  readonly phase: string | undefined;
  readonly removal: string | undefined;
  readonly node: string | undefined;
  readonly seenAt: number;
  /** For reports: the owner's other pods when the deletion was seen (`name:phase`, marks and deletions said). */
  readonly jobPods?: readonly string[];
}

/**
 * Who made the delete that removed `name` just before `seenAt` (the API server's audit log), if
 * known. Used only to recognise the fake kubelet's own deletions by name (see FAKE_KUBELET_USER).
 */
export type DeleterLookup = (kind: 'pod' | 'service', name: string, seenAt: number) => string | undefined;

/**
 * kwok's user on the local control plane. kwok removes a terminating pod with a delete by *name*
 * (grace 0, no UID precondition) from a queue keyed by name, so a delete meant for a pod that is
 * already gone can remove the new pod of the same name that the operator created right after (seen
 * under load: a worker re-created a second after its scale-in vanishes at once). A real kubelet
 * deletes with the pod's UID as a precondition, so this is the emulation's fault, not the operator's.
 * Its stale delete may also be graceful (seen in CI: a Pending replacement went terminating at kwok's
 * delete, then vanished), so the author of the delete decides, not whether the pod vanished at once.
 */
export const FAKE_KUBELET_USER = 'kwok-controller';

interface PodRecord {
  readonly rv: number;
  readonly owner: string | undefined;
  readonly terminating: boolean;
  readonly node: string | undefined;
  readonly requests: Readonly<Record<string, number>>;
  /** Uses node capacity: bound, not Succeeded/Failed (terminating pods still hold their node). */
  readonly usesNode: boolean;
  /** A live replica: not terminating, not terminated. */
  readonly replicaKey: string | undefined;
  /** For reports: creation time (HH:MM:SS) and phase. */
  readonly created: string;
  readonly phase: string;
  /** The operator's removal mark (preemption, scale-in, …), for reports. */
  readonly removal: string | undefined;
}

/** Pod-name history for judging service deletions (a scale-in removes the pod, then its service). */
interface NameEvent {
  readonly rv: number;
  /** removed = deleted with the removal annotation; deleted = any other deletion. */
  readonly what: 'created' | 'removed' | 'deleted';
}

export interface DeletionCounts {
  /** Legitimate deletions by reason (`pod:cleanup`, `service:scale-in`, ...). */
  readonly byReason: Readonly<Record<string, number>>;
  /**
   * Deletions that could not be judged because the monitor's own watch had a gap (410 Gone) around
   * them: their last state or the job's state then is unknown. Zero unless the monitor had gaps.
   */
  readonly unjudged: number;
}

const TERMINATED = new Set(['Succeeded', 'Failed']);

/** How long a node must have been cordoned/tainted before a new pod on it is a violation. */
export const PLACEMENT_GRACE_MS = 5_000;

/** Kubernetes' toleration matching (ToleratesTaint). */
export function tolerates(tolerations: readonly V1Toleration[] | undefined, taint: V1Taint): boolean {
  return (tolerations ?? []).some((t) => {
    if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
    if (t.key !== undefined && t.key !== '' && t.key !== taint.key) return false;
    if ((t.key === undefined || t.key === '') && t.operator !== 'Exists') return false;
    return t.operator === 'Exists' || (t.value ?? '') === (taint.value ?? '');
  });
}

interface NodeRestrictions {
  /** When the monitor first saw the node cordoned (undefined: schedulable). */
  readonly cordonedSince: number | undefined;
  /** NoSchedule/NoExecute taints, each with when it was first seen. */
  readonly taints: readonly { readonly taint: V1Taint; readonly since: number }[];
}

function rvOf(obj: KubernetesObject): number {
  const n = Number(obj.metadata?.resourceVersion ?? '0');
  return Number.isFinite(n) ? n : 0;
}

function controllerUid(obj: KubernetesObject): string | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true && r.kind === 'TFJob')?.uid;
}

function conditionTrue(job: TFJobLike, type: string): boolean {
  return (job.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/** The parts of a TFJob the monitor reads (the API returns it untyped). */
export interface TFJobLike extends KubernetesObject {
  spec?: {
    runPolicy?: { cleanPodPolicy?: string; suspend?: boolean };
    elasticPolicy?: { maxReplicas?: number };
    tfReplicaSpecs?: Record<string, { replicas?: number } | undefined>;
  };
  status?: {
    conditions?: { type: string; status: string; reason?: string }[];
    scheduling?: { enqueueTime?: string; queue?: string };
  };
}

export function isFinished(job: TFJobLike): boolean {
  return conditionTrue(job, 'Succeeded') || conditionTrue(job, 'Failed');
}

function jobVersion(job: TFJobLike, deleted: boolean): JobVersion {
  const replicas: Record<string, number> = {};
  for (const [type, spec] of Object.entries(job.spec?.tfReplicaSpecs ?? {})) replicas[type.toLowerCase()] = spec?.replicas ?? 1;
  const max = job.spec?.elasticPolicy?.maxReplicas;
  if (max !== undefined) replicas.worker = Math.max(replicas.worker ?? 0, max);
  return {
    rv: rvOf(job),
    name: job.metadata?.name ?? '',
    finished: isFinished(job),
    suspended: job.spec?.runPolicy?.suspend === true,
    deleting: deleted || job.metadata?.deletionTimestamp !== undefined,
    // tf-operator's default (v1.8.1 defaults to None).
    cleanPodPolicy: job.spec?.runPolicy?.cleanPodPolicy ?? 'None',
    elastic: job.spec?.elasticPolicy !== undefined,
    queue: job.status?.scheduling?.queue,
    replicas,
  };
}

/** Pure bookkeeping of the invariants; fed with watch events, judged on `evaluate()`. */
export class InvariantState {
  readonly violations: Violation[] = [];
  readonly #jobs = new Map<string, JobVersion[]>();
  readonly #enqueueTimes = new Map<string, string>();
  readonly #pods = new Map<string, PodRecord>();
  readonly #deletingPods = new Set<string>();
  readonly #replicas = new Map<string, Set<string>>();
  readonly #reportedDuplicates = new Set<string>();
  readonly #nodes = new Map<string, Readonly<Record<string, number>>>();
  readonly #restrictions = new Map<string, NodeRestrictions>();
  readonly #reportedOvercommit = new Set<string>();
  readonly #podNames = new Map<string, NameEvent[]>();
  readonly #pending: PendingDeletion[] = [];
  /** Pods marked for removal and not yet terminating: name → when the mark was first seen. */
  readonly #marked = new Map<string, number>();
  readonly #reportedStuck = new Set<string>();
  /** Injected deletions: `kind/name` → when the test announced each (matched to later deletions only). */
  readonly #allowed = new Map<string, number[]>();
  readonly #lostNodes = new Set<string>();
  readonly #byReason: Record<string, number> = {};
  /** resourceVersion ranges the monitor did not see (its watch got 410 and relisted). */
  readonly #gaps: { readonly from: number; readonly to: number }[] = [];
  #unjudged = 0;
  /** Only these nodes are checked for over-commitment (the scenario's pool); undefined = all seen. */
  readonly #nodeFilter: ((name: string) => boolean) | undefined;
  events = 0;

  readonly #deleterOf: DeleterLookup | undefined;

  constructor(opts: { nodeFilter?: (name: string) => boolean; deleterOf?: DeleterLookup } = {}) {
    this.#nodeFilter = opts.nodeFilter;
    this.#deleterOf = opts.deleterOf;
  }

  /** The test is about to delete this pod/service itself (consumed by the next deletion of it). */
  allowDeletion(kind: 'pod' | 'service', name: string, now = Date.now()): void {
    const key = `${kind}/${name}`;
    this.#allowed.set(key, [...(this.#allowed.get(key) ?? []), now]);
  }

  /** The test deletes (or breaks) this node: its pods may vanish. */
  allowNodeLoss(node: string): void {
    this.#lostNodes.add(node);
  }

  get counts(): DeletionCounts {
    return { byReason: { ...this.#byReason }, unjudged: this.#unjudged };
  }

  get pendingDeletions(): number {
    return this.#pending.length;
  }

  onJob(type: WatchEventType, job: TFJobLike): void {
    this.events += 1;
    const uid = job.metadata?.uid;
    if (uid === undefined) return;
    const history = this.#jobs.get(uid) ?? [];
    history.push(jobVersion(job, type === 'DELETED'));
    this.#jobs.set(uid, history);
    const enqueue = job.status?.scheduling?.enqueueTime;
    if (enqueue !== undefined && enqueue !== '') {
      const first = this.#enqueueTimes.get(uid);
      if (first === undefined) this.#enqueueTimes.set(uid, enqueue);
      else if (first !== enqueue) {
        this.#violate(
          'enqueue-time-changed',
          `${job.metadata?.name ?? uid}: status.scheduling.enqueueTime changed from ${first} to ${enqueue}`,
        );
        this.#enqueueTimes.set(uid, enqueue);
      }
    }
  }

  onNode(type: WatchEventType, node: V1Node, now = Date.now()): void {
    this.events += 1;
    const name = node.metadata?.name ?? '';
    if (type === 'DELETED') this.#restrictions.delete(name);
    else {
      const before = this.#restrictions.get(name);
      const key = (t: V1Taint) => `${t.key}=${t.value ?? ''}:${t.effect}`;
      const sinceOf = (t: V1Taint) => before?.taints.find((b) => key(b.taint) === key(t))?.since ?? now;
      this.#restrictions.set(name, {
        cordonedSince: node.spec?.unschedulable === true ? (before?.cordonedSince ?? now) : undefined,
        taints: (node.spec?.taints ?? [])
          .filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute')
          .map((t) => ({ taint: t, since: sinceOf(t) })),
      });
    }
    if (this.#nodeFilter !== undefined && !this.#nodeFilter(name)) return;
    if (type === 'DELETED') this.#nodes.delete(name);
    else {
      this.#nodes.set(name, canonicalResources(node.status?.allocatable ?? node.status?.capacity));
      this.#checkNode(name);
    }
  }

  onPod(type: WatchEventType, pod: V1Pod, now = Date.now()): void {
    this.events += 1;
    const name = pod.metadata?.name ?? '';
    const rv = rvOf(pod);
    const before = this.#pods.get(name);
    if (before?.node === undefined && pod.spec?.nodeName !== undefined && type !== 'DELETED')
      this.#checkPlacement(pod, pod.spec.nodeName, now);
    const names = this.#podNames.get(name) ?? [];
    if (before === undefined && type !== 'DELETED') names.push({ rv, what: 'created' });
    const terminating = pod.metadata?.deletionTimestamp !== undefined;
    const removal = pod.metadata?.annotations?.[ANNOTATION_REMOVAL];
    const last = names.at(-1)?.what;
    if ((terminating || type === 'DELETED') && last !== 'removed' && last !== 'deleted')
      names.push({ rv, what: removal === undefined ? 'deleted' : 'removed' });
    this.#podNames.set(name, names);
    if (removal !== undefined && !terminating && type !== 'DELETED') {
      if (!this.#marked.has(name)) this.#marked.set(name, now);
    } else this.#marked.delete(name);

    // A deletion is judged once, at its first sighting (the terminating update, or DELETED).
    if ((terminating || type === 'DELETED') && !this.#deletingPods.has(name)) {
      this.#deletingPods.add(name);
      const index = Number(pod.metadata?.labels?.[LABEL_REPLICA_INDEX]);
      this.#pending.push({
        kind: 'pod',
        name,
        rv,
        ownerUid: controllerUid(pod),
        type: pod.metadata?.labels?.[LABEL_REPLICA_TYPE],
        index: Number.isInteger(index) ? index : undefined,
        phase: pod.status?.phase,
        removal,
        node: pod.spec?.nodeName,
        seenAt: now,
      });
    }
    if (type === 'DELETED') {
      this.#deletingPods.delete(name);
      this.#pods.delete(name);
    } else {
      const phase = pod.status?.phase ?? '';
      const job = pod.metadata?.labels?.[LABEL_JOB_NAME];
      const live = !terminating && !TERMINATED.has(phase);
      this.#pods.set(name, {
        rv,
        owner: controllerUid(pod),
        terminating,
        node: pod.spec?.nodeName,
        requests: podSpecRequests(pod.spec),
        usesNode: pod.spec?.nodeName !== undefined && !TERMINATED.has(phase),
        created: String(pod.metadata?.creationTimestamp ?? '').replace(/^.*T(\d\d:\d\d:\d\d).*$/, '$1'),
        phase,
        removal,
        replicaKey:
          live && job !== undefined
            ? `${job}/${pod.metadata?.labels?.[LABEL_REPLICA_TYPE] ?? ''}/${pod.metadata?.labels?.[LABEL_REPLICA_INDEX] ?? ''}`
            : undefined,
      });
    }
    this.#updateReplica(name, before?.replicaKey, this.#pods.get(name)?.replicaKey);
    const node = this.#pods.get(name)?.node ?? before?.node;
    if (node !== undefined) this.#checkNode(node);
  }

  onService(type: WatchEventType, svc: V1Service, now = Date.now()): void {
    this.events += 1;
    const terminating = svc.metadata?.deletionTimestamp !== undefined;
    if (type !== 'DELETED' && !terminating) return;
    const name = svc.metadata?.name ?? '';
    // Services have no graceful deletion; a DELETED is the first and only sighting.
    const index = Number(svc.metadata?.labels?.[LABEL_REPLICA_INDEX]);
    const owner = controllerUid(svc);
    this.#pending.push({
      jobPods: owner === undefined ? [] : this.#podsOf(owner),
      kind: 'service',
      name,
      rv: rvOf(svc),
      ownerUid: controllerUid(svc),
      type: svc.metadata?.labels?.[LABEL_REPLICA_TYPE],
      index: Number.isInteger(index) ? index : undefined,
      phase: undefined,
      removal: undefined,
      node: undefined,
      seenAt: now,
    });
  }

  /**
   * After the monitor's watch of `kind` relisted (410 Gone): objects gone from the list were deleted
   * somewhere in (fromRv, toRv] without the monitor seeing how; pods are judged as deleted at `toRv`,
   * and any deletion in that range that fails its judgement counts as unjudged, not as a violation.
   */
  resync(
    kind: 'pods' | 'tfjobs' | 'services' | 'nodes',
    present: ReadonlySet<string>,
    fromRv: number,
    toRv: number,
    now = Date.now(),
  ): void {
    this.#gaps.push({ from: fromRv, to: toRv });
    if (kind !== 'pods') return;
    for (const [name, p] of [...this.#pods]) {
      if (present.has(name)) continue;
      this.onPod(
        'DELETED',
        {
          metadata: {
            name,
            resourceVersion: String(toRv),
            ...(p.owner === undefined
              ? {}
              : { ownerReferences: [{ apiVersion: 'kubeflow.org/v1', kind: 'TFJob', name: '', uid: p.owner, controller: true }] }),
          },
          spec: { ...(p.node === undefined ? {} : { nodeName: p.node }), containers: [] },
          status: {},
        },
        now,
      );
    }
  }

  /** A job's pods as reports show them: `name:phase`, `+removal=x` when marked, `+deleting` when terminating. */
  #podsOf(owner: string): string[] {
    return [...this.#pods]
      .filter(([, p]) => p.owner === owner)
      .map(
        ([name, p]) =>
          `${name}:${p.phase || '-'}${p.removal === undefined ? '' : `+removal=${p.removal}`}${p.terminating ? '+deleting' : ''}`,
      )
      .sort();
  }

  #inGap(rv: number): boolean {
    return this.#gaps.some((g) => rv > g.from && rv <= g.to + 1);
  }

  /** Flags pods marked for removal before `markedBefore` that are still not being deleted. */
  checkStuckRemovals(markedBefore: number): void {
    for (const [name, at] of this.#marked) {
      if (at > markedBefore || this.#reportedStuck.has(name)) continue;
      this.#reportedStuck.add(name);
      this.#violate('stuck-removal', `pod ${name} was marked for removal but is still not being deleted${this.#stuckDetails(name, at)}`);
    }
  }

  /** For reports: the mark, the pod's phase, and its job's state and pods now. */
  #stuckDetails(name: string, markedAt: number): string {
    const p = this.#pods.get(name);
    if (p === undefined) return '';
    const job = p.owner === undefined ? undefined : this.#jobAt(p.owner, Number.POSITIVE_INFINITY);
    const state = job === undefined ? 'job never seen' : `job ${job.name}: finished=${job.finished} queue=${job.queue ?? '-'}`;
    const pods = p.owner === undefined ? [] : this.#podsOf(p.owner);
    return ` (removal=${p.removal ?? '-'} first seen at ${new Date(markedAt).toISOString()}, phase ${p.phase || '-'}; ${state}; its pods: ${pods.join(' ')})`;
  }

  /** Judges the deletions seen before `seenBefore` (default: all of them). */
  evaluate(seenBefore = Number.POSITIVE_INFINITY): void {
    for (let i = 0; i < this.#pending.length;) {
      const d = this.#pending[i]!;
      if (d.seenAt > seenBefore) {
        i += 1;
        continue;
      }
      this.#pending.splice(i, 1);
      const reason = this.#reasonFor(d);
      if (reason === undefined && this.#inGap(d.rv)) {
        this.#unjudged += 1;
      } else if (reason === undefined) {
        const job = this.#jobAt(d.ownerUid, d.rv);
        const state =
          job === undefined
            ? 'job never seen'
            : `job ${job.name}: finished=${job.finished} cleanPodPolicy=${job.cleanPodPolicy} suspended=${job.suspended}`;
        const pods = (this.#podNames.get(d.name) ?? []).map((e) => `${e.what}@${e.rv}`).join(' ');
        this.#violate(
          d.kind === 'pod' ? 'unexpected-pod-deletion' : 'unexpected-service-deletion',
          `${d.kind} ${d.name} deleted at rv ${d.rv} (phase ${d.phase ?? '-'}, node ${d.node ?? '-'}; ${state}; pod name history: ${pods === '' ? 'none' : pods}` +
            `${d.jobPods === undefined ? '' : `; the job's pods then: ${d.jobPods.join(' ') || 'none'}`})`,
        );
      } else {
        const key = `${d.kind}:${reason}`;
        this.#byReason[key] = (this.#byReason[key] ?? 0) + 1;
      }
    }
  }

  /** The job's last version observed before `rv`. */
  #jobAt(uid: string | undefined, rv: number): JobVersion | undefined {
    if (uid === undefined) return undefined;
    const history = this.#jobs.get(uid) ?? [];
    let found: JobVersion | undefined;
    for (const v of history) if (v.rv <= rv) found = v;
    // Lists of different resources at the monitor's start are not simultaneous: a pod deletion may
    // predate the first job version we saw, which is then the best we know.
    return found ?? history[0];
  }

  #reasonFor(d: PendingDeletion): string | undefined {
    // An announced deletion explains only a deletion seen after the announcement (an earlier one of
    // the same name, still waiting to be judged, has its own reason).
    const key = `${d.kind}/${d.name}`;
    const allowed = this.#allowed.get(key) ?? [];
    const i = allowed.findIndex((t) => t <= d.seenAt);
    if (i >= 0) {
      allowed.splice(i, 1);
      return 'injected';
    }
    if (d.node !== undefined && this.#lostNodes.has(d.node)) return 'node-lost';
    if (d.removal !== undefined) return d.removal;
    if (d.kind === 'pod' && d.phase === 'Failed') return 'restart';
    const job = this.#jobAt(d.ownerUid, d.rv);
    if (job === undefined) return undefined;
    if (job.deleting) return 'job-deleted';
    if (job.suspended) return 'suspend';
    if (job.finished) {
      const policy = job.cleanPodPolicy === '' ? 'All' : job.cleanPodPolicy;
      if (policy === 'All') return 'cleanup';
      if (policy === 'Running' && (d.kind === 'service' || d.phase === 'Running' || d.phase === 'Pending')) return 'cleanup';
    }
    if (d.type !== undefined && d.index !== undefined && d.index >= (job.replicas[d.type] ?? Number.POSITIVE_INFINITY)) return 'scale-down';
    if (d.kind === 'service') {
      // The pod of the same name (the incarnation that existed when the service went) was removed by
      // a scale-in/preemption. The operator deletes the pod and its service concurrently, so the
      // pod's removal may come after the service's deletion.
      const history = this.#podNames.get(d.name) ?? [];
      let created = -1;
      history.forEach((e, i) => {
        if (e.what === 'created' && e.rv <= d.rv) created = i;
      });
      const after = history.slice(created + 1);
      if (after[0]?.what === 'removed') return 'scale-in';
      // An elastic job that lost a worker (deleted by hand, lost with its node, restarted) may shrink
      // instead of replacing it, down to its minimum: the service of that absent worker goes with it.
      // (The worker's own deletion is judged on its own.)
      const last = history.filter((e) => e.rv <= d.rv).at(-1);
      if (job.elastic && d.type === 'worker' && last !== undefined && last.what !== 'created') return 'elastic-shrink';
    }
    // Unmarked, and the audit log names the fake kubelet as the author of the delete closest to the
    // deletion's first sighting (the one that made the pod terminating, or removed it at once): its
    // stale delete by name (see FAKE_KUBELET_USER). A pod someone else made terminating, which kwok
    // then finalized, is still judged by that someone (their delete is the closest).
    if (d.kind === 'pod' && this.#deleterOf?.('pod', d.name, d.seenAt) === FAKE_KUBELET_USER) return 'fake-kubelet-by-name';
    return undefined;
  }

  /** A pod just seen bound to `node` (created there by us, or bound by a scheduler). */
  #checkPlacement(pod: V1Pod, node: string, now: number): void {
    const r = this.#restrictions.get(node);
    if (r === undefined) return;
    const name = pod.metadata?.name ?? '';
    if (r.cordonedSince !== undefined && now - r.cordonedSince > PLACEMENT_GRACE_MS) {
      this.#violate(
        'placed-on-forbidden-node',
        `pod ${name} placed on ${node}, cordoned ${Math.round((now - r.cordonedSince) / 1000)}s before`,
      );
      return;
    }
    const bad = r.taints.find((t) => now - t.since > PLACEMENT_GRACE_MS && !tolerates(pod.spec?.tolerations, t.taint));
    if (bad !== undefined)
      this.#violate(
        'placed-on-forbidden-node',
        `pod ${name} placed on ${node} despite taint ${bad.taint.key}=${bad.taint.value ?? ''}:${bad.taint.effect} it does not tolerate`,
      );
  }

  #updateReplica(pod: string, before: string | undefined, after: string | undefined): void {
    if (before === after) return;
    if (before !== undefined) {
      const set = this.#replicas.get(before);
      set?.delete(pod);
      if (set?.size === 0) this.#replicas.delete(before);
    }
    if (after !== undefined) {
      const set = this.#replicas.get(after) ?? new Set<string>();
      set.add(pod);
      this.#replicas.set(after, set);
      if (set.size > 1) {
        const report = `${after}:${[...set].sort().join(',')}`;
        if (!this.#reportedDuplicates.has(report)) {
          this.#reportedDuplicates.add(report);
          this.#violate('duplicate-replica', `live pods ${[...set].sort().join(', ')} are all replica ${after}`);
        }
      }
    }
  }

  #checkNode(node: string): void {
    const allocatable = this.#nodes.get(node);
    if (allocatable === undefined) return;
    const used: Record<string, number> = { pods: 0 };
    const on: string[] = [];
    for (const [name, p] of this.#pods) {
      if (p.node !== node || !p.usesNode) continue;
      used.pods = (used.pods ?? 0) + 1;
      for (const [k, v] of Object.entries(p.requests)) used[k] = (used[k] ?? 0) + v;
      on.push(
        `${name}@${p.rv}[${p.phase} ${p.created}]${p.terminating ? '(terminating)' : ''}${p.removal === undefined ? '' : `(removal ${p.removal})`}`,
      );
    }
    const over = Object.entries(used).filter(([k, v]) => v > 0 && v > (allocatable[k] ?? 0));
    if (over.length === 0) return;
    const report = `${node}:${over.map(([k, v]) => `${k}=${v}`).join(',')}`;
    if (this.#reportedOvercommit.has(report)) return;
    this.#reportedOvercommit.add(report);
    this.#violate(
      'overcommitted-node',
      `node ${node} over-committed: ${over.map(([k, v]) => `${k} ${v} > ${allocatable[k] ?? 0}`).join(', ')} (${on.join(' ')})`,
    );
  }

  #violate(kind: ViolationKind, message: string): void {
    this.violations.push({ kind, message });
  }

  /** End-of-scenario checks on the objects as they are now. */
  checkEnd(
    objects: { jobs: readonly TFJobLike[]; pods: readonly V1Pod[]; services: readonly V1Service[] },
    opts: { expectFinished?: (job: TFJobLike) => boolean } = {},
  ): Violation[] {
    const out: Violation[] = [];
    const uids = new Set(objects.jobs.filter((j) => j.metadata?.deletionTimestamp === undefined).map((j) => j.metadata?.uid));
    for (const o of [...objects.pods, ...objects.services]) {
      if (o.metadata?.labels?.[LABEL_OPERATOR_NAME] === undefined) continue;
      const owner = controllerUid(o);
      if (owner === undefined || !uids.has(owner))
        out.push({
          kind: 'orphan',
          message: `${o.kind ?? 'object'} ${o.metadata.name ?? ''} has no live owning TFJob (owner uid ${owner ?? 'none'})`,
        });
    }
    const expect = opts.expectFinished ?? (() => true);
    for (const j of objects.jobs) {
      if (expect(j) && !isFinished(j))
        out.push({
          kind: 'not-terminal',
          message: `${j.metadata?.name ?? ''} is not finished: ${(j.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`).join(',')} queue ${j.status?.scheduling?.queue ?? '-'}`,
        });
    }
    return out;
  }
}

/** Resident set size of a process in bytes (Linux), or undefined once it is gone. */
export function rssBytes(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? undefined : Number(m[1]) * 1024;
  } catch {
    return undefined;
  }
}

export interface MemorySample {
  readonly t: number;
  readonly pid: number;
  readonly bytes: number;
}

export interface MemorySummary {
  readonly samples: number;
  /** Peak RSS of any sampled process. */
  readonly maxBytes: number;
  /**
   * Growth of the longest-lived process: median RSS of its last third of samples over that of its
   * middle third (the first third is start-up). Well above 1 on a steady workload suggests a leak.
   */
  readonly lateOverMiddle: number;
}

export function summarizeMemory(all: readonly MemorySample[]): MemorySummary {
  if (all.length === 0) return { samples: 0, maxBytes: 0, lateOverMiddle: 1 };
  const byPid = new Map<number, MemorySample[]>();
  for (const s of all) byPid.set(s.pid, [...(byPid.get(s.pid) ?? []), s]);
  const samples = [...byPid.values()].sort((a, b) => b.length - a.length)[0]!;
  const median = (xs: readonly number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length === 0 ? 0 : s[Math.floor(s.length / 2)]!;
  };
  const bytes = samples.map((s) => s.bytes);
  const third = Math.floor(bytes.length / 3);
  const middle = median(bytes.slice(third, 2 * third));
  const late = median(bytes.slice(2 * third));
  return { samples: all.length, maxBytes: Math.max(...all.map((s) => s.bytes)), lateOverMiddle: middle > 0 ? late / middle : 1 };
}

/** Samples the RSS of whatever processes `pids()` names, every `intervalMs`. */
export class MemorySampler {
  readonly samples: MemorySample[] = [];
  readonly #timer: NodeJS.Timeout;

  constructor(pids: () => readonly number[], intervalMs = 1_000) {
    this.#timer = setInterval(() => {
      for (const pid of pids()) {
        const bytes = rssBytes(pid);
        if (bytes !== undefined) this.samples.push({ t: Date.now(), pid, bytes });
      }
    }, intervalMs);
    this.#timer.unref();
  }

  stop(): MemorySummary {
    clearInterval(this.#timer);
    return summarizeMemory(this.samples);
  }
}

export interface MonitorReport {
  readonly violations: readonly Violation[];
  readonly deletions: DeletionCounts;
  /** Watch gaps (410 Gone relists) the monitor itself suffered: events in them were not judged. */
  readonly gaps: number;
  readonly jobs: { readonly total: number; readonly succeeded: number; readonly failed: number };
  readonly events: number;
}

interface Stream {
  abort(): void;
}

/**
 * Feeds an InvariantState from the API: list, then watch from the list's resourceVersion, resumed
 * from the last one seen if the stream ends. The watches have no client-side inactivity timeout, so
 * they do not reconnect (and hit 410 after an etcd compaction) in quiet periods.
 */
export class InvariantMonitor {
  readonly state: InvariantState;
  readonly namespace: string;
  readonly #kc: KubeConfig;
  readonly #streams: Stream[] = [];
  readonly #sweeper: NodeJS.Timeout;
  #stopped = false;
  #gaps = 0;

  private constructor(kc: KubeConfig, namespace: string, state: InvariantState) {
    this.#kc = kc;
    this.namespace = namespace;
    this.state = state;
    // Judge deletions a few seconds after they were seen: the job's events may still be on their way.
    this.#sweeper = setInterval(() => {
      this.state.evaluate(Date.now() - 5_000);
      // The operator deletes a pod right after marking it; a minute leaves room for API faults.
      this.state.checkStuckRemovals(Date.now() - 60_000);
    }, 1_000);
    this.#sweeper.unref();
  }

  static async start(opts: {
    kubeConfig: KubeConfig;
    namespace: string;
    nodes?: readonly string[] | ((name: string) => boolean);
    /** The control plane's audit log: recognises the fake kubelet's deletions by name. */
    auditLog?: string;
  }): Promise<InvariantMonitor> {
    const filter =
      opts.nodes === undefined
        ? undefined
        : typeof opts.nodes === 'function'
          ? opts.nodes
          : (
              (set: Set<string>) => (n: string) =>
                set.has(n)
            )(new Set(opts.nodes));
    const m = new InvariantMonitor(
      opts.kubeConfig,
      opts.namespace,
      new InvariantState({
        ...(filter === undefined ? {} : { nodeFilter: filter }),
        ...(opts.auditLog === undefined ? {} : { deleterOf: auditDeleterLookup(opts.auditLog, opts.namespace) }),
      }),
    );
    const ns = opts.namespace;
    const core = opts.kubeConfig.makeApiClient(CoreV1Api);
    const custom = opts.kubeConfig.makeApiClient(CustomObjectsApi);
    await Promise.all([
      m.#follow(
        'nodes',
        '/api/v1/nodes',
        async () => core.listNode(),
        (t, o: V1Node) => {
          m.state.onNode(t, o);
        },
      ),
      m.#follow(
        'tfjobs',
        `/apis/kubeflow.org/v1/namespaces/${ns}/tfjobs`,
        async () =>
          (await custom.listNamespacedCustomObject({ group: 'kubeflow.org', version: 'v1', plural: 'tfjobs', namespace: ns })) as {
            items: TFJobLike[];
            metadata?: { resourceVersion?: string };
          },
        (t, o: TFJobLike) => {
          m.state.onJob(t, o);
        },
      ),
      m.#follow(
        'pods',
        `/api/v1/namespaces/${ns}/pods`,
        async () => core.listNamespacedPod({ namespace: ns }),
        (t, o: V1Pod) => {
          m.state.onPod(t, o);
        },
      ),
      m.#follow(
        'services',
        `/api/v1/namespaces/${ns}/services`,
        async () => core.listNamespacedService({ namespace: ns }),
        (t, o: V1Service) => {
          m.state.onService(t, o);
        },
      ),
    ]);
    return m;
  }

  allowDeletion(kind: 'pod' | 'service', name: string): void {
    this.state.allowDeletion(kind, name);
  }

  allowNodeLoss(node: string): void {
    this.state.allowNodeLoss(node);
  }

  get gaps(): number {
    return this.#gaps;
  }

  async #follow<T extends KubernetesObject>(
    what: 'pods' | 'tfjobs' | 'services' | 'nodes',
    path: string,
    list: () => Promise<{ items: T[]; metadata?: { resourceVersion?: string } }>,
    handle: (type: WatchEventType, obj: T) => void,
  ): Promise<void> {
    let rv = '';
    const relist = async () => {
      // Retried: a fresh CRD's storage answers 429 "(re)initializing" for a moment, and faults may be on.
      let res: Awaited<ReturnType<typeof list>> | undefined;
      for (let attempt = 0; res === undefined; attempt++) {
        try {
          res = await list();
        } catch (err) {
          if (attempt >= 60) throw err;
          await sleep(1_000);
        }
      }
      for (const item of res.items) handle('ADDED', item);
      const from = Number(rv);
      rv = res.metadata?.resourceVersion ?? '';
      return { present: new Set(res.items.map((i) => i.metadata?.name ?? '')), from, to: Number(rv) };
    };
    await relist();
    const stream: Stream & { current?: AbortController } = {
      abort: () => {
        stream.current?.abort();
      },
    };
    this.#streams.push(stream);
    const connect = async (): Promise<void> => {
      if (this.#stopped) return;
      const watch = new Watch(this.#kc);
      // No inactivity timeout: a quiet watch must stay open (see the class comment). The field is
      // private in client-node's typings but is what its timer reads.
      Reflect.set(watch, 'requestTimeoutMs', 2 ** 31 - 1);
      let gone = false;
      stream.current = await watch.watch(
        path,
        { resourceVersion: rv, allowWatchBookmarks: true },
        (type: string, obj: T) => {
          if (type === 'ERROR') {
            if (httpStatus(obj) === 410) gone = true;
            return;
          }
          const next = obj.metadata?.resourceVersion;
          if (next !== undefined) rv = next;
          if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') handle(type, obj);
        },
        (err: unknown) => {
          if (this.#stopped) return;
          void (async () => {
            if (gone || httpStatus(err) === 410) {
              this.#gaps += 1;
              process.stderr.write(`[invariants] ${what} watch: 410 Gone, relisting (a gap)\n`);
              const seen = await relist().catch(() => undefined);
              if (seen !== undefined) this.state.resync(what, seen.present, seen.from, seen.to);
            } else if (err !== null && err !== undefined) {
              // E.g. the apiserver restarting: come back from the same resourceVersion.
              await sleep(500);
            }
            await reconnect();
          })();
        },
      );
    };
    const reconnect = async (): Promise<void> => {
      for (;;) {
        try {
          await connect();
          return;
        } catch {
          await sleep(1_000);
        }
      }
    };
    await connect();
  }

  /**
   * Judges every pending deletion, stops watching, and checks the end state: no orphans (waiting up
   * to `orphanGraceMs` for garbage collection) and every job finished (as `expectFinished` says).
   */
  async finish(opts: { expectFinished?: (job: TFJobLike) => boolean; orphanGraceMs?: number } = {}): Promise<MonitorReport> {
    // Let in-flight events arrive before judging.
    await sleep(2_000);
    this.stop();
    const core = this.#kc.makeApiClient(CoreV1Api);
    const custom = this.#kc.makeApiClient(CustomObjectsApi);
    const read = async () => ({
      jobs: (
        (await custom.listNamespacedCustomObject({
          group: 'kubeflow.org',
          version: 'v1',
          plural: 'tfjobs',
          namespace: this.namespace,
        })) as { items: TFJobLike[] }
      ).items,
      pods: (await core.listNamespacedPod({ namespace: this.namespace })).items.map((p) => ({ ...p, kind: 'Pod' })),
      services: (await core.listNamespacedService({ namespace: this.namespace })).items.map((s) => ({ ...s, kind: 'Service' })),
    });
    const deadline = Date.now() + (opts.orphanGraceMs ?? 60_000);
    let objects = await read();
    let end = this.state.checkEnd(objects, opts);
    while (end.some((v) => v.kind === 'orphan') && Date.now() < deadline) {
      await sleep(1_000);
      objects = await read();
      end = this.state.checkEnd(objects, opts);
    }
    const jobs = objects.jobs;
    return {
      violations: [...this.state.violations, ...end],
      deletions: this.state.counts,
      gaps: this.#gaps,
      jobs: {
        total: jobs.length,
        succeeded: jobs.filter((j) => conditionTrue(j, 'Succeeded')).length,
        failed: jobs.filter((j) => conditionTrue(j, 'Failed')).length,
      },
      events: this.state.events,
    };
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#sweeper);
    for (const s of this.#streams) s.abort();
    this.state.evaluate();
    this.state.checkStuckRemovals(Date.now() - 60_000);
  }
}
