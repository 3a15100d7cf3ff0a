// "Don't act twice before the cache has caught up" (kube-controller-manager's ControllerExpectations):
// after creating or deleting pods for a job, the next reconcile waits until the informer has observed
// those changes (or the expectation expires), so it never creates the same pod twice or deletes a pod
// it already deleted. Deterministic pod names make duplicates impossible anyway (409 AlreadyExists);
// this saves the wasted calls and the confusing events.

interface Expectation {
  adds: number;
  dels: number;
  /** Names still expected to appear / disappear, so a stray event for another pod does not count. */
  pendingAdds: Set<string>;
  pendingDels: Set<string>;
  setAt: number;
}

export class Expectations {
  readonly #byKey = new Map<string, Expectation>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(ttlMs = 5 * 60_000, now: () => number = () => performance.now()) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  expectCreations(key: string, names: readonly string[]): void {
    const e = this.#get(key);
    for (const n of names) e.pendingAdds.add(n);
    e.adds = e.pendingAdds.size;
    e.setAt = this.#now();
  }

  expectDeletions(key: string, names: readonly string[]): void {
    const e = this.#get(key);
    for (const n of names) e.pendingDels.add(n);
    e.dels = e.pendingDels.size;
    e.setAt = this.#now();
  }

  creationObserved(key: string, name: string): void {
    const e = this.#byKey.get(key);
    if (e === undefined) return;
    e.pendingAdds.delete(name);
    e.adds = e.pendingAdds.size;
  }

  deletionObserved(key: string, name: string): void {
    const e = this.#byKey.get(key);
    if (e === undefined) return;
    e.pendingDels.delete(name);
    e.dels = e.pendingDels.size;
  }

  /** A create that failed will never be observed: stop expecting it. */
  creationFailed(key: string, name: string): void {
    this.creationObserved(key, name);
  }

  deletionFailed(key: string, name: string): void {
    this.deletionObserved(key, name);
  }

  /** True when nothing is outstanding for `key`, or what is outstanding has expired. */
  satisfied(key: string): boolean {
    const e = this.#byKey.get(key);
    if (e === undefined) return true;
    if (e.adds <= 0 && e.dels <= 0) return true;
    return this.#now() - e.setAt > this.#ttlMs;
  }

  /** Whether a create whose name starts with `prefix` (e.g. `pod/`) is outstanding and not expired. */
  creatingAny(key: string, prefix: string): boolean {
    const e = this.#byKey.get(key);
    if (e === undefined || this.#now() - e.setAt > this.#ttlMs) return false;
    for (const n of e.pendingAdds) if (n.startsWith(prefix)) return true;
    return false;
  }

  pending(key: string): { adds: readonly string[]; dels: readonly string[] } {
    const e = this.#byKey.get(key);
    return { adds: [...(e?.pendingAdds ?? [])], dels: [...(e?.pendingDels ?? [])] };
  }

  delete(key: string): void {
    this.#byKey.delete(key);
  }

  #get(key: string): Expectation {
    let e = this.#byKey.get(key);
    if (e === undefined || (e.adds <= 0 && e.dels <= 0) || this.#now() - e.setAt > this.#ttlMs) {
      e = { adds: 0, dels: 0, pendingAdds: new Set(), pendingDels: new Set(), setAt: this.#now() };
      this.#byKey.set(key, e);
    }
    return e;
  }
}
