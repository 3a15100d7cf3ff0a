// The progress reader: one evaluation round reads, for each running job, the new part of one
// replica's log (`pods/log` with timestamps, from where it stopped: log-cursor.ts), parses it with the
// pure progress code and folds it into the job's phase; a NaN or infinite value makes it Diverged. Training pods need no API rights: the operator
// reads what they print. A global budget bounds requests per round (one per job at most), and the
// jobs read least recently go first, so a budget smaller than the job count still reaches them all.
// ProgressLoop (loop.ts) decides when rounds run and publishes what they find.
import { httpStatus } from '../../runtime/http-status.ts';
import { advance, nextRequest, type CursorState } from './log-cursor.ts';
import {
  DEFAULT_PHASE_CONFIG,
  DEFAULT_RATE_CONFIG,
  evaluatePhase,
  foldEvaluationSeries,
  foldSteps,
  measuredRate,
  parseProgressLog,
  type ParseResult,
  progressView,
  type LogCarry,
  type PhaseConfig,
  type MeasuredRate,
  type PhaseState,
  type ProgressPosition,
  type ProgressView,
  type EvaluationSeries,
  type RateConfig,
  type RateState,
} from '../signals/index.ts';

export interface LogRequest {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  /** RFC 3339, whole seconds (the API's `sinceTime`); absent on a pod's first read. */
  readonly sinceTime?: string;
  /** On a pod's first read, and while a line is longer than one read: the end of the log only. */
  readonly tailLines?: number;
  readonly limitBytes: number;
}

/** `pods/log` with `timestamps=true`; errors carry the HTTP status as `code` (404: pod gone). */
export interface LogSource {
  read(request: LogRequest): Promise<string>;
}

/** One job whose progress is followed: the pod of the replica that reports (see progressSource). */
export interface ProgressTarget {
  /** namespace/name of the TFJob. */
  readonly key: string;
  readonly namespace: string;
  readonly pod: string;
  /** A new UID is a new container log: it is read from its start (tail), the phase carries on. */
  readonly podUid: string;
  readonly container: string;
  /** Running workers of the job now: a step rate belongs to one worker count (progress/rate.ts). */
  readonly workers: number;
}

export interface ProgressReaderOptions {
  readonly logs: LogSource;
  /** Wall clock, ms since the epoch (log timestamps are wall-clock times). */
  readonly now?: () => number;
  /** Reads per round at most (the global rate limit times the round's period). */
  readonly maxReadsPerRound: number;
  readonly limitBytes?: number;
  readonly firstReadTailLines?: number;
  readonly phase?: PhaseConfig;
  /** How step rates are measured (--qoe-rate-window). */
  readonly rate?: RateConfig;
}

export const DEFAULT_LOG_LIMIT_BYTES = 256 * 1024;
export const DEFAULT_FIRST_READ_TAIL_LINES = 2_000;

/** What a round did, for metrics, logs and events. */
export interface RoundReport {
  readonly read: readonly string[];
  /** Jobs not read this round: the budget ran out (they go first next round). */
  readonly deferred: readonly string[];
  /** Jobs whose phase changed: key → [from, to] (from undefined: first phase). */
  readonly phaseChanges: ReadonlyMap<string, readonly [string | undefined, string]>;
  /** Jobs whose log could not be read or held bad lines: key → why (for a rate-limited warning). */
  readonly problems: ReadonlyMap<string, string>;
  /** Jobs whose log showed a NaN or infinite loss or metric this round: key → what. */
  readonly diverged?: ReadonlyMap<string, string>;
  /** Lines or segments this round skipped, by reason (bad progress lines, over-long or cut segments). */
  readonly skipped?: ReadonlyMap<string, number>;
}

interface Followed {
  podUid: string;
  carry: LogCarry;
  cursor: CursorState;
  lastReadAt: number;
  /** The latest NaN/Inf seen after the last finite sample: the job diverged. */
  diverged?: { readonly detail: string; readonly at: number };
  /** The latest step and epoch any line gave (also lines without the tracked metric). */
  position?: ProgressPosition;
  state?: PhaseState;
  steps?: RateState;
  /** The job's evaluation function over time (FlowCon's growth efficiency). */
  series?: EvaluationSeries;
}

