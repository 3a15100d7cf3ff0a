// Leader election on a coordination.k8s.io Lease with client-go's semantics:
// - a candidate takes the lease only when its holder has not renewed it for leaseDuration, judged by
//   a local monotonic clock from the moment *we* observed the last change (immune to clock skew);
// - writes carry the lease's resourceVersion, so two candidates racing get one 409 Conflict;
// - the leader renews every retryPeriod and stops acting at once if it has not renewed for
//   renewDeadline (it may no longer be the leader; acting on would mean two leaders);
// - on a graceful stop the leader releases the lease so a standby takes over immediately.
import { setTimeout as sleep } from 'node:timers/promises';
import { CoordinationV1Api, V1MicroTime, type V1Lease } from '@kubernetes/client-node';
import { httpStatus } from './http-status.ts';
import type { KubeClients } from './kube-client.ts';
import type { Logger } from './logger.ts';
import type { RuntimeMetrics } from './metrics.ts';

export interface LeaderElectionConfig {
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

export interface LeaderCallbacks {
  /** Leadership acquired: start acting. `signal` aborts when leadership is lost or the elector stops. */
  onStartedLeading(signal: AbortSignal): void;
  /** Leadership lost (not renewed within renewDeadline) or released. */
  onStoppedLeading(reason: 'lost' | 'released'): void;
  onNewLeader?(identity: string): void;
}

interface ObservedRecord {
  readonly holder: string;
  readonly renewTime: string;
  readonly leaseDurationMs: number;
}

export class LeaderElector {
  readonly #api: CoordinationV1Api;
  readonly #cfg: LeaderElectionConfig;
  readonly #cb: LeaderCallbacks;
  readonly #log: Logger;
  readonly #metrics: RuntimeMetrics | undefined;
  #observed: ObservedRecord | undefined;
  #observedAt = 0;
  #lease: V1Lease | undefined;
  #leading = false;
  #lastRenew = 0;
  #stopped = false;
  #leaderAbort: AbortController | undefined;
  #reportedLeader = '';

