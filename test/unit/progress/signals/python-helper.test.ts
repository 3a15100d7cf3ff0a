// Contract: what python/tfjob_progress.py prints is what the TypeScript parser reads. Runs the helper
// with the machine's python3 (every machine of the project has one); the Keras callback is driven
// through a stand-in `keras` module, because TensorFlow is not installed here (see the report in
// docs/progress-protocol.md: tested with real Keras only where it installs).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluatePhase, parseProgressLog, type PhaseState } from '../../../../src/progress/signals/index.ts';

const PYTHON_DIR = path.resolve(import.meta.dirname, '../../../../python');

function python(script: string): { stdout: string; stderr: string } {
  const r = spawnSync('python3', ['-c', script], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: PYTHON_DIR, PYTHONDONTWRITEBYTECODE: '1' },
    timeout: 20_000,
  });
  if (r.error) throw new Error(`python3 is required for this test and could not be run: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`python3 exited with ${r.status}: ${r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr };
}

describe('python/tfjob_progress.py ↔ parseProgressLog', () => {
  it('report() lines parse to the same values', () => {
    const { stdout } = python(`
from tfjob_progress import report
report(step=100, metric=0.5, name="val_accuracy", higher_is_better=True, epoch=1, loss=1.25, target=0.93, time=1795000000.25)
report(step=200, loss=0.75)
report(step=300, metric=12, name="bleu", higher_is_better=True)
`);
    const r = parseProgressLog(stdout);
    expect(r.rejected).toEqual({});
    expect(r.samples[0]).toEqual({
      source: 'protocol',
      step: 100,
      epoch: 1,
      value: 0.5,
      name: 'val_accuracy',
      higherIsBetter: true,
      loss: 1.25,
      target: 0.93,
      time: 1_795_000_000_250,
    });
    expect(r.samples[1]).toMatchObject({ step: 200, value: 0.75, name: 'loss', higherIsBetter: false });
    expect(r.samples[2]).toMatchObject({ step: 300, value: 12, name: 'bleu' });
    // The default time is the time of the call.
    expect(Math.abs(r.samples[2]!.time! - Date.now())).toBeLessThan(60_000);
  });

  it('refuses what the parser would reject, without raising, and warns once per kind', () => {
    const { stdout, stderr } = python(`
from tfjob_progress import report
results = [
  report(step=1, metric=float("nan"), name="a", higher_is_better=True),
  report(step=1, metric=float("nan"), name="a", higher_is_better=True),
  report(step=1, loss=float("inf")),
  report(step=-1, loss=1),
  report(step=1.5, loss=1),
  report(step=1, metric=0.5),
  report(step=1, metric=0.5, name="has space", higher_is_better=True),
  report(step=1, loss=1e16),
  report(step=1),
  report(step="x", loss=1),
]
print("results", results)
`);
    expect(stdout.trim()).toBe(`results ${JSON.stringify(Array(10).fill(false)).replaceAll('false', 'False').replaceAll(',', ', ')}`);
    expect(parseProgressLog(stdout).samples).toEqual([]);
    expect(stderr.match(/metric is not finite/g)).toHaveLength(1);
  });

  it('importing the module does not import keras or tensorflow', () => {
    const { stdout } = python(`
import sys, tfjob_progress
print(sorted(m for m in ("keras", "tensorflow") if m in sys.modules))
`);
    expect(stdout.trim()).toBe('[]');
  });

  it('the Keras callback reports each epoch (through a stand-in keras module)', () => {
    const { stdout } = python(`
import sys, types
keras = types.ModuleType("keras"); keras.callbacks = types.SimpleNamespace(Callback=type("Callback", (), {"__init__": lambda self: None}))
sys.modules["keras"] = keras
from tfjob_progress import keras_callback
cb = keras_callback()
history = [(0.9, 0.30, 0.95, 0.14), (0.95, 0.14, 0.96, 0.10), (0.96, 0.10, 0.97, 0.09)]
for epoch, (acc, loss, val_acc, val_loss) in enumerate(history):
    for batch in range(50):
        cb.on_train_batch_end(batch, {"loss": loss, "accuracy": acc})
    cb.on_epoch_end(epoch, {"loss": loss, "accuracy": acc, "val_loss": val_loss, "val_accuracy": val_acc, "lr": 0.001})
cb2 = keras_callback(monitor="my_score")
cb2.on_epoch_end(0, {"my_score": 3.0})
`);
    const r = parseProgressLog(stdout);
    expect(r.samples.map((s) => [s.step, s.epoch, s.name, s.value, s.higherIsBetter, s.loss])).toEqual([
      [50, 1, 'val_accuracy', 0.95, true, 0.14],
      [100, 2, 'val_accuracy', 0.96, true, 0.1],
      [150, 3, 'val_accuracy', 0.97, true, 0.09],
    ]);
    let st: PhaseState | undefined;
    for (const s of r.samples) st = evaluatePhase(st, [s], s.time!);
    expect(st).toMatchObject({ name: 'val_accuracy', step: 150 });
  });

  it("reports the job's plan: report(epochs=, total_steps=), and fit()'s params in the Keras callback", () => {
    const { stdout, stderr } = python(`
import sys, types
from tfjob_progress import report
print(report(step=10, loss=1.0, epoch=1, epochs=90, total_steps=9000))
print(report(step=10, loss=1.0, epochs=0))
print(report(step=10, loss=1.0, total_steps=2.5))
keras = types.ModuleType("keras"); keras.callbacks = types.SimpleNamespace(Callback=type("Callback", (), {"__init__": lambda self: None}))
sys.modules["keras"] = keras
from tfjob_progress import keras_callback
cb = keras_callback()
cb.params = {"epochs": 12, "steps": 50, "verbose": 1}
for batch in range(50):
    cb.on_train_batch_end(batch, {})
cb.on_epoch_end(0, {"loss": 0.5, "accuracy": 0.8})
`);
    expect(stdout.split('\n').filter((l) => !l.startsWith('TFJOB_PROGRESS'))).toEqual(['True', 'False', 'False', '']);
    expect(stderr).toContain('epochs is not an integer in [1,');
    expect(stderr).toContain('total_steps is not an integer in [1,');
    const r = parseProgressLog(stdout);
    expect(r.rejected).toEqual({});
    expect(r.samples.map((s) => [s.step, s.epoch, s.epochs, s.totalSteps])).toEqual([
      [10, 1, 90, 9000],
      [50, 1, 12, 600],
    ]);
  });
});

