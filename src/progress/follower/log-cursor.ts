// Where the progress reader is in a container log, and what the next `pods/log` read asks for. Pure.
//
// The API offers no byte offset: a read says `sinceTime` (whole seconds) or `tailLines` (the last N
// records of the runtime's log file), and `limitBytes`. With timestamps, the kubelet prefixes each
// line's first record with its timestamp; the records of a long line (containerd and Docker split
// lines at 16 KiB) are written without one. So the cursor identifies lines by their exact timestamp
// and remembers how much of the last, unfinished line it has read. A line longer than one read's
// byte limit (a progress bar redrawn with \r for a whole epoch) is followed through its newest
// records only (`tailLines`): the parser needs only a line's last redraw.
import { detach, type LogCarry } from '../signals/index.ts';

/** Bytes per record the tail read assumes: containerd's and Docker's maximum log line size. */
export const RECORD_BYTES = 16 * 1024;

export interface CursorState {
  /** The newest line start read: its timestamp exactly as the kubelet wrote it. */
  readonly stamp?: string;
  /** How many lines with exactly that timestamp were read (lines written at once share one). */
  readonly sameStamp?: number;
  /** The last read ended inside this line (its start's timestamp); its parse state is `carry.open`. */
  readonly openStamp?: string;
  /** Lines before it with the same timestamp (lines written at once can share one). */
  readonly openNth?: number;
  /** The next read asks for the newest records only (a line is longer than a read, or the log outran it). */
  readonly tailLines?: number;
}

export interface ReadRequest {
  readonly sinceTime?: string;
  readonly tailLines?: number;
}

export function nextRequest(state: CursorState, firstReadTailLines: number): ReadRequest {
  if (state.stamp === undefined) return { tailLines: state.tailLines ?? firstReadTailLines };
  if (state.tailLines !== undefined) return { tailLines: state.tailLines };
  return { sinceTime: wholeSecond(state.openStamp ?? state.stamp) };
}

export interface Advance {
  /** The part of the answer not read before, for the parser (with `endsOpen`). */
  readonly text: string;
  /** The parser's carry for `text`: the open line continued exactly, broken, or dropped. */
  readonly carry: LogCarry;
  readonly state: CursorState;
  /** The answer filled the byte limit: the log holds more than one read takes. */
  readonly truncated: boolean;
}

interface Line {
  readonly start: number;
  /** Where the content starts (after the timestamp and its space). */
  readonly body: number;
  readonly stamp: string | undefined;
}

const STAMP = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)) /;

/**
 * What of `answer` (the body of a read made with `request` from `state`) is new, and the state for
 * the next read. `carry` is the parser's carry after the previous read.
 */
export function advance(state: CursorState, carry: LogCarry, request: ReadRequest, answer: string, limitBytes: number): Advance {
  const truncated = Buffer.byteLength(answer, 'utf8') >= limitBytes;
  const lines = splitLines(answer);
  const { open: prevOpen, ...rest } = carry;
  const { open, from, firstBody } = resumePoint(lines, answer, state, request.tailLines !== undefined, prevOpen);
  const handed = lines.slice(from);
  const { stamp, sameStamp } = latestStamp(handed, open !== undefined, state);
  const text = from < lines.length ? answer.slice(firstBody) : '';
  const endsInside = answer.length > 0 && !answer.endsWith('\n');
  const last = handed.at(-1);
  // The open line after this read: the last one handed, unless the answer ended with a newline.
  const continued = handed.length === 1 && open !== undefined;
  const openStamp = !endsInside || last === undefined ? undefined : continued ? state.openStamp : last.stamp;
  const openNth = continued
    ? (state.openNth ?? 0)
    : lines.filter((l) => l !== last && l.stamp !== undefined && l.stamp === last?.stamp).length;
  const tailLines = nextTailLines(state, request, truncated, endsInside && continued, limitBytes);
  return {
    text,
    carry: { ...rest, ...(open !== undefined && from < lines.length ? { open } : {}) },
    state: {
      ...(stamp !== undefined ? { stamp, sameStamp } : {}),
      ...(openStamp !== undefined ? { openStamp, ...(openNth > 0 ? { openNth } : {}) } : {}),
      ...(tailLines !== undefined ? { tailLines } : {}),
    },
    truncated,
  };
}

type OpenLine = LogCarry['open'];