/** A rate whose last sample is older than this says nothing about the job now. */
const RATE_STALE_MS = 10 * 60_000;

export class ProgressReader {
  readonly #opts: ProgressReaderOptions;
  readonly #now: () => number;
  readonly #jobs = new Map<string, Followed>();

  constructor(opts: ProgressReaderOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? (() => Date.now());
  }

  /** The job's progress for the scheduler, or undefined: no signal, or a stale one. */
  view(key: string): ProgressView | undefined {
    const f = this.#jobs.get(key);
    const view = progressView(f?.state, this.#now(), this.#opts.phase ?? DEFAULT_PHASE_CONFIG);
    if (f?.diverged !== undefined) {
      // A diverged job stays so until a finite value comes (a restart from a checkpoint); its last
      // finite metric is kept for the status, so the phase is the news.
      const { detail, at } = f.diverged;
      return {
        ...(view ?? { metric: Number.NaN, name: 'loss', higherIsBetter: false }),
        phase: 'Diverged',
        since: at,
        lastUpdate: at,
        detail,
      };
    }
    if (view === undefined || f?.position === undefined) return view;
    // Epoch ends without the tracked metric (validation_freq > 1) still say how far the job is.
    const { step, epoch, epochs, totalSteps } = f.position;
    const later = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : Math.max(a, b ?? a));
    const s = later(step, view.step);
    const e = later(epoch, view.epoch);
    return {
      ...view,
      ...(s !== undefined ? { step: s } : {}),
      ...(e !== undefined ? { epoch: e } : {}),
      ...(epochs !== undefined ? { epochs } : {}),
      ...(totalSteps !== undefined ? { totalSteps } : {}),
    };
  }

  /** When the job's last progress sample was taken (ms), however old: a stale signal still has one. */
  lastSampleAt(key: string): number | undefined {
    return this.#jobs.get(key)?.state?.lastSampleAt;
  }

  /**
   * The values of the job's tracked metric with their times (FlowCon's E(t)); undefined without a
   * signal, a stale one, or while the job is Diverged (a NaN says nothing about growth).
   */
  series(key: string): EvaluationSeries | undefined {
    const view = this.view(key);
    if (view === undefined || view.phase === 'Diverged') return undefined;
    return this.#jobs.get(key)?.series;
  }

