// The vertical stage (--vertical-policy flowcon|dqoes): every interval (FlowCon's, which backs off
// while every job is Completing, and at once when running jobs come or go) it plans the CPU limits of
// the running jobs' training containers, asks the API server for each change through `pods/resize`,
// and says what it did: an Event per job and `status.verticalResize`. Requests never change.
import type { Pod } from '../../api/v1/k8s-types.ts';
import type { ParsedTFJobEntry, TFJobEntry } from '../../api/v1/parse.ts';
import type { VerticalResizeStatus } from '../../api/v1/schema.ts';
import type { PodResizer } from '../../progress/follower/cpu-resize.ts';
import type { EvaluationSeries } from '../../progress/signals/index.ts';
import { isFinished } from '../../reconciler/tfjob/conditions.ts';
import { httpStatus } from '../../runtime/http-status.ts';
import { apiErrorMessage } from '../../runtime/kube-client.ts';
import type { Logger } from '../../runtime/logger.ts';
import { DEFAULT_DQOES_VERTICAL_CONFIG, type DqoesVerticalConfig } from '../../scheduler/vertical/dqoes/index.ts';
import { DEFAULT_FLOWCON_CONFIG, type FlowConConfig, type LimitChange, type NodeCpu } from '../../scheduler/vertical/flowcon/index.ts';
import { containersOf, formatMillis } from './inputs.ts';
import { keyOf, MAX_INTERVAL_FACTOR, planVertical, type VerticalState } from './plan.ts';
import type { VerticalPolicy } from './policy.ts';
import { Ticker } from '../../runtime/ticker.ts';
import type { MigrationStep } from '../migration/step.ts';
import { newlyRefused, nextStatus, sameStatus, type Applied } from './status.ts';

export const EVENT_CPU_LIMIT_RESIZED = 'CPULimitResized';
export const EVENT_CPU_LIMIT_RESIZE_FAILED = 'CPULimitResizeFailed';
export const EVENT_CPU_LIMIT_RESIZE_REFUSED = 'CPULimitResizeRefused';
/** How often the stage looks whether a round is due. */
const CHECK_MS = 2_000;
/** A container whose resize the API server refused is not asked again for this long (a node without resize support refuses every time). */
const REFUSED_PAUSE_MS = 10 * 60_000;

/** The allocatable CPU of the named nodes (those it cannot tell are left out). */
export interface NodeCpuSource {
  allocatable(names: readonly string[]): Promise<NodeCpu[]>;
}

/** The CPU the containers on the named nodes have used so far (namespace/pod/container → millicore-seconds). */
export interface CpuUsageSource {
  used(nodes: readonly string[]): Promise<ReadonlyMap<string, number>>;
}

/** Writes `status.verticalResize` of a job (a merge patch of the status subresource). */
export interface VerticalStatusWriter {
  write(job: ParsedTFJobEntry, status: VerticalResizeStatus): Promise<void>;
}

