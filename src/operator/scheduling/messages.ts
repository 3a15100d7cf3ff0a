// The texts users read about scheduling decisions: one function per decision, shared by the Event
// (report stage) and `status.scheduling.message` (the decision book), so both always say the same.
import type { ReplicaInstance } from '../../scheduler/index.ts';

/** What ranked one job above another: the admin's PriorityClasses first, then the weights. */
export interface Standing {
  readonly job: string;
  /** The PriorityClass the job names ('' = none) and its value (0 when none or unknown). */
  readonly priorityClass: string;
  readonly priority: number;
  readonly weight: number | undefined;
}

export function nodeLost(pod: string, node: string, why: string): string {
  return `Removed ${pod}: its node ${node} ${why}; it will be placed again`;
}

export function refusedByScheduler(pod: string, node: string, refusal: string, waitedSeconds: number, avoidSeconds: number): string {
  return (
    `Removed ${pod}: kube-scheduler refused it on ${node} for ${waitedSeconds}s (${refusal}); ` +
    `it will be placed again on another node (${node} is avoided for this job for ${avoidSeconds}s)`
  );
}

export function rejectedByKubelet(pod: string, node: string, reason: string, avoidSeconds: number): string {
  return (
    `The kubelet of ${node} refused ${pod} (${reason}), counting what the API does not show there; ` +
    `the replica waits to be placed again on another node, or on ${node} after ${avoidSeconds}s (avoided for this job until then)`
  );
}

/** Why `preemptor` may take `victim`'s workers: a higher PriorityClass decides before any weight. */
export function whatDecided(preemptor: Standing, victim: Standing): string {
  if (preemptor.priority !== victim.priority) {
    const cls = (s: Standing) => (s.priorityClass === '' ? 'no priority class' : `priority class ${s.priorityClass}`);
    return `${cls(preemptor)} (${preemptor.priority}) above ${cls(victim)} (${victim.priority})`;
  }
  const w = (s: Standing) => `${fmt(s.weight)}${s.weight === 1 ? ' (starving)' : ''}`;
  return `weight ${w(preemptor)} vs ${fmt(victim.weight)}`;
}

export function preempted(
  count: number,
  removed: readonly string[],
  preemptor: Standing,
  victim: Standing,
  workers: number,
  min: number,
): string {
  return `Scaled in by ${workersText(count, removed)} to admit ${preemptor.job} (${whatDecided(preemptor, victim)}); now ${workers} worker(s), minimum ${min}`;
}

/** Borrowed workers taken back by the queue that lent the quota (queues, reclaim). */
export function reclaimed(
  count: number,
  removed: readonly string[],
  forJob: string,
  victimQueue: string | undefined,
  by: string,
  workers: number,
  min: number,
): string {
  return `Scaled in by ${workersText(count, removed)}: queue ${victimQueue ?? '(none)'} had borrowed them from its cohort, and queue ${by} takes them back for ${forJob} (its quota, or its fair share of what the cohort lends); now ${workers} worker(s), minimum ${min}`;
}

/** Workers moved to a job behind its performance target from this one, ahead of its own (DQoES). */
export function gaveForTarget(count: number, removed: readonly string[], receiver: string, workers: number): string {
  return `Scaled in by ${workersText(count, removed)} for ${receiver}, which is behind its performance target while this job is ahead of its own; now ${workers} worker(s)`;
}

/** A whole job returned to the queue for `preemptor` (ours: attained-service suspension). */
export function suspended(pods: number, preemptor: Standing, victim: Standing, attainedWorkerSeconds: number): string {
  const hours = (attainedWorkerSeconds / 3600).toFixed(1);
  const why =
    preemptor.priority !== victim.priority
      ? whatDecided(preemptor, victim)
      : `its workers have held ${hours} worker-hours, past --demote-after, so it ranks below jobs that have not`;
  return (
    `Suspended to admit ${preemptor.job} (${why}); deleted ${pods} pod(s); ` +
    'back in the queue, it resumes from its checkpoint when admitted again'
  );
}

