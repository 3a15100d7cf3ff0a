// SpeCon's step in the vertical stage (--vertical-policy specon): after FlowCon's round classified the
// jobs, it plans migrations (src/scheduler/vertical/specon/) on the scheduling pass's last view of the
// nodes, records each target with the pass (steering.ts) and deletes the old worker; the controller
// re-creates it (same index, same TF_CONFIG) where the pass places it, on the target when it still fits.
import { Counter, type Registry } from 'prom-client';
import type { Pod } from '../../api/v1/k8s-types.ts';
import type { ParsedTFJobEntry } from '../../api/v1/parse.ts';
import type { MigrationStatus } from '../../api/v1/schema.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { FlowConList, FlowConVerdict } from '../../scheduler/vertical/flowcon/index.ts';
import {
  DEFAULT_SPECON_CONFIG,
  EMPTY_SPECON_STATE,
  speconRound,
  type Migration,
  type SpeconConfig,
} from '../../scheduler/vertical/specon/index.ts';
import type { PodRemover } from '../scheduling/pod-remover.ts';
import type { JobVerdict } from '../vertical/status.ts';
import { speconJobs, speconNodes } from './inputs.ts';
import type { MigrationSteering } from './steering.ts';

export const EVENT_WORKER_MIGRATED = 'WorkerMigrated';
export const EVENT_WORKER_MIGRATION_REFUSED = 'WorkerMigrationRefused';
/** The removal annotation of a migrated worker: its end is no failure. */
export const REMOVAL_MIGRATION = 'migration';

export interface MigrationStatusWriter {
  write(job: ParsedTFJobEntry, status: MigrationStatus): Promise<void>;
}

export interface MigrationDeps {
  readonly steering: MigrationSteering;
  readonly remover: PodRemover;
  readonly status: MigrationStatusWriter;
  readonly event: (job: ParsedTFJobEntry, type: 'Normal' | 'Warning', reason: string, message: string) => void;
  readonly log: Logger;
  readonly registry?: Registry;
  readonly config?: Partial<SpeconConfig>;
}

export interface MigrationRoundInput {
  readonly now: number;
  readonly jobs: readonly ParsedTFJobEntry[];
  readonly podsOf: (key: string) => readonly Pod[];
  readonly keyOf: (e: ParsedTFJobEntry) => string;
  readonly verdicts: ReadonlyMap<string, JobVerdict>;
}

const LISTS: readonly string[] = ['New', 'Watching', 'Completing'] satisfies FlowConList[];

function flowConVerdict(key: string, v: JobVerdict | undefined): FlowConVerdict {
  const list = v?.list !== undefined && LISTS.includes(v.list) ? (v.list as FlowConList) : undefined;
  return {
    job: key,
    ...(list === undefined ? {} : { list }),
    ...(v?.growthEfficiency === undefined ? {} : { growthEfficiency: v.growthEfficiency }),
  };
}

export class MigrationStep {
  readonly #deps: MigrationDeps;
  readonly #config: SpeconConfig;
  #state = EMPTY_SPECON_STATE;
  /** The last refusal said per job: a refusal is an Event only when it changes. */
  readonly #refused = new Map<string, string>();
  readonly #migrations: Counter<'namespace' | 'result'>;

  constructor(deps: MigrationDeps) {
    this.#deps = deps;
    this.#config = { ...DEFAULT_SPECON_CONFIG, ...deps.config };
    this.#migrations = new Counter({
      name: 'tfjob_operator_worker_migrations_total',
      help: 'Workers SpeCon moved to another node (result=migrated) or would have moved but could not (result=refused)',
      labelNames: ['namespace', 'result'],
      registers: deps.registry === undefined ? [] : [deps.registry],
    });
  }

  async round(input: MigrationRoundInput): Promise<readonly Migration[]> {
    const view = this.#deps.steering.view();
    if (view === undefined) return [];
    const src = {
      jobs: input.jobs,
      podsOf: input.podsOf,
      keyOf: input.keyOf,
      verdictOf: (k: string) => flowConVerdict(k, input.verdicts.get(k)),
    };
    this.#settle(input);
    const r = speconRound({ now: input.now, nodes: speconNodes(view, src), jobs: speconJobs(src) }, this.#state, this.#config);
    this.#state = r.state;
    const byKey = new Map(input.jobs.map((e) => [input.keyOf(e), e]));
    for (const refusal of r.refusals) {
      const job = byKey.get(refusal.job);
      const message = `Not moved off ${refusal.node}: ${refusal.why}`;
      if (job === undefined || this.#refused.get(refusal.job) === message) continue;
      this.#refused.set(refusal.job, message);
      this.#migrations.inc({ namespace: job.job.metadata.namespace ?? 'default', result: 'refused' });
      this.#deps.event(job, 'Normal', EVENT_WORKER_MIGRATION_REFUSED, message);
    }
    const done: Migration[] = [];
    for (const m of r.migrations) {
      const job = byKey.get(m.job);
      const pod = input.podsOf(m.job).find((p) => p.metadata?.name === m.pod);
      if (job === undefined || pod === undefined) continue;
      if (await this.#move(job, pod, m, input.now)) done.push(m);
    }
    return done;
  }

  /** A move is over once the job runs a worker on its target (or the steering lapsed). */
  #settle(input: MigrationRoundInput): void {
    for (const [key, node] of this.#deps.steering.pending()) {
      const arrived = input
        .podsOf(key)
        .some((p) => p.spec?.nodeName === node && p.status?.phase === 'Running' && p.metadata?.deletionTimestamp === undefined);
      if (arrived) this.#deps.steering.done(key);
    }
  }

  async #move(job: ParsedTFJobEntry, pod: Pod, m: Migration, now: number): Promise<boolean> {
    const namespace = job.job.metadata.namespace ?? 'default';
    this.#deps.steering.steer(m.job, m.to);
    try {
      await this.#deps.remover.remove(pod, REMOVAL_MIGRATION);
    } catch (err) {
      this.#deps.steering.done(m.job);
      this.#deps.log.warn({ tfjob: m.job, pod: m.pod, err }, 'Cannot delete the worker to migrate');
      this.#deps.event(job, 'Warning', EVENT_WORKER_MIGRATION_REFUSED, `Cannot delete ${m.pod} to move it to ${m.to}: ${String(err)}`);
      return false;
    }
    this.#refused.delete(m.job);
    this.#migrations.inc({ namespace, result: 'migrated' });
    this.#deps.log.info({ tfjob: m.job, pod: m.pod, from: m.from, to: m.to }, 'Migrating worker');
    this.#deps.event(
      job,
      'Normal',
      EVENT_WORKER_MIGRATED,
      `${m.pod} deleted on ${m.from} to be re-created on ${m.to} (same index, resumes from its checkpoint): ${m.reason}`,
    );
    const previous = job.status?.migration;
    const status: MigrationStatus = {
      migrations: (previous?.migrations ?? 0) + 1,
      last: { pod: m.pod, from: m.from, to: m.to, time: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'), reason: m.reason },
    };
    try {
      await this.#deps.status.write(job, status);
    } catch (err) {
      this.#deps.log.warn({ tfjob: m.job, err }, 'Cannot write status.migration');
    }
    return true;
  }
}
