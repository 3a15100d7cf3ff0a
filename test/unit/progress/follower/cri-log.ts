// A container log as the kubelet serves it from the runtime's CRI log file, for reader unit tests:
// records of at most 16 KiB (containerd splits longer lines into partial `P` records), `sinceTime`
// compared per record, `tailLines` counting records, a timestamp only before a record that starts a
// line (or the first one written), `limitBytes` cutting the answer — the rules of
// k8s.io/cri-client/pkg/logs ReadLogs, which kubelet and kwok share. The integration tests run the real one.
import type { LogRequest, LogSource } from '../../../../src/progress/follower/reader.ts';
import { criSplit } from '../../../support/cri-records.ts';

interface CriRecord {
  readonly ms: number;
  readonly stamp: string;
  readonly text: string;
  readonly partial: boolean;
}

export class CriLog implements LogSource {
  readonly records: CriRecord[] = [];
  readonly requests: LogRequest[] = [];
  readonly answerBytes: number[] = [];
  #seq = 0;

  /** Appends text as the container writes it: each `\n` ends a line, longer lines become P records. */
  write(text: string, atMs: number): void {
    for (const r of criSplit(text)) this.records.push({ ms: atMs, stamp: this.#stamp(atMs), ...r });
  }

  /** Appends one record of a CRI log file (`<stamp> stdout P|F <content>`), with its own timestamp. */
  append(record: string): void {
    const m = /^(\S+) (?:stdout|stderr) ([PF]) (.*)$/s.exec(record);
    if (!m) throw new Error(`not a CRI log record: ${record.slice(0, 80)}`);
    this.records.push({ ms: Date.parse(m[1]!.replace(/(\.\d{3})\d+/, '$1')), stamp: m[1]!, text: m[3]!, partial: m[2] === 'P' });
  }

  /** A distinct nanosecond stamp per record, in RFC 3339 as the kubelet prints it (no trailing zeros). */
  #stamp(ms: number): string {
    this.#seq += 1;
    const nanos = `${String(ms % 1000).padStart(3, '0')}${String(this.#seq % 1_000_000).padStart(6, '0')}`.replace(/0+$/, '');
    return `${new Date(ms - (ms % 1000)).toISOString().slice(0, 19)}${nanos === '' ? '' : `.${nanos}`}Z`;
  }

  read(r: LogRequest): Promise<string> {
    this.requests.push(r);
    const since = r.sinceTime === undefined ? Number.NEGATIVE_INFINITY : Date.parse(r.sinceTime);
    const from = r.tailLines === undefined ? 0 : Math.max(0, this.records.length - r.tailLines);
    let remain = r.limitBytes;
    let newLine = true;
    const out: string[] = [];
    for (const rec of this.records.slice(from)) {
      if (rec.ms < since) {
        newLine = !rec.partial;
        continue;
      }
      let line = `${newLine ? `${rec.stamp} ` : ''}${rec.text}${rec.partial ? '' : '\n'}`;
      const bytes = Buffer.byteLength(line);
      if (bytes > remain) line = Buffer.from(line).subarray(0, remain).toString();
      out.push(line);
      remain -= Math.min(bytes, remain);
      if (remain <= 0) break;
      newLine = !rec.partial;
    }
    const answer = out.join('');
    this.answerBytes.push(Buffer.byteLength(answer));
    return Promise.resolve(answer);
  }
}
