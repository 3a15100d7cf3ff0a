// The progress reader: one evaluation round reads, for each running job, the new part of one
// replica's log (`pods/log` with timestamps, since the last line it read), parses it with the pure
// progress code and folds it into the job's phase. Training pods need no API rights: the operator
// reads what they print. A global budget bounds requests per round (one per job at most), and the
// jobs read least recently go first, so a budget smaller than the job count still reaches them all.
// ProgressLoop (loop.ts) decides when rounds run and publishes what they find.
import {
  DEFAULT_PHASE_CONFIG,
  DEFAULT_RATE_CONFIG,
  evaluatePhase,
  foldSteps,
  measuredRate,
  parseProgressLog,
  progressView,
  type LogCarry,
  type PhaseConfig,
  type MeasuredRate,
  type PhaseState,
  type ProgressView,
  type RateConfig,
  type RateState,
} from '../../progress/index.ts';

export interface LogRequest {
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  /** RFC 3339, whole seconds (the API's `sinceTime`); absent on a pod's first read. */
  readonly sinceTime?: string;
  /** On a pod's first read only: the end of the log, not all of it. */
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
}

interface Followed {
  podUid: string;
  carry: LogCarry;
  /** The last line read: its exact timestamp, and the same in ms. */
  lastStamp?: string;
  lastMs?: number;
  lastReadAt: number;
  state?: PhaseState;
  steps?: RateState;
}

/** A rate whose last sample is older than this says nothing about the job now. */
const RATE_STALE_MS = 10 * 60_000;

const STAMP = /^(\S+) /;

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
    return progressView(this.#jobs.get(key)?.state, this.#now(), this.#opts.phase ?? DEFAULT_PHASE_CONFIG);
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
    // Reads of one round run concurrently; the client's own rate limiter spaces them further.
    await Promise.all(
      chosen.map(async (t) => {
        const outcome = await this.#readOne(t);
        if (outcome.problem !== undefined) problems.set(t.key, outcome.problem);
        if (outcome.change !== undefined) phaseChanges.set(t.key, outcome.change);
      }),
    );
    return { read: chosen.map((t) => t.key), deferred, phaseChanges, problems };
  }

  async #readOne(t: ProgressTarget): Promise<{ problem?: string; change?: readonly [string | undefined, string] }> {
    let f = this.#jobs.get(t.key);
    if (f === undefined || f.podUid !== t.podUid) {
      // A new pod (first read, or the replica was re-created): its log starts afresh.
      f = {
        podUid: t.podUid,
        carry: {},
        lastReadAt: 0,
        ...(f?.state === undefined ? {} : { state: f.state }),
        ...(f?.steps === undefined ? {} : { steps: f.steps }),
      };
      this.#jobs.set(t.key, f);
    }
    f.lastReadAt = this.#now();
    let chunk: string;
    try {
      chunk = await this.#opts.logs.read({
        namespace: t.namespace,
        pod: t.pod,
        container: t.container,
        limitBytes: this.#opts.limitBytes ?? DEFAULT_LOG_LIMIT_BYTES,
        ...(f.lastMs === undefined
          ? { tailLines: this.#opts.firstReadTailLines ?? DEFAULT_FIRST_READ_TAIL_LINES }
          : { sinceTime: new Date(Math.floor(f.lastMs / 1000) * 1000).toISOString().replace('.000Z', 'Z') }),
      });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      // Gone (404) or not started yet (400 "waiting to start"): no information, nothing wrong.
      if (code === 404 || code === 400) return {};
      return { problem: `cannot read the log of pod ${t.pod}: ${err instanceof Error ? err.message : String(err)}` };
    }
    const fresh = this.#newLines(f, chunk);
    const parsed = parseProgressLog(fresh, { timestamps: true, carry: f.carry });
    f.carry = parsed.carry;
    const before = f.state?.phase;
    const next = evaluatePhase(f.state, parsed.samples, this.#now(), this.#opts.phase ?? DEFAULT_PHASE_CONFIG);
    if (next !== undefined) f.state = next;
    f.steps = foldSteps(f.steps, parsed.samples, t.workers, this.#now(), this.#opts.rate ?? DEFAULT_RATE_CONFIG);
    const out: { problem?: string; change?: readonly [string | undefined, string] } = {};
    if (next !== undefined && next.phase !== before) out.change = [before, next.phase];
    if (parsed.firstRejection !== undefined) {
      const n = Object.values(parsed.rejected).reduce((a, b) => a + b, 0);
      out.problem = `ignored ${n} progress line(s) in the log of pod ${t.pod}, first: ${parsed.firstRejection.reason} (${parsed.firstRejection.detail})`;
    }
    return out;
  }

  /**
   * The part of `chunk` after the last line already read. `sinceTime` has whole seconds, so the
   * chunk repeats that second's lines: skip through the line with the last exact timestamp seen.
   */
  #newLines(f: Followed, chunk: string): string {
    const lines = chunk.split('\n');
    if (lines.at(-1) === '') lines.pop();
    let from = 0;
    if (f.lastStamp !== undefined) {
      const at = lines.findLastIndex((l) => STAMP.exec(l)?.[1] === f.lastStamp);
      if (at >= 0) from = at + 1;
      else {
        // That line is no longer in the log (rotated): skip what is older than it.
        const lastMs = f.lastMs ?? 0;
        while (from < lines.length && (lineStamp(lines[from]!)?.ms ?? Number.NEGATIVE_INFINITY) < lastMs) from += 1;
      }
    }
    const fresh = lines.slice(from);
    for (let i = fresh.length - 1; i >= 0; i--) {
      const last = lineStamp(fresh[i]!);
      if (last !== undefined) {
        f.lastStamp = last.stamp;
        f.lastMs = last.ms;
        break;
      }
    }
    return fresh.length === 0 ? '' : `${fresh.join('\n')}\n`;
  }
}

/** The kubelet's RFC 3339 timestamp at the start of a line (nanoseconds; Date.parse takes ms). */
function lineStamp(line: string): { stamp: string; ms: number } | undefined {
  const stamp = STAMP.exec(line)?.[1];
  if (stamp === undefined) return undefined;
  const ms = Date.parse(stamp.replace(/(\.\d{3})\d+/, '$1'));
  return Number.isFinite(ms) ? { stamp, ms } : undefined;
}
