// SpeCon's step in the vertical stage (--vertical-policy specon): after FlowCon's round classified the
// jobs, it plans migrations (src/scheduler/vertical/specon/) on the scheduling pass's last view of the
// nodes, records each target with the pass (steering.ts) and deletes the old worker; the controller
// re-creates it (same index, same TF_CONFIG) where the pass places it, on the target when it still fits.
// A move is called WorkerMigrated only once its replacement is seen bound to the target; bound elsewhere
// (the target filled first) or not at all, it is MigrationTargetLost (outcome.ts).
import { Counter, type Registry } from 'prom-client';
import type { Pod } from '../../api/v1/k8s-types.ts';
import type { ParsedTFJobEntry } from '../../api/v1/parse.ts';
import { moveUnderWay } from '../../api/v1/migration.ts';
import type { MigrationStatus } from '../../api/v1/schema.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { FlowConList, FlowConVerdict } from '../../scheduler/vertical/flowcon/index.ts';
import {
  DEFAULT_SPECON_CONFIG,
  EMPTY_SPECON_STATE,
  speconRound,
  withRecordedMoves,
  type Migration,
  type RecordedMove,
  type SpeconConfig,
} from '../../scheduler/vertical/specon/index.ts';
import type { PodRemover } from '../scheduling/pod-remover.ts';
import type { JobVerdict } from '../vertical/status.ts';
import { speconJobs, speconNodes } from './inputs.ts';
import { moveOutcome, type MoveOutcome, type PendingMove } from './outcome.ts';
import { STEERING_TTL_MS, type MigrationSteering } from './steering.ts';

export const EVENT_WORKER_MIGRATING = 'WorkerMigrating';
export const EVENT_WORKER_MIGRATED = 'WorkerMigrated';
export const EVENT_MIGRATION_TARGET_LOST = 'MigrationTargetLost';
export const EVENT_WORKER_MIGRATION_REFUSED = 'WorkerMigrationRefused';
/** The removal annotation of a migrated worker: its end is no failure. */
export const REMOVAL_MIGRATION = 'migration';

export interface MigrationStatusWriter {
  write(job: ParsedTFJobEntry, status: MigrationStatus): Promise<void>;
}

/** What the step needs of the steering: the pass's last view, and where a job's replacement goes. */
export type MigrationSteeringPort = Pick<MigrationSteering, 'view' | 'steer' | 'done'>;

export interface MigrationDeps {
  readonly steering: MigrationSteeringPort;
  readonly remover: PodRemover;
  readonly status: MigrationStatusWriter;
  readonly event: (job: ParsedTFJobEntry, type: 'Normal' | 'Warning', reason: string, message: string) => void;
  readonly log: Logger;
  readonly registry?: Registry;
  readonly config?: Partial<SpeconConfig>;
  /** How long a replacement may take to be bound before the move counts as lost. */
  readonly settleTimeoutMs?: number;
}

export interface MigrationRoundInput {
  readonly now: number;
  readonly jobs: readonly ParsedTFJobEntry[];
  readonly podsOf: (key: string) => readonly Pod[];
  readonly keyOf: (e: ParsedTFJobEntry) => string;
  readonly verdicts: ReadonlyMap<string, JobVerdict>;
}

const LISTS: readonly string[] = ['New', 'Watching', 'Completing'] satisfies FlowConList[];
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const namespaceOf = (job: ParsedTFJobEntry) => job.job.metadata.namespace ?? 'default';

function flowConVerdict(key: string, v: JobVerdict | undefined): FlowConVerdict {
  const list = v?.list !== undefined && LISTS.includes(v.list) ? (v.list as FlowConList) : undefined;
  return {
    job: key,
    ...(list === undefined ? {} : { list }),
    ...(v?.growthEfficiency === undefined ? {} : { growthEfficiency: v.growthEfficiency }),
  };
}

/** When each job's last move started, as its status records it (Moving, Migrated or TargetLost alike). */
export function recordedMoves(byKey: ReadonlyMap<string, ParsedTFJobEntry>): RecordedMove[] {
  return [...byKey].flatMap(([job, e]) => {
    const time = e.status?.migration?.last?.time;
    const at = time === undefined ? Number.NaN : Date.parse(time);
    return Number.isNaN(at) ? [] : [{ job, at }];
  });
}

