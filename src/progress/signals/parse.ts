// A log chunk (as `pods/log` returns it) → progress samples. Pure, bounded and total: whatever the
// chunk holds, this returns; bad lines are counted by reason instead of thrown.

import { detach } from './detach.ts';
import { parseKerasSegment, type KerasCarry } from './keras.ts';
import { parseLogLine } from './log-lines.ts';
import type { TextOutcome } from './metrics-text.ts';
import {
  MAX_LINE_LENGTH,
  PROGRESS_PREFIX,
  parseProtocolPayload,
  type ProgressPosition,
  type ProgressSample,
  type RejectReason,
} from './protocol.ts';

/** Default bound on samples kept per chunk; the latest are kept, the phase machine needs no more. */
export const DEFAULT_MAX_SAMPLES = 256;

export interface ParseOptions {
  /** Every line starts with the kubelet's RFC 3339 timestamp (`pods/log?timestamps=true`). */
  readonly timestamps?: boolean;
  /** Keep at most this many samples (the latest); the rest count as `excess`. */
  readonly maxSamples?: number;
  /** What the previous chunk of the same log left. */
  readonly carry?: LogCarry;
  /**
   * The chunk may end inside a line (a log read while a line is being written, or cut by a byte
   * limit): an unterminated last line is kept in `carry.open` instead of being read as complete.
   */
  readonly endsOpen?: boolean;
}

/** A line whose end has not been read yet: only what the next chunk needs of it. */
export interface OpenLine {
  /** The line's log timestamp (ms), for its samples. */
  readonly time?: number;
  /** Characters of the line (after its timestamp) read so far, to skip them when it is read again; -1: unknown. */
  readonly consumed: number;
  /** Its unfinished segment (after its last \r), at most MAX_SEGMENT characters. */
  readonly segment: string;
  /** The segment outgrew MAX_SEGMENT: it is not examined (it held the prefix: `prefixed`). */
  readonly overlong?: boolean;
  readonly prefixed?: boolean;
  /** The start of the segment was not read (the reader skipped part of the line): it is dropped. */
  readonly broken?: boolean;
  /** Output of another MPI rank (`[1,2]<stdout>:`): ignored. */
  readonly ignored?: boolean;
}

/** What one chunk of a log tells the parse of the next chunk of the same log. */
export interface LogCarry extends KerasCarry {
  /** The log has structured lines: library output is then ignored (the job reports on purpose, and
   * two sources with different metric names would restart the phase machine's series). */
  readonly protocol?: boolean;
  readonly open?: OpenLine;
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
  /** The latest position (step, epoch, the plan) any line gave, with or without a value. */
  readonly position?: ProgressPosition;
  /** A NaN or infinite loss or metric after the chunk's last sample: why, and when. */
  readonly diverged?: { readonly detail: string; readonly time?: number };
  /** Segments longer than the limit, or whose start was not read: skipped without a look. */
  readonly unread: number;
  /** Pass to the next chunk of the same log. */
  readonly carry: LogCarry;
}

/** Longest unfinished segment kept between chunks: a longer one is not examined anyway. */
export const MAX_SEGMENT = MAX_LINE_LENGTH;

// RFC 3339 as the kubelet writes it (nanoseconds), followed by one space.
const LOG_TIMESTAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d) /;
// Keras redraws its progress bar with backspaces and \r; Keras 3 adds ANSI colours; a terminal title
// (OSC `ESC ] … BEL`) may precede a line. None is content.
// eslint-disable-next-line no-control-regex
const ANSI_AND_CONTROL = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]/g;
// mpirun --tag-output (Horovod): `[jobid,rank]<stdout>:` before every line.
const MPI_TAG = /^\[\d{1,9},(\d{1,9})\]<std(?:out|err)>:/;

function logTimestamp(line: string): { time?: number; rest: string } {
  const m = LOG_TIMESTAMP.exec(line);
  if (!m) return { rest: line };
  // Date.parse is only specified for milliseconds: cut the fraction to three digits.
  const ms = Date.parse(`${m[1]!}${(m[2] ?? '').slice(0, 4)}${m[3]!}`);
  return { ...(Number.isFinite(ms) ? { time: ms } : {}), rest: line.slice(m[0].length) };
}

/** Removes colours, redraw characters and terminal titles from a segment. */
export function stripControl(text: string): string {
  return text.replace(ANSI_AND_CONTROL, '');
}

