// Queues with quotas (Kueue's ClusterQueue semantics, in whole pods): the book of what each queue's
// jobs hold, what it may still take, and how far each borrows. One ledger per pass, charged as the
// pass admits and grows jobs and credited as it scales them in.
//
// Per queue q and resource r its quota names (other resources are not limited by q):
//   N = nominal quota, L = lendable part (lendingLimit, default all of N), G = N − L (only q uses it),
//   B = borrowing limit (default unlimited in a cohort; a queue without cohort never borrows),
//   U = what q's running jobs request (every replica, placed or not).
// A cohort's pool is Σ L over its queues; a queue's use of the pool is max(0, U − G). Extra demand d
// fits q iff U + d ≤ N + B and the cohort's pool use stays ≤ its size. A queue without a cohort is a
// cohort of its own, which makes both conditions U + d ≤ N.
//
// Fair share (dominant resource, by weight): share(q) = max_r max(0, U − N) / pool_r / weight.
// Queues within their nominal quota share 0; borrowed capacity goes to the lowest share first.

import type { CompiledJob, RunningJob } from '../model/job-model.ts';
import { formatQuantity } from '../model/resources.ts';
import type { QueueSpec, Resources } from '../types.ts';

/** Why a queue cannot take a demand now. */
export interface QuotaBlock {
  readonly queue: string;
  readonly resource: string;
  /** `nominal`: the queue has no cohort; `borrowing-limit`: its own limit; `cohort`: the cohort has no more to lend. */
  readonly limit: 'nominal' | 'borrowing-limit' | 'cohort';
  readonly used: number;
  readonly nominal: number;
  /** How much more of the resource the queue may take now. */
  readonly room: number;
  readonly needed: number;
  /** Of its nominal quota it does not use, how much others of its cohort borrow now (so it cannot take it). */
  readonly lent?: number;
  /** The cohort's queues above their own nominal quota of the resource (who holds what it lent). */
  readonly borrowers?: readonly string[];
}

/** An amount with its unit said once: `2 cpu`, `4Gi memory`, `1 nvidia.com/gpu`. */
function amountOf(resource: string, n: number): string {
  const text = formatQuantity(resource, n);
  return text.includes(resource) ? text : `${text} ${resource}`;
}

/**
 * `queue b has 0 cpu free for it (4 cpu in use, quota 6 cpu, 2 cpu of it lent to queue a; its cohort
 * has 0 cpu left to lend); needs 1 cpu`: the same numbers `kubectl tfjob queues` shows (in use / quota).
 */
export function describeQuotaBlock(b: QuotaBlock): string {
  const q = (n: number): string => amountOf(b.resource, n);
  const lent =
    (b.lent ?? 0) > 1e-9
      ? `, ${q(b.lent!)} of it lent to ${b.borrowers === undefined || b.borrowers.length === 0 ? 'its cohort' : `queue ${b.borrowers.join(', ')}`}`
      : '';
  const why =
    b.limit === 'nominal'
      ? `quota ${q(b.nominal)}`
      : b.limit === 'borrowing-limit'
        ? `quota ${q(b.nominal)} plus its borrowing limit`
        : `quota ${q(b.nominal)}${lent}; its cohort has ${q(Math.max(0, b.room))} left to lend`;
  return `queue ${b.queue} has ${q(Math.max(0, b.room))} free for it (${q(b.used)} in use, ${why}); needs ${q(b.needed)}`;
}

interface Book {
  readonly spec: QueueSpec;
  readonly cohort: string;
  readonly used: Record<string, number>;
}

function limited(spec: QueueSpec): string[] {
  return Object.keys(spec.nominalQuota);
}

/** The requests of one replica of `type` in `job` (worker group, else the last fixed group of that type). */
function replicaRequests(job: CompiledJob, type: string): Resources | undefined {
  if (job.workers?.type === type) return job.workers.requests;
  for (let i = job.fixed.length - 1; i >= 0; i--) if (job.fixed[i]!.type === type) return job.fixed[i]!.requests;
  return undefined;
}

/** What a running job holds: every live replica's requests. */
export function heldBy(r: RunningJob): Record<string, number> {
  const out: Record<string, number> = {};
  for (const rep of [...r.fixedReplicas, ...r.workers]) {
    const req = replicaRequests(r.job, rep.type);
    if (req === undefined) continue;
    for (const [k, v] of Object.entries(req)) out[k] = (out[k] ?? 0) + v;
  }
  return out;
}

/** `count` × `requests`. */
export function times(requests: Resources, count: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(requests)) out[k] = v * count;
  return out;
}

export class QuotaLedger {
  readonly #books = new Map<string, Book>();
  readonly #cohorts = new Map<string, Book[]>();

