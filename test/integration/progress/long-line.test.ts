// A Keras progress bar redrawn on one line for a whole epoch, 100 MB long, served through the real
// pods/log path (kwok reads the CRI log file with the kubelet's own code: 16 KiB partial records,
// sinceTime per record, tailLines counting records). The operator must not get stuck on it: each
// epoch's end shows in status.progress within about a period (plus the loop's 2 s check), and a NaN
// loss makes the job Diverged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Operator } from '../../../src/operator/manager.ts';
import { createNamespace, deleteNamespace, eventually } from '../../support/kube.ts';
import { startOperator } from '../../support/operator.ts';
import { servePodLog } from '../../support/pod-logs.ts';
import { createPool, onPool, type Pool } from '../../support/pool.ts';
import { createTFJob, getTFJob, jobEvents, tfjob, waitForPods } from '../../support/tfjob.ts';

const PERIOD_MS = 1_000;

interface ProgressStatus {
  phase?: string;
  metric?: string;
  latest?: string;
  metricName?: string;
  step?: number;
  epoch?: number;
}

/** Keras 3's redraw of its bar (backspaces over the previous one, then \r), as captured from TF 2.21. */
const redraw = (i: number) =>
  `${'\b'.repeat(60)}\r\x1b[1m${String(i).padStart(7)}/5000000\x1b[0m \x1b[37m━━━━━━━━━━━━━━━━━━━━\x1b[0m \x1b[1m1s\x1b[0m 2ms/step - accuracy: 0.5${i % 10} - loss: 0.7`;
const finalRedraw = (acc: string, loss = '0.6') =>
  `${'\b'.repeat(60)}\r\x1b[1m5000000/5000000\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m \x1b[1m9s\x1b[0m 2ms/step - accuracy: 0.6 - loss: ${loss} - val_accuracy: ${acc} - val_loss: 0.5\n`;

describe('a 100 MB progress-bar line through pods/log', () => {
  let ns: string;
  let pool: Pool;
  let operator: Operator;

  beforeAll(async () => {
    ns = await createNamespace('long-line');
    pool = await createPool('long-line', 1, { cpu: '8', memory: '32Gi' });
    operator = await startOperator(ns, ['--progress-period', `${PERIOD_MS / 1000}s`, ...pool.operatorFlags]);
  });
  afterAll(async () => {
    await operator.stop();
    await deleteNamespace(ns);
    await pool.delete();
  });

  const progressOf = async (name: string) => ((await getTFJob(ns, name)).status as { progress?: ProgressStatus } | undefined)?.progress;

  /** Milliseconds from now until status.progress satisfies `ok`. */
  const latencyUntil = async (name: string, ok: (p: ProgressStatus | undefined) => boolean, what: string): Promise<number> => {
    const from = performance.now();
    await eventually(async () => ok(await progressOf(name)), { timeoutMs: 60_000, intervalMs: 100, what });
    return performance.now() - from;
  };

  // The reader's memory on such a line is measured by bench/progress-long-line.ts (docs/progress-protocol.md).
  it('reads each epoch end of a redrawn bar, however long its line', async () => {
    await createTFJob(ns, onPool(tfjob('bar', { Worker: 1 }, { resources: { cpu: '1' } }), pool));
    await waitForPods(ns, 'bar', 1);
    const log = await servePodLog(ns, 'bar-worker-0');
    log.writeOutput('Epoch 1/2\n');

    // 100 MB of redraws in 25 writes of 4 MB, 300 ms apart: several progress reads land inside the line.
    const parts: string[] = [];
    for (let i = 1, size = 0; size < 4 * 1024 * 1024; i++) {
      const r = redraw(i);
      parts.push(r);
      size += r.length;
    }
    const chunk = parts.join('');
    for (let k = 0; k < 25; k++) {
      log.writeOutput(chunk);
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(await progressOf('bar')).toBeUndefined();

    log.writeOutput(`${finalRedraw('0.7324')}Epoch 2/2\n${redraw(1)}${redraw(2)}`);
    const first = await latencyUntil('bar', (p) => p?.epoch === 1, 'epoch 1 in status.progress');
    expect(await progressOf('bar')).toMatchObject({ phase: 'Progressing', metricName: 'val_accuracy', metric: '0.7324', epoch: 1 });

    await new Promise((r) => setTimeout(r, 2 * PERIOD_MS));
    log.writeOutput(`${redraw(3)}${finalRedraw('0.8066')}`);
    const second = await latencyUntil('bar', (p) => p?.epoch === 2, 'epoch 2 in status.progress');
    // The smoothed value (0.7 × 0.7324 + 0.3 × 0.8066) and the one the log printed last, apart.
    expect(await progressOf('bar')).toMatchObject({ metric: '0.75466', latest: '0.8066', step: 10_000_000 });
    console.log(
      `100 MB line: epoch 1 in status ${Math.round(first)} ms after its end, epoch 2 ${Math.round(second)} ms (period ${PERIOD_MS} ms)`,
    );
    // A round every period, then the status write (a reconcile): one period plus the write's latency.
    expect(first).toBeLessThan(PERIOD_MS + 3_000);
    expect(second).toBeLessThan(PERIOD_MS + 3_000);
  });

  it('makes a job whose loss goes NaN Diverged, with a Warning event', async () => {
    await createTFJob(ns, onPool(tfjob('nan', { Worker: 1 }, { resources: { cpu: '1' } }), pool));
    await waitForPods(ns, 'nan', 1);
    const log = await servePodLog(ns, 'nan-worker-0');
    // Captured from TF 2.15 (verbose=2, SGD with a learning rate of 1e12), trimmed.
    log.write(['Epoch 1/3', '16/16 - 4s - loss: nan - accuracy: 0.5000 - val_loss: nan - val_accuracy: 0.4297 - 4s/epoch - 230ms/step']);
    await eventually(async () => (await progressOf('nan'))?.phase === 'Diverged', { timeoutMs: 30_000, what: 'status.progress Diverged' });
    const events = await eventually(
      async () => {
        const found = (await jobEvents(ns, 'nan')).filter((e) => e.reason === 'Diverged');
        return found.length > 0 ? found : false;
      },
      { timeoutMs: 30_000, what: 'the Diverged event' },
    );
    expect(events[0]).toMatchObject({ type: 'Warning' });
    expect(events[0]?.message).toMatch(/^Training diverged: Keras loss is not finite/);
  });
});