export function parseProgressLog(chunk: string, options: ParseOptions = {}): ParseResult {
  const p = new ChunkParse(options);
  p.run(chunk);
  return p.result();
}

/** The parse of one chunk: lines → segments → samples, with what crosses into the next chunk. */
class ChunkParse {
  readonly #maxSamples: number;
  readonly #timestamps: boolean;
  readonly #samples: ProgressSample[] = [];
  readonly #rejected: Partial<Record<RejectReason, number>> = {};
  #firstRejection: Rejection | undefined;
  #carry: KerasCarry;
  #protocol: boolean;
  #open: OpenLine | undefined;
  #dropped = 0;
  #unread = 0;
  #lineNo = 0;
  #position: ProgressPosition | undefined;
  #diverged: { detail: string; time?: number } | undefined;
  readonly #endsOpen: boolean;

  constructor(options: ParseOptions) {
    this.#maxSamples = Math.max(0, Math.floor(options.maxSamples ?? DEFAULT_MAX_SAMPLES));
    this.#timestamps = options.timestamps === true;
    const { protocol, open, ...keras } = options.carry ?? {};
    this.#carry = keras;
    this.#protocol = protocol === true;
    this.#open = open;
    this.#endsOpen = options.endsOpen === true;
  }

  run(chunk: string): void {
    let start = 0;
    if (this.#open !== undefined && chunk.length > 0) {
      // The chunk starts with the rest of the line the previous one ended in.
      start = this.#feedUntilNewline(chunk, 0);
    }
    while (start < chunk.length) {
      this.#lineNo += 1;
      let end = chunk.indexOf('\n', start);
      if (end < 0) end = chunk.length;
      // The timestamp and MPI tag are looked for in the line's first characters only.
      const head = chunk.slice(start, Math.min(end, start + 80));
      const { time, rest } = this.#timestamps ? logTimestamp(head) : { time: undefined, rest: head };
      const tag = MPI_TAG.exec(rest);
      const skip = head.length - rest.length + (tag?.[0].length ?? 0);
      const consumed = tag?.[0].length ?? 0;
      this.#open = { ...(time !== undefined ? { time } : {}), consumed, segment: '', ...(tag && tag[1] !== '0' ? { ignored: true } : {}) };
      start = this.#feedUntilNewline(chunk, start + skip);
    }
    if (this.#open !== undefined && !this.#endsOpen) this.#finish(true);
  }

  /** Feeds the open line from `from` to the next newline (or the chunk's end); returns where the next line starts. */
  #feedUntilNewline(chunk: string, from: number): number {
    let end = chunk.indexOf('\n', from);
    const ended = end >= 0;
    if (!ended) end = chunk.length;
    const open = this.#open!;
    // -1: the reader no longer knows where in the line it is.
    this.#open = { ...open, consumed: open.consumed < 0 ? -1 : open.consumed + (end - from) };
    if (open.ignored !== true) {
      // A line is split at \r as well: Keras redraws its progress bar with \r (and backspaces) on one
      // line, and a report printed during an epoch lands on that same line after the last redraw.
      // A terminal's \r\n ends the line, it is no redraw.
      const stop = ended && end > from && chunk[end - 1] === '\r' ? end - 1 : end;
      let s = from;
      for (let r = chunk.indexOf('\r', s); r >= 0 && r < stop; r = chunk.indexOf('\r', s)) {
        this.#append(chunk, s, r);
        this.#finish(false);
        s = r + 1;
      }
      this.#append(chunk, s, stop);
    }
    if (ended) this.#finish(true);
    return end + 1;
  }