/**
 * A planned move (`ScaleIn.relocated`, session/move.ts): workers moved off their nodes so that `forJob`
 * fits there; `forJob` the job itself: moved onto its other nodes so that it runs on fewer.
 */
export function relocatedFrom(count: number, removed: readonly string[], forJob: string, job?: string): string {
  if (forJob === job)
    return `Moving ${workersText(count, removed)} onto this job's other node(s) so that it runs on fewer nodes (its worker count stays)`;
  return `Moving ${workersText(count, removed)} onto this job's PS node(s) so that ${forJob} fits in the room they leave (this job has converged; its worker count stays)`;
}

/** Their replacements, created on the job's PS's nodes (with any growth of the same pass). */
export function relocatedTo(added: readonly ReplicaInstance[], moved: number, workers: number): string {
  const grown = added.length - moved;
  const more = grown > 0 ? ` and scaled out by ${grown}` : '';
  return `Moved ${moved} worker(s) next to its PS${more} on ${summarizeNodes(added)}; now ${workers} worker(s)`;
}

export function scaledIn(count: number, removed: readonly string[], workers: number): string {
  return `Scaled in by ${workersText(count, removed)}; now ${workers} worker(s)`;
}

export function admitted(
  workers: number,
  weight: number | undefined,
  starvedSeconds: number | undefined,
  replicas: readonly ReplicaInstance[],
): string {
  const starving = starvedSeconds === undefined ? '' : `, starving after waiting ${starvedSeconds}s`;
  return `Admitted with ${workers} worker(s) (weight ${fmt(weight)}${starving}) on ${summarizeNodes(replicas)}`;
}

/** A job that gave workers to the receiver of a scale-out in the same pass (preemption, reclaim, target). */
export interface Donor {
  readonly job: string;
  readonly workers: number;
}

/**
 * The receiver's side of a scale-out. With donors it names them: the room came from their workers
 * scaled in this pass, not from idle capacity (their own events say why they gave them).
 */
export function scaledOut(
  added: readonly ReplicaInstance[],
  workers: number,
  max: number,
  atAdmission: boolean,
  donors: readonly Donor[] = [],
): string {
  const when = atAdmission ? ' at admission' : '';
  const given = donors.reduce((n, d) => n + d.workers, 0);
  // At admission the donors made room for the minimum too, so which part was idle is not known.
  const idle = atAdmission ? 0 : added.length - given;
  const from =
    given === 0
      ? 'into idle capacity'
      : `into room made by scaling in ${donors.map((d) => `${d.job} (${d.workers} worker(s))`).join(', ')}` +
        (idle > 0 ? ` and ${idle} into idle capacity` : '');
  return `Scaled out by ${added.length} worker(s) ${from}${when} on ${summarizeNodes(added)}; now ${workers} worker(s), maximum ${max}`;
}

export function placed(name: string | undefined, node: string): string {
  return `Placed ${name ?? 'a replacement worker'} on ${node} (replacing a lost replica)`;
}

/** `node-a (ps-0, worker-0), node-b (worker-1)`. */
export function summarizeNodes(replicas: readonly ReplicaInstance[]): string {
  const byNode = new Map<string, string[]>();
  for (const r of replicas) {
    if (r.node === undefined) continue;
    byNode.set(r.node, [...(byNode.get(r.node) ?? []), `${r.type.toLowerCase()}-${r.index}`]);
  }
  return [...byNode].map(([node, names]) => `${node} (${names.join(', ')})`).join(', ');
}

function workersText(count: number, removed: readonly string[]): string {
  return `${count} worker(s)${removed.length > 0 ? ` (${removed.join(', ')})` : ''}`;
}

function fmt(weight: number | undefined): string {
  return weight === undefined ? '?' : weight.toFixed(2);
}
