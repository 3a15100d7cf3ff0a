// The training-side helper as users install it: `pip install` of python/ (the tfjob-progress package,
// offline, inside the pod) and its Keras callback in a real model.fit, once with Keras 3 (TensorFlow
// 2.21) and once with tf.keras 2.x (TensorFlow 2.15). Each epoch's line reaches the log, the operator
// reads them into status.progress, and the job Succeeds. And Keras's own progress bar on a terminal,
// without the helper, read by the operator from the real kubelet's log.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../lab/local-cluster/binaries.ts';
import { ESTIMATOR_TENSORFLOW_IMAGE, HELPER_PACKAGE_FILES, TENSORFLOW_IMAGE } from '../../lab/local-cluster/real-node/index.ts';
import { eventually } from '../support/kube.ts';
import { createTFJob, getTFJob, waitForCondition } from '../support/tfjob.ts';
import { podLog, realJob, realNodeSkipped, startRealNodeRun, statusOf, type RealNodeRun } from './support.ts';

const EPOCHS = 4;
// Seconds per epoch of the progress-bar job: ~25 s in CI; a manual run sets minutes (docs/real-node.md).
const BAR_EPOCH_SECONDS = Number(process.env.TFJOB_REAL_NODE_BAR_EPOCH_SECONDS ?? '25');
const BAR_BATCH_SLEEP = 0.25;
const PACKAGE_VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

// Copied out of the read-only ConfigMap, installed without an index; `python3 -I` keeps the script's
// own directory (which holds tfjob_progress.py too) off sys.path, so the import is the installed one.
const INSTALL_AND_FIT = [
  'sh',
  '-c',
  `set -e; mkdir -p /tmp/pkg; for f in ${HELPER_PACKAGE_FILES.join(' ')}; do cp /trainers/$f /tmp/pkg/; done; ` +
    'pip install -q --disable-pip-version-check --no-index --no-build-isolation /tmp/pkg; exec python3 -I -u /trainers/keras_fit.py',
];

const FLAVOURS = [
  { name: 'Keras 3 (TensorFlow 2.21)', job: 'keras3', image: TENSORFLOW_IMAGE, keras: /Keras 3\./ },
  { name: 'tf.keras 2.x (TensorFlow 2.15)', job: 'tfkeras2', image: ESTIMATOR_TENSORFLOW_IMAGE, keras: /Keras 2\./ },
];

describe.skipIf(realNodeSkipped() !== undefined)('the tfjob-progress package, pip-installed, with real Keras (ours)', () => {
  let run: RealNodeRun;
  let ns: string;
  beforeAll(async () => {
    run = await startRealNodeRun('real-keras', 'ours', ['--progress-period', '2s']);
    ns = run.ns;
  });
  afterAll(async () => {
    await run.stop();
  });

  it.each(FLAVOURS)('$name: its callback reports every epoch, read into status.progress', async (flavour) => {
    await createTFJob(
      ns,
      realJob(
        flavour.job,
        { Worker: { replicas: 1, cpu: '700m', memory: '600Mi', image: flavour.image, command: INSTALL_AND_FIT } },
        // Slow batches: several progress reads per epoch.
        { env: { EPOCHS: String(EPOCHS), STEPS_PER_EPOCH: '20', BATCH_SLEEP: '0.15' } },
      ),
    );
    const pod = `${flavour.job}-worker-0`;
    const progress = await eventually(
      async () => {
        const p = statusOf(await getTFJob(ns, flavour.job)).progress as
          { epoch?: number; metricName?: string; plannedEpochs?: number; plannedSteps?: number; plan?: string } | undefined;
        return p?.epoch !== undefined && p.epoch >= 2 ? p : false;
      },
      { what: `${flavour.job}: status.progress at epoch 2`, timeoutMs: 240_000, intervalMs: 1_000 },
    );
    expect(progress.metricName).toBe('val_accuracy');
    // The callback declares fit()'s plan: its epochs, and epochs × the 16 training batches of each
    // (20 less the 20 % validation_split), which the status shows as steps.
    expect(progress.plannedEpochs).toBe(EPOCHS);
    expect(progress.plannedSteps).toBe(EPOCHS * 16);
    expect(progress.plan).toMatch(new RegExp(`^\\d+/${EPOCHS * 16} steps \\(\\d+%\\)$`));
    await waitForCondition(ns, flavour.job, 'Succeeded', { timeoutMs: 240_000 });

    const log = await podLog(ns, pod);
    expect(log).toMatch(
      new RegExp(
        `tfjob_progress ${PACKAGE_VERSION.replace(/\./g, '\\.')} from /opt/venv/lib/python3\\.\\d+/site-packages/tfjob_progress\\.py`,
      ),
    );
    expect(log).toMatch(flavour.keras);
    const epochs = [...log.matchAll(/TFJOB_PROGRESS (\{[^\n]*\})/g)].map((m) => (JSON.parse(m[1] ?? '{}') as { epoch?: number }).epoch);
    expect(epochs).toEqual([1, 2, 3, 4]);
    expect(log).toContain(`TRAINING_DONE epochs=${EPOCHS}`);
  });

  it('Keras 3 with its default progress bar on a terminal (verbose=1, no callback): the operator reads the epochs from the bar', async () => {
    // A TTY makes Keras redraw one line per epoch with \r, as users see it; slow batches make each
    // epoch's line long-lived (~20 s) and long, read by the operator while it is being redrawn.
    const job = 'kerasbar';
    await createTFJob(
      ns,
      realJob(
        job,
        { Worker: { replicas: 1, cpu: '700m', memory: '600Mi', tty: true, command: ['python3', '-u', '/trainers/keras_fit.py'] } },
        {
          env: {
            EPOCHS: '3',
            // keras_fit.py holds 20% of the batches back for validation.
            STEPS_PER_EPOCH: String(Math.round(BAR_EPOCH_SECONDS / BAR_BATCH_SLEEP / 0.8)),
            BATCH_SLEEP: String(BAR_BATCH_SLEEP),
            VERBOSE: '1',
            CALLBACK: '0',
          },
        },
      ),
    );
    const created = Date.now();
    const firstSeen = new Map<number, number>();
    let planned: number | undefined;
    const epochBudgetMs = 3 * BAR_EPOCH_SECONDS * 2_000;
    await eventually(
      async () => {
        const p = statusOf(await getTFJob(ns, job)).progress as { epoch?: number; plannedEpochs?: number } | undefined;
        if (p?.epoch !== undefined && !firstSeen.has(p.epoch)) firstSeen.set(p.epoch, Math.round((Date.now() - created) / 1000));
        if (p?.plannedEpochs !== undefined) planned = p.plannedEpochs;
        return firstSeen.has(1) && firstSeen.has(2);
      },
      { what: `${job}: epochs 1 and 2 in status.progress`, timeoutMs: 240_000 + epochBudgetMs, intervalMs: 1_000 },
    );
    await waitForCondition(ns, job, 'Succeeded', { timeoutMs: 240_000 + epochBudgetMs });
    // The bar's `Epoch k/3` header is the job's plan.
    expect(planned).toBe(3);
    console.log(
      `[keras-bar] ${JSON.stringify({ epochSeconds: BAR_EPOCH_SECONDS, epochFirstSeenAfterSeconds: Object.fromEntries(firstSeen) })}`,
    );
    const log = await podLog(ns, `${job}-worker-0`);
    expect(log).not.toContain('TFJOB_PROGRESS');
    expect(log).toMatch(/\r/);
    expect(log).toMatch(/Epoch 3\/3/);
  });
});