  /** Adds chunk[from, to) to the open segment, keeping it bounded. */
  #append(chunk: string, from: number, to: number): void {
    const open = this.#open!;
    if (open.overlong === true) {
      if (!open.prefixed && chunk.slice(from, to).includes(PROGRESS_PREFIX)) this.#open = { ...open, prefixed: true };
      return;
    }
    const segment = open.segment + chunk.slice(from, to);
    this.#open =
      segment.length > MAX_SEGMENT
        ? { ...open, segment: '', overlong: true, prefixed: segment.includes(PROGRESS_PREFIX) }
        : { ...open, segment };
  }

  /** The open segment is complete: at a \r (a redraw follows) or at the line's end (`final`). */
  #finish(final: boolean): void {
    const open = this.#open!;
    const { segment, overlong, prefixed, broken, time } = open;
    this.#open = final ? undefined : { ...open, segment: '', overlong: false, prefixed: false, broken: false };
    if (open.ignored === true) return;
    if (broken === true || overlong === true) {
      this.#unread += 1;
      if (prefixed === true) this.#count('oversized', `a segment over ${MAX_LINE_LENGTH} characters`);
      return;
    }
    const at = segment.indexOf(PROGRESS_PREFIX);
    if (at >= 0) {
      const payload = segment.slice(at + PROGRESS_PREFIX.length);
      // The prefix must stand alone (`TFJOB_PROGRESS {`), not begin a longer word.
      if (!/^[ \t]/.test(payload)) return;
      // Raw control characters cannot be part of valid JSON; a redraw's backspaces can trail it.
      const outcome = parseProtocolPayload(stripControl(payload).trim(), time);
      if ('sample' in outcome) {
        this.#protocol = true;
        this.#keep(outcome.sample);
      } else {
        this.#count(outcome.reason, outcome.detail);
        if (outcome.reason === 'non-finite') this.#diverge(`progress line: ${outcome.detail}`, time);
      }
      return;
    }
    // Earlier segments are redraws of a progress bar; once the job reports on purpose, library output
    // is neither used nor complained about.
    if (!final || this.#protocol) return;
    this.#library(stripControl(segment), time);
  }

  #library(text: string, time: number | undefined): void {
    const keras = parseKerasSegment(text, this.#carry, time);
    let outcome: TextOutcome | undefined = keras.outcome;
    this.#carry = keras.carry;
    if (!keras.recognized) {
      const other = parseLogLine(text, this.#carry, time);
      this.#carry = { ...this.#carry, ...other.carry };
      outcome = other.outcome;
    }
    if (outcome === undefined) return;
    if ('sample' in outcome) this.#keep(outcome.sample);
    else if ('reason' in outcome) this.#count(outcome.reason, outcome.detail);
    else {
      this.#move(outcome.position);
      if ('diverged' in outcome) this.#diverge(outcome.diverged, outcome.position.time);
    }
  }

  #count(reason: RejectReason, detail: string): void {
    this.#rejected[reason] = (this.#rejected[reason] ?? 0) + 1;
    this.#firstRejection ??= { reason, line: this.#lineNo, detail };
  }

  #diverge(detail: string, time: number | undefined): void {
    this.#diverged = { detail, ...(time !== undefined ? { time } : {}) };
  }

  #move(position: ProgressPosition): void {
    this.#position = { ...this.#position, ...position };
  }

  #keep(sample: ProgressSample): void {
    if (this.#protocol && sample.source !== 'protocol') return;
    this.#diverged = undefined;
    const { step, epoch, epochs, totalSteps, time } = sample;
    this.#move({
      ...(step !== undefined ? { step } : {}),
      ...(epoch !== undefined ? { epoch } : {}),
      ...(epochs !== undefined ? { epochs } : {}),
      ...(totalSteps !== undefined ? { totalSteps } : {}),
      ...(time !== undefined ? { time } : {}),
    });
    if (this.#maxSamples === 0) {
      this.#dropped += 1;
      return;
    }
    this.#samples.push(sample);
    // Amortised: trim once the buffer is twice the bound, so a long chunk stays linear.
    if (this.#samples.length >= 2 * this.#maxSamples)
      this.#dropped += this.#samples.splice(0, this.#samples.length - this.#maxSamples).length;
  }

  result(): ParseResult {
    const samples = this.#protocol ? this.#samples.filter((x) => x.source === 'protocol') : this.#samples;
    if (samples.length > this.#maxSamples) this.#dropped += samples.splice(0, samples.length - this.#maxSamples).length;
    if (this.#dropped > 0) {
      this.#rejected.excess = this.#dropped;
      this.#firstRejection ??= { reason: 'excess', line: 0, detail: `more than ${this.#maxSamples} samples in one chunk: kept the latest` };
    }
    const carry: LogCarry = {
      ...this.#carry,
      ...(this.#protocol ? { protocol: true } : {}),
      ...(this.#open !== undefined ? { open: { ...this.#open, segment: detach(this.#open.segment) } } : {}),
    };
    return {
      samples,
      rejected: this.#rejected,
      ...(this.#firstRejection ? { firstRejection: this.#firstRejection } : {}),
      ...(this.#position ? { position: this.#position } : {}),
      ...(this.#diverged ? { diverged: this.#diverged } : {}),
      unread: this.#unread,
      carry,
    };
  }
}