  constructor(queues: readonly QueueSpec[], running: readonly RunningJob[]) {
    for (const spec of [...queues].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const cohort = spec.cohort === undefined || spec.cohort === '' ? `\0${spec.name}` : spec.cohort;
      const book: Book = { spec, cohort, used: {} };
      this.#books.set(spec.name, book);
      const members = this.#cohorts.get(cohort);
      if (members === undefined) this.#cohorts.set(cohort, [book]);
      else members.push(book);
    }
    for (const r of running) {
      const q = r.job.state.spec.queue;
      if (q !== undefined) this.charge(q, heldBy(r), 1);
    }
  }

  get enabled(): boolean {
    return this.#books.size > 0;
  }

  has(queue: string): boolean {
    return this.#books.has(queue);
  }

  queueNames(): string[] {
    return [...this.#books.keys()];
  }

  spec(queue: string): QueueSpec | undefined {
    return this.#books.get(queue)?.spec;
  }

  cohortOf(queue: string): string | undefined {
    return this.#books.get(queue)?.cohort;
  }

  used(queue: string): Resources {
    return { ...(this.#books.get(queue)?.used ?? {}) };
  }

  /** Adds `sign` × `amount` to the queue's use (a queue the ledger does not know is ignored). */
  charge(queue: string, amount: Resources, sign: 1 | -1): void {
    const book = this.#books.get(queue);
    if (book === undefined) return;
    for (const [k, v] of Object.entries(amount)) book.used[k] = (book.used[k] ?? 0) + sign * v;
  }

  #nominal(book: Book, r: string): number {
    return book.spec.nominalQuota[r] ?? 0;
  }

  #guaranteed(book: Book, r: string): number {
    const n = this.#nominal(book, r);
    const lend = book.spec.lendingLimit?.[r];
    return lend === undefined ? 0 : Math.max(0, n - lend);
  }

  /** The cohort's pool of r and how much of it is in use. */
  #pool(book: Book, r: string): { size: number; used: number } {
    let size = 0;
    let used = 0;
    for (const m of this.#cohorts.get(book.cohort)!) {
      if (!(r in m.spec.nominalQuota)) continue;
      const g = this.#guaranteed(m, r);
      size += this.#nominal(m, r) - g;
      used += Math.max(0, (m.used[r] ?? 0) - g);
    }
    return { size, used };
  }

  /** How much more of `r` the queue may take now, and which limit binds (Infinity: r is not limited). */
  room(queue: string, r: string, withinNominal = false): { room: number; limit: QuotaBlock['limit'] } {
    const book = this.#books.get(queue);
    if (book === undefined || !(r in book.spec.nominalQuota)) return { room: Number.POSITIVE_INFINITY, limit: 'nominal' };
    const solo = book.cohort.startsWith('\0');
    const u = book.used[r] ?? 0;
    const n = this.#nominal(book, r);
    const borrow = solo || withinNominal ? 0 : (book.spec.borrowingLimit?.[r] ?? Number.POSITIVE_INFINITY);
    const own = n + borrow - u;
    const pool = this.#pool(book, r);
    const g = this.#guaranteed(book, r);
    const shared = Math.max(0, g - u) + pool.size - pool.used;
    if (own <= shared) return { room: own, limit: solo || withinNominal ? 'nominal' : 'borrowing-limit' };
    return { room: shared, limit: solo ? 'nominal' : 'cohort' };
  }

  /** `unavailable` of its unused nominal quota is held by borrowers of its cohort: lent, and to whom. */
  #lentOut(book: Book, r: string, unavailable: number): Pick<QuotaBlock, 'lent' | 'borrowers'> {
    if (unavailable <= 1e-9) return {};
    const borrowers = this.#cohorts
      .get(book.cohort)!
      .filter((m) => m !== book && (m.used[r] ?? 0) > this.#nominal(m, r) + 1e-9)
      .map((m) => m.spec.name);
    return { lent: unavailable, borrowers };
  }