/** Where the new part of the answer starts (line index, character) and the open line as it goes on. */
function resumePoint(
  lines: readonly Line[],
  answer: string,
  state: CursorState,
  tail: boolean,
  open: OpenLine,
): { open: OpenLine; from: number; firstBody: number } {
  let skipSame = state.sameStamp ?? 0;
  let nth = state.openNth ?? 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (open !== undefined && line.stamp !== undefined && line.stamp === state.openStamp && nth-- === 0) {
      // The line the last read ended in, again from its start: skip what was read of it.
      if (open.consumed >= 0) return { open, from: i, firstBody: Math.min(line.body + open.consumed, lineEnd(answer, line)) };
      return { open: { ...open, segment: '', broken: true, overlong: false, prefixed: false }, from: i, firstBody: line.body };
    }
    if (i === 0 && open !== undefined && (line.stamp === undefined || tail)) {
      // The rest of that line, but from an unknown point (a tail read's first record carries a
      // timestamp even inside a line): the segment in progress is lost, the next ones are whole.
      return {
        open: { ...open, consumed: -1, segment: '', broken: true, overlong: false, prefixed: false },
        from: 0,
        firstBody: line.body,
      };
    }
    if (line.stamp === undefined) continue; // the end of a line read before
    const order = state.stamp === undefined ? 1 : compareStamps(line.stamp, state.stamp);
    if (order < 0 || (order === 0 && skipSame-- > 0)) continue;
    // A newer line: the one the last read ended in is not in this answer (the log was rotated).
    return { open: undefined, from: i, firstBody: line.start };
  }
  return { open, from: lines.length, firstBody: 0 };
}

/** The newest timestamp read so far and how many lines carried it. */
function latestStamp(handed: readonly Line[], openAgain: boolean, state: CursorState): { stamp: string | undefined; sameStamp: number } {
  let stamp = state.stamp;
  let sameStamp = state.sameStamp ?? 0;
  for (const [j, line] of handed.entries()) {
    // A tail read's first stamp may be a record's inside a line: still nothing older is unread.
    if (line.stamp === undefined) continue;
    const again = j === 0 && openAgain; // the open line, counted when it was first read
    if (stamp !== undefined && line.stamp === stamp) sameStamp += again ? 0 : 1;
    else if (stamp === undefined || compareStamps(line.stamp, stamp) > 0) {
      stamp = line.stamp;
      sameStamp = 1;
    }
  }
  return { stamp, sameStamp };
}

/** How many records the next read asks for (a tail read), or undefined for a `sinceTime` read. */
function nextTailLines(
  state: CursorState,
  request: ReadRequest,
  truncated: boolean,
  stillSameLine: boolean,
  limitBytes: number,
): number | undefined {
  if (truncated)
    return request.tailLines !== undefined && state.stamp !== undefined
      ? // Records larger than assumed: fewer of them.
        Math.max(1, Math.floor(request.tailLines / 2))
      : Math.max(1, Math.floor(limitBytes / RECORD_BYTES) - 1);
  return stillSameLine && state.tailLines !== undefined ? state.tailLines : undefined;
}

function splitLines(answer: string): Line[] {
  const lines: Line[] = [];
  for (let start = 0; start < answer.length;) {
    const nl = answer.indexOf('\n', start);
    // Only the line's first characters can hold its timestamp.
    // A copy: a substring would keep the whole answer alive for as long as the cursor keeps the stamp.
    const found = STAMP.exec(answer.slice(start, start + 40))?.[1];
    const stamp = found === undefined ? undefined : detach(found);
    lines.push({ start, body: stamp === undefined ? start : start + stamp.length + 1, stamp });
    start = nl < 0 ? answer.length : nl + 1;
  }
  return lines;
}

function lineEnd(answer: string, line: Line): number {
  const nl = answer.indexOf('\n', line.start);
  return nl < 0 ? answer.length : nl;
}

/** RFC 3339 with up to nanoseconds (the kubelet drops trailing zeros): negative, 0 or positive. */
export function compareStamps(a: string, b: string): number {
  const [sa, na] = splitStamp(a);
  const [sb, nb] = splitStamp(b);
  return sa !== sb ? sa - sb : na - nb;
}

function splitStamp(stamp: string): [number, number] {
  const m = /^(.{19})(?:\.(\d{1,9}))?(.*)$/.exec(stamp);
  if (!m) return [Number.NaN, 0];
  return [Date.parse(`${m[1]!}${m[3]!}`), Number((m[2] ?? '').padEnd(9, '0'))];
}

/** `sinceTime` is whole seconds: the second of the stamp (its lines are then read again and skipped). */
export function wholeSecond(stamp: string): string {
  const [seconds] = splitStamp(stamp);
  return new Date(seconds).toISOString().replace('.000Z', 'Z');
}
