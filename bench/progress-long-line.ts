// Benchmark (not a test): the progress reader's memory while a job's log holds a 100 MB progress-bar
// line (Keras 3 redraws, no newline for a whole epoch), read one round per 4 MB written, as the
// kubelet serves it (test/unit/progress/follower/cri-log.ts: 16 KiB records). The log's records are
// slices of one 4 MB string, so the heap measures the reader, not the log. Prints, per round, the
// heap growth the round leaves after a full GC (what the reader keeps) and before it (what a read
// costs while it runs), the largest answer, and whether the epoch was read at the end.
//
//   node --expose-gc bench/progress-long-line.ts [--mb 100] [--jobs 1]
import { ProgressReader } from '../src/progress/follower/reader.ts';
import { CriLog } from '../test/unit/progress/follower/cri-log.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const mbArg = process.argv.indexOf('--mb');
const totalMb = mbArg > 0 ? Number(process.argv[mbArg + 1]) : 100;
const jobsArg = process.argv.indexOf('--jobs');
const jobs = jobsArg > 0 ? Number(process.argv[jobsArg + 1]) : 1;

const redraw = (i: number) =>
  `${'\b'.repeat(60)}\r\x1b[1m${String(i).padStart(7)}/5000000\x1b[0m \x1b[37m━━━━━━━━━━━━━━━━━━━━\x1b[0m \x1b[1m1s\x1b[0m 2ms/step - accuracy: 0.5${i % 10} - loss: 0.7`;
const parts: string[] = [];
for (let i = 1, size = 0; size < 4 * 1024 * 1024; i++) {
  parts.push(redraw(i));
  size += parts.at(-1)!.length;
}
const chunk = parts.join('');

let now = Date.UTC(2026, 10, 25);
// One log per job, all with the same line: the reader reads them in one round each.
const logs = Array.from({ length: jobs }, () => new CriLog());
const log = logs[0]!;
const byPod = new Map(logs.map((l, k) => [`j${k}-worker-0`, l]));
const source = { read: (r: Parameters<CriLog['read']>[0]) => byPod.get(r.pod)!.read(r) };
const reader = new ProgressReader({ logs: source, now: () => now, maxReadsPerRound: jobs });
const targets = logs.map((_, k) => ({
  key: `j${k}`,
  namespace: 'ns',
  pod: `j${k}-worker-0`,
  podUid: 'u',
  container: 'tensorflow',
  workers: 1,
}));
const writeAll = (text: string) => {
  for (const l of logs) l.write(text, now);
};
writeAll('Epoch 1/2\n');
await reader.round(targets);
let retained = 0;
let transient = 0;
const start = process.memoryUsage().heapUsed;
for (let written = 0; written < totalMb; written += 4) {
  now += 1_000;
  writeAll(chunk);
  gc();
  const afterWrite = process.memoryUsage().heapUsed;
  await reader.round(targets);
  transient = Math.max(transient, process.memoryUsage().heapUsed - afterWrite);
  gc();
  retained = Math.max(retained, process.memoryUsage().heapUsed - afterWrite);
}
gc();
const logHeap = process.memoryUsage().heapUsed - start;
now += 1_000;
writeAll(`${'\b'.repeat(60)}\r5000000/5000000 - 9s 2ms/step - accuracy: 0.6 - loss: 0.6 - val_binary_accuracy: 0.73 - val_loss: 0.5\n`);
gc();
const beforeEnd = process.memoryUsage().heapUsed;
await reader.round(targets);
gc();
const afterEnd = process.memoryUsage().heapUsed - beforeEnd;
const kb = (b: number) => `${(b / 1024).toFixed(0)} KiB`;
console.log(
  JSON.stringify({
    lineMb: totalMb,
    jobs,
    rounds: log.requests.length,
    largestAnswer: kb(Math.max(...log.answerBytes)),
    logRecordsHeap: kb(logHeap),
    heapRetainedByARoundMax: kb(retained),
    heapGrowthDuringARoundMax: kb(transient),
    heapRetainedByTheEpochEndRound: kb(afterEnd),
    epochRead: targets.every((t) => reader.view(t.key)?.epoch === 1),
  }),
);