  /** The first limit `demand` breaks for the queue; undefined when it fits (or the queue is unknown). */
  check(queue: string, demand: Resources, withinNominal = false): QuotaBlock | undefined {
    const book = this.#books.get(queue);
    if (book === undefined) return undefined;
    for (const r of limited(book.spec)) {
      const needed = demand[r] ?? 0;
      if (needed <= 0) continue;
      const { room, limit } = this.room(queue, r, withinNominal);
      if (needed > room + 1e-9) {
        const used = book.used[r] ?? 0;
        const nominal = this.#nominal(book, r);
        const block: QuotaBlock = { queue, resource: r, limit, used, nominal, room, needed };
        return limit === 'cohort' ? { ...block, ...this.#lentOut(book, r, nominal - used - Math.max(0, room)) } : block;
      }
    }
    return undefined;
  }

  /**
   * The first resource of which `demand` is more than the queue could ever hold (its nominal quota
   * plus borrowing limit, and at most its cohort's pool plus what it keeps for itself), with that
   * most; undefined when an idle cohort would take it.
   */
  neverFits(queue: string, demand: Resources): { resource: string; most: number } | undefined {
    const book = this.#books.get(queue);
    if (book === undefined) return undefined;
    const solo = book.cohort.startsWith('\0');
    for (const r of limited(book.spec)) {
      const n = this.#nominal(book, r);
      const borrow = solo ? 0 : (book.spec.borrowingLimit?.[r] ?? Number.POSITIVE_INFINITY);
      let pool = 0;
      for (const m of this.#cohorts.get(book.cohort)!) if (r in m.spec.nominalQuota) pool += this.#nominal(m, r) - this.#guaranteed(m, r);
      const most = Math.min(n + borrow, this.#guaranteed(book, r) + pool);
      if ((demand[r] ?? 0) > most + 1e-9) return { resource: r, most };
    }
    return undefined;
  }

  /** Whether `demand` keeps the queue within its nominal quota (ignoring what others borrow of it). */
  fitsNominal(queue: string, demand: Resources): boolean {
    const book = this.#books.get(queue);
    if (book === undefined) return true;
    return limited(book.spec).every((r) => (book.used[r] ?? 0) + (demand[r] ?? 0) <= this.#nominal(book, r) + 1e-9);
  }

  /** How many replicas of `requests` the queue may still take (Infinity: none of them is limited). */
  affordable(queue: string, requests: Resources, withinNominal = false): number {
    const book = this.#books.get(queue);
    if (book === undefined) return Number.POSITIVE_INFINITY;
    let n = Number.POSITIVE_INFINITY;
    for (const r of limited(book.spec)) {
      const each = requests[r] ?? 0;
      if (each <= 0) continue;
      n = Math.min(n, Math.floor((this.room(queue, r, withinNominal).room + 1e-9) / each));
    }
    return Math.max(0, n);
  }

  /** Whether the queue holds more than its nominal quota of some resource it limits. */
  isBorrowing(queue: string): boolean {
    const book = this.#books.get(queue);
    if (book === undefined) return false;
    return limited(book.spec).some((r) => (book.used[r] ?? 0) > this.#nominal(book, r) + 1e-9);
  }

  /** Dominant-resource share of what the queue borrows, divided by its weight (0 within nominal quota). */
  share(queue: string): number {
    const book = this.#books.get(queue);
    if (book === undefined) return 0;
    let s = 0;
    for (const r of limited(book.spec)) {
      const over = (book.used[r] ?? 0) - this.#nominal(book, r);
      if (over <= 0) continue;
      const pool = this.#pool(book, r).size;
      s = Math.max(s, pool > 0 ? over / pool : Number.POSITIVE_INFINITY);
    }
    return s / Math.max(book.spec.weight, 1e-9);
  }

  /** The queue's share were `delta` added to (sign 1) or taken from (sign −1) its use. */
  shareWith(queue: string, delta: Resources, sign: 1 | -1): number {
    this.charge(queue, delta, sign);
    const s = this.share(queue);
    this.charge(queue, delta, sign === 1 ? -1 : 1);
    return s;
  }

  /** Queues of the same cohort (the queue itself excluded). */
  cohortPeers(queue: string): string[] {
    const book = this.#books.get(queue);
    if (book === undefined) return [];
    return this.#cohorts
      .get(book.cohort)!
      .filter((m) => m !== book)
      .map((m) => m.spec.name);
  }

  /**
   * Per queue of `growing`, its weighted part of what its cohort's pool has free, per resource:
   * how much it may borrow in this pass's fair round of scale-out.
   */
  borrowAllowances(growing: ReadonlySet<string>): Map<string, Record<string, number>> {
    const out = new Map<string, Record<string, number>>();
    for (const members of this.#cohorts.values()) {
      const takers = members.filter((m) => growing.has(m.spec.name));
      const total = takers.reduce((w, m) => w + m.spec.weight, 0);
      if (takers.length === 0 || total <= 0) continue;
      for (const m of takers) {
        const allowance: Record<string, number> = {};
        for (const r of limited(m.spec)) {
          const pool = this.#pool(m, r);
          allowance[r] = (Math.max(0, pool.size - pool.used) * m.spec.weight) / total;
        }
        out.set(m.spec.name, allowance);
      }
    }
    return out;
  }
}