export class MigrationStep {
  readonly #deps: MigrationDeps;
  readonly #config: SpeconConfig;
  readonly #settleTimeoutMs: number;
  #state = EMPTY_SPECON_STATE;
  /** The last refusal said per job: a refusal is an Event only when it changes. */
  readonly #refused = new Map<string, string>();
  /** Moves whose replacement is not yet seen bound, by job. */
  readonly #pending = new Map<string, PendingMove>();
  /** Moves that reached their target, by job (the cached status may lag behind our writes). */
  readonly #arrived = new Map<string, number>();
  /** Moves this operator started or took over, as `job@time` of their status (the cache may lag behind our writes). */
  readonly #known = new Set<string>();
  readonly #migrations: Counter<'namespace' | 'result'>;

  constructor(deps: MigrationDeps) {
    this.#deps = deps;
    this.#config = { ...DEFAULT_SPECON_CONFIG, ...deps.config };
    this.#settleTimeoutMs = deps.settleTimeoutMs ?? STEERING_TTL_MS;
    this.#migrations = new Counter({
      name: 'tfjob_operator_worker_migrations_total',
      help: 'Moves SpeCon made: result=migrated (the replacement was bound to the target), target_lost (bound elsewhere or not at all), refused (a move it would have made but could not)',
      labelNames: ['namespace', 'result'],
      registers: deps.registry === undefined ? [] : [deps.registry],
    });
  }

  async round(input: MigrationRoundInput): Promise<readonly Migration[]> {
    const view = this.#deps.steering.view();
    if (view === undefined) return [];
    const byKey = new Map(input.jobs.map((e) => [input.keyOf(e), e]));
    this.#adoptUnfinished(byKey);
    await this.#settle(input, byKey);
    const src = {
      jobs: input.jobs,
      podsOf: input.podsOf,
      keyOf: input.keyOf,
      verdictOf: (k: string) => flowConVerdict(k, input.verdicts.get(k)),
    };
    // A restarted operator keeps the cooldown of moves its predecessor made.
    const state = withRecordedMoves(this.#state, recordedMoves(byKey));
    const r = speconRound({ now: input.now, nodes: speconNodes(view, src), jobs: speconJobs(src) }, state, this.#config);
    this.#state = r.state;
    for (const refusal of r.refusals) {
      const job = byKey.get(refusal.job);
      const message = `Not moved off ${refusal.node}: ${refusal.why}`;
      if (job === undefined || this.#refused.get(refusal.job) === message) continue;
      this.#refused.set(refusal.job, message);
      this.#migrations.inc({ namespace: namespaceOf(job), result: 'refused' });
      this.#deps.log.info({ tfjob: refusal.job, node: refusal.node, why: refusal.why }, 'Not migrating');
      this.#deps.event(job, 'Normal', EVENT_WORKER_MIGRATION_REFUSED, message);
    }
    const started: Migration[] = [];
    for (const m of r.migrations) {
      const job = byKey.get(m.job);
      const pod = input.podsOf(m.job).find((p) => p.metadata?.name === m.pod);
      if (job === undefined || pod === undefined || this.#pending.has(m.job)) continue;
      if (await this.#move(job, pod, m, input.now)) started.push(m);
    }
    return started;
  }

  /**
   * A move a previous operator started (status.migration says Moving) and did not see end: it is
   * settled like our own, so the status never stays Moving, and its replacement is steered to the target.
   */
  #adoptUnfinished(byKey: ReadonlyMap<string, ParsedTFJobEntry>): void {
    for (const [key, job] of byKey) {
      const last = moveUnderWay(job.status);
      if (last === undefined || this.#pending.has(key) || this.#known.has(`${key}@${last.time}`)) continue;
      this.#known.add(`${key}@${last.time}`);
      const index = Number(/-(\d+)$/.exec(last.pod)?.[1] ?? -1);
      const migration = { job: key, pod: last.pod, index, from: last.from, to: last.to, reason: last.reason ?? '' };
      // No UID: Moving is written only once the old pod's delete was accepted, and a marked pod is no replacement.
      this.#pending.set(key, { migration, oldUid: undefined, startedAt: Date.parse(last.time) });
      this.#deps.steering.steer(key, last.to);
      this.#deps.log.info({ tfjob: key, pod: last.pod, from: last.from, to: last.to }, 'Settling a move a previous operator started');
    }
  }

  /** Moves under way: their replacement's node, once bound, says how each ended. */
  async #settle(input: MigrationRoundInput, byKey: ReadonlyMap<string, ParsedTFJobEntry>): Promise<void> {
    for (const [key, move] of [...this.#pending]) {
      const outcome = moveOutcome(move, input.podsOf(key), input.now, this.#settleTimeoutMs);
      if (outcome.kind === 'waiting') continue;
      this.#pending.delete(key);
      this.#deps.steering.done(key);
      const job = byKey.get(key);
      if (job === undefined) {
        this.#deps.log.info({ tfjob: key, pod: move.migration.pod }, 'Migrated job no longer runs: its move is dropped');
        continue;
      }
      await this.#ended(job, move, outcome, input.now);
    }
  }

  async #ended(job: ParsedTFJobEntry, move: PendingMove, outcome: Exclude<MoveOutcome, { kind: 'waiting' }>, now: number): Promise<void> {
    const m = move.migration;
    const key = m.job;
    const last = { pod: m.pod, from: m.from, to: m.to, time: iso(move.startedAt), reason: m.reason };
    const known = this.#migrationsSoFar(job, key);
    if (outcome.kind === 'arrived') {
      this.#arrived.set(key, known + 1);
      this.#migrations.inc({ namespace: namespaceOf(job), result: 'migrated' });
      this.#deps.log.info({ tfjob: key, pod: m.pod, from: m.from, to: m.to }, 'Worker migrated');
      const message = `${m.pod} re-created on ${m.to} (left ${m.from}; same index, resumes from its checkpoint): ${m.reason}`;
      this.#deps.event(job, 'Normal', EVENT_WORKER_MIGRATED, message);
      await this.#writeStatus(job, { migrations: known + 1, last: { ...last, state: 'Migrated' } });
      return;
    }
    const where =
      outcome.kind === 'elsewhere'
        ? `placed on ${outcome.node} instead`
        : `not placed within ${Math.round((now - move.startedAt) / 1000)}s`;
    this.#migrations.inc({ namespace: namespaceOf(job), result: 'target_lost' });
    this.#deps.log.warn({ tfjob: key, pod: m.pod, from: m.from, to: m.to, where }, 'Migration target lost');
    const message = `${m.pod} left ${m.from} for ${m.to}, but its replacement was ${where} (the target no longer had room)`;
    this.#deps.event(job, 'Warning', EVENT_MIGRATION_TARGET_LOST, message);
    const lost = { ...last, state: 'TargetLost' as const, ...(outcome.kind === 'elsewhere' ? { placedOn: outcome.node } : {}) };
    await this.#writeStatus(job, { migrations: known, last: lost });
  }

  async #move(job: ParsedTFJobEntry, pod: Pod, m: Migration, now: number): Promise<boolean> {
    this.#deps.steering.steer(m.job, m.to);
    try {
      const removal = await this.#deps.remover.remove(pod, REMOVAL_MIGRATION);
      if (removal === 'gone') {
        this.#deps.steering.done(m.job);
        this.#deps.log.info({ tfjob: m.job, pod: m.pod }, 'The worker to migrate was already gone: no move');
        return false;
      }
    } catch (err) {
      this.#deps.steering.done(m.job);
      this.#deps.log.warn({ tfjob: m.job, pod: m.pod, err }, 'Cannot delete the worker to migrate');
      this.#deps.event(job, 'Warning', EVENT_WORKER_MIGRATION_REFUSED, `Cannot delete ${m.pod} to move it to ${m.to}: ${String(err)}`);
      return false;
    }
    this.#pending.set(m.job, { migration: m, oldUid: pod.metadata?.uid, startedAt: now });
    this.#refused.delete(m.job);
    this.#deps.log.info({ tfjob: m.job, pod: m.pod, from: m.from, to: m.to }, 'Migrating worker');
    const message = `${m.pod} deleted on ${m.from} to be re-created on ${m.to} (same index, resumes from its checkpoint): ${m.reason}`;
    this.#deps.event(job, 'Normal', EVENT_WORKER_MIGRATING, message);
    const known = this.#migrationsSoFar(job, m.job);
    const last = { pod: m.pod, from: m.from, to: m.to, time: iso(now), reason: m.reason, state: 'Moving' as const };
    this.#known.add(`${m.job}@${last.time}`);
    await this.#writeStatus(job, { migrations: known, last });
    return true;
  }

  /** Moves that reached their target: the status's count, or ours when the cache has not caught up. */
  #migrationsSoFar(job: ParsedTFJobEntry, key: string): number {
    return Math.max(job.status?.migration?.migrations ?? 0, this.#arrived.get(key) ?? 0);
  }

  async #writeStatus(job: ParsedTFJobEntry, status: MigrationStatus): Promise<void> {
    try {
      await this.#deps.status.write(job, status);
    } catch (err) {
      this.#deps.log.warn({ tfjob: `${namespaceOf(job)}/${job.job.metadata.name}`, err }, 'Cannot write status.migration');
    }
  }
}