  /**
   * The last rate measured with the present workers, however old: for a plan's ETA, which is shown
   * only while the job's progress is (the view's staleness follows the job's own reporting gaps).
   */
  pace(key: string): MeasuredRate | undefined {
    return measuredRate(this.#jobs.get(key)?.steps, this.#opts.rate ?? DEFAULT_RATE_CONFIG);
  }

  /** The job's measured step rate with its present workers, or undefined: not measured yet, or stale. */
  rate(key: string): MeasuredRate | undefined {
    const config = this.#opts.rate ?? DEFAULT_RATE_CONFIG;
    const r = measuredRate(this.#jobs.get(key)?.steps, config);
    return r !== undefined && this.#now() - r.to <= Math.max(RATE_STALE_MS, 2 * config.windowMs) ? r : undefined;
  }

  /** Reads one round. Jobs absent from `targets` are forgotten (finished, deleted, not running). */
  async round(targets: readonly ProgressTarget[]): Promise<RoundReport> {
    const wanted = new Set(targets.map((t) => t.key));
    for (const key of [...this.#jobs.keys()]) if (!wanted.has(key)) this.#jobs.delete(key);
    const order = [...targets].sort((a, b) => (this.#jobs.get(a.key)?.lastReadAt ?? -1) - (this.#jobs.get(b.key)?.lastReadAt ?? -1));
    const budget = Math.max(0, Math.floor(this.#opts.maxReadsPerRound));
    const chosen = order.slice(0, budget);
    const deferred = order.slice(budget).map((t) => t.key);
    const phaseChanges = new Map<string, readonly [string | undefined, string]>();
    const problems = new Map<string, string>();
    const diverged = new Map<string, string>();
    const skipped = new Map<string, number>();
    // Reads of one round run concurrently; the client's own rate limiter spaces them further.
    await Promise.all(
      chosen.map(async (t) => {
        const outcome = await this.#readOne(t);
        if (outcome.problem !== undefined) problems.set(t.key, outcome.problem);
        if (outcome.change !== undefined) phaseChanges.set(t.key, outcome.change);
        if (outcome.diverged !== undefined) diverged.set(t.key, outcome.diverged);
        for (const [reason, n] of Object.entries(outcome.skipped ?? {})) skipped.set(reason, (skipped.get(reason) ?? 0) + n);
      }),
    );
    return { read: chosen.map((t) => t.key), deferred, phaseChanges, problems, diverged, skipped };
  }

  async #readOne(t: ProgressTarget): Promise<ReadOutcome> {
    let f = this.#jobs.get(t.key);
    if (f === undefined || f.podUid !== t.podUid) {
      // A new pod (first read, or the replica was re-created): its log starts afresh.
      f = {
        podUid: t.podUid,
        carry: {},
        cursor: {},
        lastReadAt: 0,
        ...(f?.state === undefined ? {} : { state: f.state }),
        ...(f?.steps === undefined ? {} : { steps: f.steps }),
        ...(f?.series === undefined ? {} : { series: f.series }),
        ...(f?.diverged === undefined ? {} : { diverged: f.diverged }),
      };
      this.#jobs.set(t.key, f);
    }
    f.lastReadAt = this.#now();
    const limitBytes = this.#opts.limitBytes ?? DEFAULT_LOG_LIMIT_BYTES;
    const request = nextRequest(f.cursor, this.#opts.firstReadTailLines ?? DEFAULT_FIRST_READ_TAIL_LINES);
    let answer: string;
    try {
      answer = await this.#opts.logs.read({ namespace: t.namespace, pod: t.pod, container: t.container, limitBytes, ...request });
    } catch (err) {
      const code = httpStatus(err);
      // Gone (404) or not started yet (400 "waiting to start"): no information, nothing wrong.
      if (code === 404 || code === 400) return {};
      return { problem: `cannot read the log of pod ${t.pod}: ${err instanceof Error ? err.message : String(err)}` };
    }
    const next = advance(f.cursor, f.carry, request, answer, limitBytes);
    f.cursor = next.state;
    const parsed = parseProgressLog(next.text, { timestamps: true, carry: next.carry, endsOpen: true });
    f.carry = parsed.carry;
    return this.#fold(f, t, parsed);
  }

  #fold(f: Followed, t: ProgressTarget, parsed: ParseResult): ReadOutcome {
    const before = f.diverged !== undefined ? 'Diverged' : f.state?.phase;
    const next = evaluatePhase(f.state, parsed.samples, this.#now(), this.#opts.phase ?? DEFAULT_PHASE_CONFIG);
    if (next !== undefined) f.state = next;
    f.series = foldEvaluationSeries(f.series, parsed.samples, this.#now());
    f.steps = foldSteps(f.steps, parsed.samples, t.workers, this.#now(), this.#opts.rate ?? DEFAULT_RATE_CONFIG);
    if (parsed.position !== undefined) f.position = { ...f.position, ...parsed.position };
    const out: { -readonly [K in keyof ReadOutcome]: ReadOutcome[K] } = {};
    if (parsed.diverged !== undefined) {
      if (f.diverged === undefined) out.diverged = parsed.diverged.detail;
      f.diverged = { detail: parsed.diverged.detail, at: f.diverged?.at ?? parsed.diverged.time ?? this.#now() };
    } else if (parsed.samples.length > 0) delete f.diverged;
    const after = f.diverged !== undefined ? 'Diverged' : f.state?.phase;
    if (after !== undefined && after !== before) out.change = [before, after];
    if (parsed.firstRejection !== undefined) {
      const n = Object.values(parsed.rejected).reduce((a, b) => a + b, 0);
      out.problem = `ignored ${n} progress line(s) in the log of pod ${t.pod}, first: ${parsed.firstRejection.reason} (${parsed.firstRejection.detail})`;
    }
    const skipped: Record<string, number> = { ...parsed.rejected };
    if (parsed.unread > 0) skipped.unread = parsed.unread;
    if (Object.keys(skipped).length > 0) out.skipped = skipped;
    return out;
  }
}

interface ReadOutcome {
  readonly problem?: string;
  readonly change?: readonly [string | undefined, string];
  readonly diverged?: string;
  readonly skipped?: Readonly<Record<string, number>>;
}