export interface VerticalStageDeps {
  readonly policy: Exclude<VerticalPolicy, 'none'>;
  readonly jobs: () => readonly TFJobEntry[];
  readonly podsOf: (key: string) => readonly Pod[];
  readonly series: (key: string) => EvaluationSeries | undefined;
  readonly nodes: NodeCpuSource;
  /** FlowCon's used CPU term (--flowcon-cpu used); without it, growth is per CPU allowed. */
  readonly usage?: CpuUsageSource;
  readonly resizer: PodResizer;
  readonly status: VerticalStatusWriter;
  readonly event: (job: TFJobEntry, type: 'Normal' | 'Warning', reason: string, message: string) => void;
  readonly log: Logger;
  /** The first interval (FlowCon's itval; DQoES's fixed interval). */
  readonly intervalMs: number;
  readonly flowcon?: Partial<FlowConConfig>;
  readonly dqoes?: Partial<DqoesVerticalConfig>;
  readonly now?: () => number;
  /** specon: moves slow jobs' workers after each round (src/operator/migration/). */
  readonly migration?: Pick<MigrationStep, 'round'>;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export class VerticalStage {
  readonly #deps: VerticalStageDeps;
  readonly #now: () => number;
  readonly #config: { flowcon: FlowConConfig; dqoes: DqoesVerticalConfig; intervalMs: number };
  #state: VerticalState = {};
  #intervalMs: number;
  #lastRound = Number.NEGATIVE_INFINITY;
  #lastJobs = '';
  /** Limits asked for and admitted, by job and then pod/container: the status may lag behind. */
  readonly #asked = new Map<string, Map<string, number>>();
  /** namespace/job/pod/container → when the API server last refused its resize. */
  readonly #refusedAt = new Map<string, number>();
  readonly #ticker: Ticker;

  constructor(deps: VerticalStageDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => Date.now());
    this.#config = {
      flowcon: {
        ...DEFAULT_FLOWCON_CONFIG,
        initialIntervalMs: deps.intervalMs,
        maxIntervalMs: MAX_INTERVAL_FACTOR * deps.intervalMs,
        ...deps.flowcon,
      },
      dqoes: { ...DEFAULT_DQOES_VERTICAL_CONFIG, ...deps.dqoes },
      intervalMs: deps.intervalMs,
    };
    this.#intervalMs = deps.intervalMs;
    this.#ticker = new Ticker(
      CHECK_MS,
      () => this.tick(),
      (err) => {
        deps.log.warn({ err }, 'Vertical round failed');
      },
    );
  }

  start(): void {
    this.#ticker.start();
  }

  async stop(): Promise<void> {
    await this.#ticker.stop();
  }

  /** Runs a round if one is due (the interval passed, or the running jobs changed); true if it ran. */
  async tick(): Promise<boolean> {
    const jobs = this.#runningJobs();
    const signature = jobs.map(keyOf).sort().join(',');
    const now = this.#now();
    if (now - this.#lastRound < this.#intervalMs && signature === this.#lastJobs) return false;
    this.#lastRound = now;
    this.#lastJobs = signature;
    await this.#round(jobs, now);
    return true;
  }

  /** Unfinished jobs with at least one running training container. */
  #runningJobs(): ParsedTFJobEntry[] {
    return this.#deps
      .jobs()
      .filter((e): e is ParsedTFJobEntry => e.ok && !isFinished(e.status?.conditions ?? []))
      .filter((e) => containersOf(e, this.#deps.podsOf(keyOf(e))).length > 0);
  }

  async #round(jobs: readonly ParsedTFJobEntry[], now: number): Promise<void> {
    const names = new Set(jobs.flatMap((e) => containersOf(e, this.#deps.podsOf(keyOf(e))).map((c) => c.node)));
    const nodes = await this.#deps.nodes.allocatable([...names].sort());
    const usage = await this.#deps.usage?.used([...names].sort());
    for (const key of [...this.#asked.keys()]) if (!jobs.some((e) => keyOf(e) === key)) this.#asked.delete(key);
    const recent = (key: string) => this.#asked.get(key);
    const input = { now, jobs, podsOf: this.#deps.podsOf, series: this.#deps.series, nodes, recent, ...(usage ? { usage } : {}) };
    const plan = planVertical(this.#deps.policy, input, this.#config, this.#state);
    this.#state = {
      ...this.#state,
      ...(plan.flowcon === undefined ? {} : { flowcon: plan.flowcon }),
      ...(plan.dqoes === undefined ? {} : { dqoes: plan.dqoes }),
    };
    this.#intervalMs = plan.intervalMs;
    if (plan.runNow === true) this.#lastRound = Number.NEGATIVE_INFINITY;
    for (const [k, at] of this.#refusedAt) if (now - at >= REFUSED_PAUSE_MS) this.#refusedAt.delete(k);
    for (const job of jobs) {
      const key = keyOf(job);
      const changes = plan.changes.filter((c) => c.job === key && !this.#refusedAt.has(`${key}/${c.pod}/${c.container}`));
      const applied = await this.#apply(key, changes);
      for (const a of applied) {
        const where = `${a.change.pod}/${a.change.container}`;
        if (a.error !== undefined) this.#refusedAt.set(`${key}/${where}`, now);
        else this.#asked.set(key, new Map(this.#asked.get(key)).set(where, a.change.toMillis));
      }
      await this.#report(job, plan.verdicts.get(key) ?? {}, applied, iso(now));
    }
    await this.#deps.migration?.round({ now, jobs, podsOf: this.#deps.podsOf, keyOf, verdicts: plan.verdicts });
  }

  async #apply(key: string, changes: readonly LimitChange[]): Promise<Applied[]> {
    const namespace = key.slice(0, key.indexOf('/'));
    const out: Applied[] = [];
    for (const change of changes) {
      try {
        await this.#deps.resizer.resize({
          namespace,
          pod: change.pod,
          container: change.container,
          limitMillis: change.toMillis,
          lower: change.toMillis < change.fromMillis,
        });
        out.push({ change });
      } catch (err) {
        const code = httpStatus(err);
        out.push({ change, error: `${code === undefined ? '' : `HTTP ${code}: `}${apiErrorMessage(err)}` });
      }
    }
    return out;
  }

  async #report(
    job: ParsedTFJobEntry,
    verdict: Parameters<typeof nextStatus>[2],
    applied: readonly Applied[],
    time: string,
  ): Promise<void> {
    const key = keyOf(job);
    const pods = new Map(this.#deps.podsOf(key).map((p) => [p.metadata?.name ?? '', p]));
    const previous = job.status?.verticalResize;
    const next = nextStatus(this.#deps.policy, previous, verdict, applied, (name) => pods.get(name), time);
    const done = applied.filter((a) => a.error === undefined);
    const failed = applied.filter((a) => a.error !== undefined);
    if (done.length > 0) {
      const what = done.map((a) => `${a.change.pod} ${formatMillis(a.change.fromMillis)} → ${formatMillis(a.change.toMillis)}`).join(', ');
      this.#deps.log.info({ tfjob: key, resized: what }, 'Resized CPU limits in place');
      this.#deps.event(job, 'Normal', EVENT_CPU_LIMIT_RESIZED, `CPU limit ${what} (in place): ${done[0]!.change.reason}`);
    }
    if (failed.length > 0) {
      const what = failed.map((a) => `${a.change.pod} to ${formatMillis(a.change.toMillis)}: ${a.error ?? ''}`).join('; ');
      this.#deps.log.warn({ tfjob: key }, `In-place CPU resize refused: ${what}`);
      this.#deps.event(job, 'Warning', EVENT_CPU_LIMIT_RESIZE_FAILED, `In-place CPU resize refused: ${what}`);
    }
    for (const c of newlyRefused(previous, next)) {
      const message = `The kubelet holds the CPU limit ${c.cpuLimit} of ${c.pod} as ${c.state}${c.message ? `: ${c.message}` : ''}`;
      this.#deps.event(job, 'Warning', EVENT_CPU_LIMIT_RESIZE_REFUSED, message);
    }
    if (sameStatus(previous, next)) return;
    try {
      await this.#deps.status.write(job, next);
    } catch (err) {
      this.#deps.log.warn({ tfjob: key, err }, 'Cannot write status.verticalResize');
    }
  }
}
