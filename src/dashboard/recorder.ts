// Keeps each job's history ring up to date from the watches: a sample whenever the job's live worker
// count, CPU, step or metric changes (a TFJob status update or one of its pods coming or going).
import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from '../runtime/store.ts';
import type { JobHistories } from './history.ts';
import { num, obj } from './read.ts';
import type { CachedPod } from './reduce.ts';
import type { Caches } from './sources.ts';

function live(p: CachedPod): boolean {
  return !p.view.deleting && p.view.phase !== 'Succeeded' && p.view.phase !== 'Failed';
}

export class HistoryRecorder {
  /** Pod keys per job key, kept from pod events (the caches have no index by job). */
  readonly #podsByJob = new Map<string, Set<string>>();

  readonly caches: Caches;
  readonly histories: JobHistories;
  readonly now: () => number;

  constructor(caches: Caches, histories: JobHistories, now: () => number = Date.now) {
    this.caches = caches;
    this.histories = histories;
    this.now = now;
  }

  attach(onRecorded: () => void): void {
    this.caches.tfjobs.on((type, job) => {
      const key = objectKey(job);
      if (type === 'delete') this.histories.forget(key);
      else if (this.sample(key, job)) onRecorded();
    });
    this.caches.pods.on((type, pod, old) => {
      const job = pod.view.job ?? old?.view.job;
      if (job === undefined) return;
      const podKey = objectKey(pod);
      const set = this.#podsByJob.get(job) ?? new Set<string>();
      if (type === 'delete') set.delete(podKey);
      else set.add(podKey);
      if (set.size === 0) this.#podsByJob.delete(job);
      else this.#podsByJob.set(job, set);
      const tfjob = this.caches.tfjobs.get(job);
      if (tfjob !== undefined && this.sample(job, tfjob)) onRecorded();
    });
  }

  podsOf(job: string): CachedPod[] {
    const out: CachedPod[] = [];
    for (const key of this.#podsByJob.get(job) ?? []) {
      const p = this.caches.pods.get(key);
      if (p !== undefined) out.push(p);
    }
    return out;
  }

  sample(key: string, job: KubernetesObject): boolean {
    const pods = this.podsOf(key).filter(live);
    const progress = obj(job, 'status', 'progress');
    return this.histories.record(key, this.now(), {
      workers: pods.filter((p) => p.view.replicaType?.startsWith('worker-') === true).length,
      cpu: pods.reduce((sum, p) => sum + (p.view.limits.cpu || p.view.requests.cpu), 0),
      step: num(progress['step']),
      metric: num(progress['latest']) ?? num(progress['metric']),
      measuredRate: num(obj(job, 'status', 'qoe')['measuredStepsPerSecond']),
    });
  }
}
