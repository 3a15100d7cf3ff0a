// A log chunk (as `pods/log` returns it) → progress samples. Pure, bounded and total: whatever the
// chunk holds, this returns; bad lines are counted by reason instead of thrown.

import { parseKerasSegment, type KerasCarry } from './keras.ts';
import { MAX_LINE_LENGTH, PROGRESS_PREFIX, parseProtocolPayload, type ProgressSample, type RejectReason } from './protocol.ts';

/** Default bound on samples kept per chunk; the latest are kept, the phase machine needs no more. */
export const DEFAULT_MAX_SAMPLES = 256;

export interface ParseOptions {
  /** Every line starts with the kubelet's RFC 3339 timestamp (`pods/log?timestamps=true`). */
  readonly timestamps?: boolean;
  /** Keep at most this many samples (the latest); the rest count as `excess`. */
  readonly maxSamples?: number;
  /** What the previous chunk of the same log left. */
  readonly carry?: LogCarry;
}

/** What one chunk of a log tells the parse of the next chunk of the same log. */
export interface LogCarry extends KerasCarry {
  /** The log has structured lines: Keras's own output is then ignored (the job reports on purpose,
   * and two sources with different metric names would restart the phase machine's series). */
  readonly protocol?: boolean;
}

export interface Rejection {
  readonly reason: RejectReason;
  /** 1-based line number within the chunk. */
  readonly line: number;
  readonly detail: string;
}

export interface ParseResult {
  /** In log order. */
  readonly samples: readonly ProgressSample[];
  /** How many lines (or samples) were ignored, by reason. */
  readonly rejected: Readonly<Partial<Record<RejectReason, number>>>;
  /** The first ignored line, to say why in a warning or event. */
  readonly firstRejection?: Rejection;
  /** Pass to the next chunk of the same log. */
  readonly carry: LogCarry;
}

// RFC 3339 as the kubelet writes it (nanoseconds), followed by one space.
const LOG_TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d) /;
// Keras redraws its progress bar with backspaces and \r; Keras 3 adds ANSI colours. Neither is content.
// eslint-disable-next-line no-control-regex
const ANSI_AND_CONTROL = /\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]/g;

function logTimestamp(line: string): { time?: number; rest: string } {
  const m = LOG_TIMESTAMP.exec(line);
  if (!m) return { rest: line };
  // Date.parse is only specified for milliseconds: cut the fraction to three digits.
  const ms = Date.parse(`${m[1]!}${(m[2] ?? '').slice(0, 4)}${m[3]!}`);
  return { ...(Number.isFinite(ms) ? { time: ms } : {}), rest: line.slice(m[0].length) };
}

export function parseProgressLog(chunk: string, options: ParseOptions = {}): ParseResult {
  const maxSamples = Math.max(0, Math.floor(options.maxSamples ?? DEFAULT_MAX_SAMPLES));
  const samples: ProgressSample[] = [];
  const rejected: Partial<Record<RejectReason, number>> = {};
  let firstRejection: Rejection | undefined;
  let carry: KerasCarry = options.carry ?? {};
  let protocol = options.carry?.protocol === true;
  let dropped = 0;

  const count = (reason: RejectReason, line: number, detail: string): void => {
    rejected[reason] = (rejected[reason] ?? 0) + 1;
    firstRejection ??= { reason, line, detail };
  };
  const keep = (sample: ProgressSample): void => {
    if (protocol && sample.source === 'keras') return;
    if (maxSamples === 0) {
      dropped += 1;
      return;
    }
    samples.push(sample);
    // Amortised: trim once the buffer is twice the bound, so a long chunk stays linear.
    if (samples.length >= 2 * maxSamples) dropped += samples.splice(0, samples.length - maxSamples).length;
  };

  let lineNo = 0;
  let start = 0;
  while (start < chunk.length) {
    let end = chunk.indexOf('\n', start);
    if (end < 0) end = chunk.length;
    lineNo += 1;
    const raw = chunk.slice(start, end);
    start = end + 1;
    const { time, rest } = options.timestamps === true ? logTimestamp(raw) : { time: undefined, rest: raw };

    // A line is split at \r as well: Keras redraws its progress bar with \r (and backspaces) on one
    // line, and a report printed during an epoch lands on that same line after the last redraw.
    let segStart = 0;
    // Searched once per occurrence, not once per segment: a line of 10^5 redraws stays linear.
    let at = rest.indexOf(PROGRESS_PREFIX);
    while (segStart <= rest.length) {
      let segEnd = rest.indexOf('\r', segStart);
      if (segEnd < 0) segEnd = rest.length;
      const long = segEnd - segStart > MAX_LINE_LENGTH;
      if (at >= 0 && at < segStart) at = rest.indexOf(PROGRESS_PREFIX, segStart);
      const isProtocol = at >= 0 && at < segEnd;
      if (long) {
        if (isProtocol) count('oversized', lineNo, `line of ${segEnd - segStart} characters (limit ${MAX_LINE_LENGTH})`);
      } else if (isProtocol) {
        const payload = rest.slice(at + PROGRESS_PREFIX.length, segEnd);
        // The prefix must stand alone (`TFJOB_PROGRESS {`), not begin a longer word.
        if (/^[ \t]/.test(payload)) {
          // Raw control characters cannot be part of valid JSON; a redraw's backspaces can trail it.
          const outcome = parseProtocolPayload(payload.replace(ANSI_AND_CONTROL, '').trim(), time);
          if ('sample' in outcome) {
            protocol = true;
            keep(outcome.sample);
          } else count(outcome.reason, lineNo, outcome.detail);
        }
      } else if (!protocol) {
        // Once the job reports on purpose, its Keras output is neither used nor complained about.
        const segment = rest.slice(segStart, segEnd).replace(ANSI_AND_CONTROL, '');
        const result = parseKerasSegment(segment, carry, time);
        carry = result.carry;
        if (result.outcome) {
          if ('sample' in result.outcome) keep(result.outcome.sample);
          else count(result.outcome.reason, lineNo, result.outcome.detail);
        }
      }
      segStart = segEnd + 1;
    }
  }

  if (protocol) {
    const kept = samples.filter((x) => x.source === 'protocol');
    samples.splice(0, samples.length, ...kept);
  }
  if (samples.length > maxSamples) dropped += samples.splice(0, samples.length - maxSamples).length;
  if (dropped > 0) {
    rejected.excess = dropped;
    firstRejection ??= { reason: 'excess', line: 0, detail: `more than ${maxSamples} samples in one chunk: kept the latest` };
  }
  return { samples, rejected, ...(firstRejection ? { firstRejection } : {}), carry: protocol ? { ...carry, protocol } : carry };
}
