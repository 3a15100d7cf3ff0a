import { describe, expect, it } from 'vitest';
import { ProgressReader, type LogRequest, type LogSource, type ProgressTarget } from '../../../../src/progress/follower/reader.ts';
import { PROGRESS_PREFIX } from '../../../../src/progress/signals/index.ts';

const T0 = Date.UTC(2026, 10, 25, 0, 0, 0);

/** A pod log the fake API serves as `pods/log?timestamps=true` does: whole-second sinceTime, tailLines. */
class FakeLogs implements LogSource {
  readonly logs = new Map<string, string[]>();
  readonly requests: LogRequest[] = [];
  failWith: number | undefined;

  append(pod: string, atMs: number, text: string, nanos = '000000000'): void {
    const stamp = `${new Date(atMs).toISOString().slice(0, 19)}.${nanos}Z`;
    this.logs.set(pod, [...(this.logs.get(pod) ?? []), `${stamp} ${text}`]);
  }

  async read(r: LogRequest): Promise<string> {
    this.requests.push(r);
    if (this.failWith !== undefined) throw Object.assign(new Error(`HTTP ${this.failWith}`), { code: this.failWith });
    let lines = this.logs.get(r.pod) ?? [];
    if (r.sinceTime !== undefined) {
      const since = Date.parse(r.sinceTime);
      lines = lines.filter((l) => Date.parse(l.slice(0, 23) + 'Z') >= since);
    }
    if (r.tailLines !== undefined) lines = lines.slice(-r.tailLines);
    return Promise.resolve(lines.length === 0 ? '' : `${lines.join('\n')}\n`);
  }
}

const report = (step: number, accuracy: number) =>
  `${PROGRESS_PREFIX} ${JSON.stringify({ step, metric: accuracy, name: 'accuracy', higherIsBetter: true })}`;

const target = (key: string, podUid = `${key}-uid`): ProgressTarget => ({
  key,
  namespace: 'ns',
  pod: `${key}-worker-0`,
  podUid,
  container: 'tensorflow',
  workers: 2,
});

describe('ProgressReader', () => {
  it('reads each line once although sinceTime repeats the last second, and follows the phase', async () => {
    let now = T0;
    const logs = new FakeLogs();
    const reader = new ProgressReader({ logs, now: () => now, maxReadsPerRound: 10 });
    const pod = 'a-worker-0';
    logs.append(pod, T0 + 1_000, report(100, 0.5), '100000000');
    logs.append(pod, T0 + 1_000, 'Epoch 1/10 (plain output, ignored)', '200000000');
    now = T0 + 2_000;
    await reader.round([target('a')]);
    expect(logs.requests[0]).toMatchObject({ pod, container: 'tensorflow', tailLines: 2000 });
    expect(reader.view('a')).toMatchObject({ phase: 'Progressing', metric: 0.5, step: 100 });

    // Same second as the last line read: only the new line is new.
    logs.append(pod, T0 + 1_000, report(200, 0.6), '900000000');
    await reader.round([target('a')]);
    expect(logs.requests[1]).toMatchObject({ sinceTime: new Date(T0 + 1_000).toISOString().replace('.000Z', 'Z') });
    expect(logs.requests[1]?.tailLines).toBeUndefined();
    expect(reader.view('a')?.step).toBe(200);

    // Nothing new: the state stays (silence is not convergence).
    const before = reader.view('a');
    await reader.round([target('a')]);
    expect(reader.view('a')).toEqual(before);
  });

  it('moves a flattening curve to Slowing then Converged and reports each change once', async () => {
    let now = T0;
    const logs = new FakeLogs();
    const reader = new ProgressReader({ logs, now: () => now, maxReadsPerRound: 1 });
    const changes: string[] = [];
    // Fast learning, then a long plateau (the EMA and the growth window take rounds to see it).
    const curve = [0.1, 0.4, 0.6, 0.7, 0.75, 0.76, ...Array.from({ length: 30 }, () => 0.7622)];
    for (const [i, acc] of curve.entries()) {
      now = T0 + (i + 1) * 60_000;
      logs.append('a-worker-0', now - 1_000, report((i + 1) * 1000, acc));
      const r = await reader.round([target('a')]);
      for (const [, [from, to]] of r.phaseChanges) changes.push(`${from ?? '-'}→${to}`);
    }
    expect(changes).toEqual(['-→Progressing', 'Progressing→Slowing', 'Slowing→Converged']);
    expect(reader.view('a')?.phase).toBe('Converged');
  });

  it('spends at most the budget per round, least recently read first, so every job is reached', async () => {
    const now = T0;
    const logs = new FakeLogs();
    const reader = new ProgressReader({ logs, now: () => now, maxReadsPerRound: 2 });
    const jobs = ['a', 'b', 'c'].map((k) => target(k));
    const first = await reader.round(jobs);
    expect(first.read).toEqual(['a', 'b']);
    expect(first.deferred).toEqual(['c']);
    const second = await reader.round(jobs);
    expect(second.read[0]).toBe('c');
    expect(logs.requests).toHaveLength(4);
  });

  it('reads a re-created pod from its start and keeps the phase; forgets jobs no longer followed', async () => {
    let now = T0 + 60_000;
    const logs = new FakeLogs();
    const reader = new ProgressReader({ logs, now: () => now, maxReadsPerRound: 5 });
    logs.append('a-worker-0', T0, report(100, 0.5));
    await reader.round([target('a', 'uid-1')]);
    expect(reader.view('a')?.step).toBe(100);
    // The replica was re-created: a new log (the fake keeps one log per name; the new pod's line is later).
    logs.logs.set('a-worker-0', []);
    logs.append('a-worker-0', T0 + 30_000, report(150, 0.55));
    now = T0 + 90_000;
    await reader.round([target('a', 'uid-2')]);
    expect(logs.requests.at(-1)?.tailLines).toBe(2000);
    expect(reader.view('a')).toMatchObject({ step: 150, phase: 'Progressing' });
    await reader.round([]);
    expect(reader.view('a')).toBeUndefined();
  });

  it('treats a pod that is gone or not started as no information, and says why for other errors and bad lines', async () => {
    const logs = new FakeLogs();
    const reader = new ProgressReader({ logs, now: () => T0 + 10_000, maxReadsPerRound: 5 });
    logs.failWith = 404;
    expect((await reader.round([target('a')])).problems.size).toBe(0);
    logs.failWith = 400;
    expect((await reader.round([target('a')])).problems.size).toBe(0);
    logs.failWith = 403;
    const denied = await reader.round([target('a')]);
    expect(denied.problems.get('a')).toMatch(/cannot read the log of pod a-worker-0: HTTP 403/);
    expect(reader.view('a')).toBeUndefined();

    logs.failWith = undefined;
    logs.append('b-worker-0', T0, `${PROGRESS_PREFIX} {"step": "many"`);
    logs.append('b-worker-0', T0, report(10, Number.NaN));
    const bad = await reader.round([target('b')]);
    expect(bad.problems.get('b')).toMatch(/^ignored 2 progress line\(s\) in the log of pod b-worker-0, first: /);
    expect(reader.view('b')).toBeUndefined();
  });
});