describe('python/tfjob_progress.py: elastic helpers (docs/elastic-contract.md)', () => {
  it('on SIGTERM runs on_term and exits 143 (retryable under ExitCode), even with the main thread blocked', () => {
    const script = `
import os, signal, threading
from tfjob_progress import install_sigterm_handler
install_sigterm_handler(on_term=lambda: print("checkpointed", flush=True))
install_sigterm_handler(on_term=lambda: print("checkpointed", flush=True))  # again, as after MWMS: one watcher
print("threads", len([t for t in threading.enumerate() if t.name == "tfjob-sigterm"]), flush=True)
threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGTERM)).start()
threading.Event().wait()  # blocked, like a TensorFlow call
`;
    const r = spawnSync('python3', ['-c', script], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: PYTHON_DIR, PYTHONDONTWRITEBYTECODE: '1' },
      timeout: 20_000,
    });
    expect(r.status).toBe(143);
    expect(r.stdout).toBe('threads 1\ncheckpointed\n');
    expect(r.stderr).toContain('SIGTERM: exiting with 143');
  });

  it('exits after `grace` seconds when on_term hangs', () => {
    const script = `
import os, signal, threading, time
from tfjob_progress import install_sigterm_handler
install_sigterm_handler(on_term=lambda: time.sleep(60), grace=0.3)
threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGTERM)).start()
threading.Event().wait()
`;
    const t0 = Date.now();
    const r = spawnSync('python3', ['-c', script], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: PYTHON_DIR, PYTHONDONTWRITEBYTECODE: '1' },
      timeout: 20_000,
    });
    expect(r.status).toBe(143);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('tf_config, cluster_dict (also tf-operator’s sparse form) and done', () => {
    const { stdout } = python(`
import json
from tfjob_progress import cluster_dict, done, tf_config
print(tf_config({}), tf_config({"TF_CONFIG": " "}))
cfg = tf_config({"TF_CONFIG": '{"cluster":{"worker":{"1":"w1:2222"},"ps":["p0:2222"],"chief":[]},"task":{"type":"worker","index":1}}'})
print(sorted(cluster_dict(cfg).items()))
print(cluster_dict({"cluster": {"worker": ["a", "b"]}}))
done(42)
`);
    expect(stdout).toBe("{} {}\n[('ps', ['p0:2222']), ('worker', {1: 'w1:2222'})]\n{'worker': ['a', 'b']}\nTRAINING_DONE global_step=42\n");
  });
});