  constructor(clients: KubeClients, cfg: LeaderElectionConfig, cb: LeaderCallbacks, opts: { logger: Logger; metrics?: RuntimeMetrics }) {
    if (cfg.renewDeadlineMs >= cfg.leaseDurationMs) throw new Error('leader election: renewDeadline must be shorter than leaseDuration');
    if (cfg.retryPeriodMs * 1.2 >= cfg.renewDeadlineMs)
      throw new Error('leader election: retryPeriod × 1.2 must be shorter than renewDeadline');
    this.#api = clients.api(CoordinationV1Api);
    this.#cfg = cfg;
    this.#cb = cb;
    this.#log = opts.logger.child({ lease: `${cfg.namespace}/${cfg.name}`, identity: cfg.identity });
    this.#metrics = opts.metrics;
    this.#metrics?.leaderStatus.set({ name: cfg.name }, 0);
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  /** Campaigns, then leads, until stop() or until leadership is lost. */
  async run(): Promise<void> {
    let acquired = false;
    while (this.#campaigning()) {
      if (await this.#tryAcquireOrRenew()) {
        acquired = true;
        break;
      }
      await sleep(this.#cfg.retryPeriodMs * (1 + Math.random() * 0.2));
    }
    if (this.#stopped) {
      // stop() ran while our take-over write was in flight: give the lease back, or the next replica
      // would wait a whole lease duration for a process that has exited.
      if (acquired) {
        try {
          await this.#release();
        } catch (err) {
          this.#log.warn({ err }, 'Failed to release a lease acquired during shutdown');
        }
      }
      return;
    }
    this.#becomeLeader();
    while (this.#holding()) {
      await sleep(this.#cfg.retryPeriodMs);
      if (!this.#holding()) break;
      const ok = await this.#renewWithin(this.#cfg.renewDeadlineMs - (performance.now() - this.#lastRenew));
      if (ok) continue;
      if (performance.now() - this.#lastRenew >= this.#cfg.renewDeadlineMs) {
        this.#loseLeadership('lost');
        return;
      }
    }
  }

  // Methods rather than inline checks: both flags change across awaits.
  #campaigning(): boolean {
    return !this.#stopped && !this.#leading;
  }

  #holding(): boolean {
    return !this.#stopped && this.#leading;
  }

  /** Stops campaigning; a leader releases the lease so a standby can take over at once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (!this.#leading) return;
    this.#leaderAbort?.abort();
    try {
      await this.#release();
    } catch (err) {
      this.#log.warn({ err }, 'Failed to release the lease');
    }
    this.#loseLeadership('released');
  }

  #becomeLeader(): void {
    this.#leading = true;
    this.#metrics?.leaderStatus.set({ name: this.#cfg.name }, 1);
    this.#log.info('Acquired the lease; leading');
    this.#leaderAbort = new AbortController();
    this.#cb.onStartedLeading(this.#leaderAbort.signal);
  }

  #loseLeadership(reason: 'lost' | 'released'): void {
    if (!this.#leading) return;
    this.#leading = false;
    this.#metrics?.leaderStatus.set({ name: this.#cfg.name }, 0);
    this.#leaderAbort?.abort();
    this.#log[reason === 'lost' ? 'error' : 'info'](
      { reason },
      reason === 'lost' ? 'Failed to renew the lease in time; stopped leading' : 'Released the lease',
    );
    this.#cb.onStoppedLeading(reason);
  }

  async #renewWithin(budgetMs: number): Promise<boolean> {
    if (budgetMs <= 0) return false;
    const timeout = sleep(budgetMs, false as const);
    try {
      return await Promise.race([this.#tryAcquireOrRenew(), timeout]);
    } catch {
      return false;
    }
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const now = new V1MicroTime();
    const me = this.#cfg.identity;
    const leaseSeconds = Math.ceil(this.#cfg.leaseDurationMs / 1000);
    let lease: V1Lease;
    try {
      // Fast path: a leader writes its cached lease directly; a 409 sends it to the slow path.
      if (this.#leading && this.#lease !== undefined) {
        try {
          const renewed = await this.#api.replaceNamespacedLease({
            name: this.#cfg.name,
            namespace: this.#cfg.namespace,
            body: { ...this.#lease, spec: { ...this.#lease.spec, renewTime: now, holderIdentity: me } },
          });
          return this.#succeeded(renewed);
        } catch {
          this.#metrics?.leaderSlowpath.inc({ name: this.#cfg.name });
        }
      }
      lease = await this.#api.readNamespacedLease({ name: this.#cfg.name, namespace: this.#cfg.namespace });
    } catch (err) {
      if (httpStatus(err) !== 404) {
        this.#log.debug({ err }, 'Failed to read the lease');
        return false;
      }
      try {
        const created = await this.#api.createNamespacedLease({
          namespace: this.#cfg.namespace,
          body: {
            metadata: { name: this.#cfg.name, namespace: this.#cfg.namespace },
            spec: { holderIdentity: me, leaseDurationSeconds: leaseSeconds, acquireTime: now, renewTime: now, leaseTransitions: 0 },
          },
        });
        return this.#succeeded(created);
      } catch (createErr) {
        this.#log.debug({ err: createErr }, 'Lost the race to create the lease');
        return false;
      }
    }

    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const record: ObservedRecord = {
      holder,
      renewTime: spec.renewTime === undefined ? '' : new Date(spec.renewTime).toISOString(),
      leaseDurationMs: (spec.leaseDurationSeconds ?? leaseSeconds) * 1000,
    };
    if (this.#observed === undefined || this.#observed.holder !== record.holder || this.#observed.renewTime !== record.renewTime) {
      this.#observed = record;
      this.#observedAt = performance.now();
    }
    this.#noteLeader(holder);
    const heldByOther = holder !== '' && holder !== me;
    if (heldByOther && this.#observedAt + record.leaseDurationMs > performance.now()) return false;

    const takingOver = holder !== me;
    try {
      const updated = await this.#api.replaceNamespacedLease({
        name: this.#cfg.name,
        namespace: this.#cfg.namespace,
        body: {
          ...lease,
          spec: {
            ...spec,
            holderIdentity: me,
            leaseDurationSeconds: leaseSeconds,
            renewTime: now,
            acquireTime: takingOver ? now : spec.acquireTime,
            leaseTransitions: (spec.leaseTransitions ?? 0) + (takingOver && holder !== '' ? 1 : 0),
          },
        },
      });
      return this.#succeeded(updated);
    } catch (err) {
      this.#log.debug({ err }, 'Failed to update the lease');
      return false;
    }
  }

  #succeeded(lease: V1Lease): true {
    this.#lease = lease;
    this.#lastRenew = performance.now();
    this.#observed = {
      holder: this.#cfg.identity,
      renewTime: lease.spec?.renewTime === undefined ? '' : new Date(lease.spec.renewTime).toISOString(),
      leaseDurationMs: (lease.spec?.leaseDurationSeconds ?? 15) * 1000,
    };
    this.#observedAt = this.#lastRenew;
    this.#noteLeader(this.#cfg.identity);
    return true;
  }

  #noteLeader(identity: string): void {
    if (identity === '' || identity === this.#reportedLeader) return;
    this.#reportedLeader = identity;
    this.#cb.onNewLeader?.(identity);
  }

  async #release(): Promise<void> {
    if (this.#lease === undefined) return;
    const now = new V1MicroTime();
    const lease = await this.#api.readNamespacedLease({ name: this.#cfg.name, namespace: this.#cfg.namespace });
    if (lease.spec?.holderIdentity !== this.#cfg.identity) return;
    await this.#api.replaceNamespacedLease({
      name: this.#cfg.name,
      namespace: this.#cfg.namespace,
      body: { ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now } },
    });
  }
}
