"""tf.distribute.MultiWorkerMirroredStrategy (synchronous all-reduce, workers only).

Every step is a collective over ALL workers in TF_CONFIG, so the group is fixed when the strategy
starts: a worker that dies makes the others fail (or wait), and a new size means restarting every
worker with a new TF_CONFIG. This style is not elastic (docs/elastic-contract.md); it survives a
whole-job stop and restart from CKPT_DIR (suspension).

Env: TF_CONFIG, STEPS (default 200), STEP_SLEEP (default 0.05), CKPT_DIR, PROGRESS_EVERY (default 10).
"""
import os
import sys
import tempfile
import time

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")]
from tfjob_progress import done, install_sigterm_handler, report, tf_config  # noqa: E402

install_sigterm_handler()  # a checkpoint is a collective too: no saving on SIGTERM

import tensorflow as tf  # noqa: E402

STEPS = int(os.environ.get("STEPS", "200"))
SLEEP = float(os.environ.get("STEP_SLEEP", "0.05"))
CKPT_DIR = os.environ.get("CKPT_DIR") or None
EVERY = int(os.environ.get("PROGRESS_EVERY", "10"))

cfg = tf_config()
task = cfg.get("task", {})
job, idx = task.get("type", "worker"), int(task.get("index", 0))
print("TF %s task %s:%d TF_CONFIG %s" % (tf.__version__, job, idx, os.environ.get("TF_CONFIG")), flush=True)
t0 = time.time()
strategy = tf.distribute.MultiWorkerMirroredStrategy()
# The strategy's preemption notifier took SIGTERM over (it logs "SIGTERM caught" and carries on).
install_sigterm_handler()
print("strategy up after %.1fs: %d replicas in sync" % (time.time() - t0, strategy.num_replicas_in_sync), flush=True)
with strategy.scope():
    w = tf.Variable(tf.zeros([4, 1]), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    step = tf.Variable(0, dtype=tf.int64, name="global_step")
is_chief = idx == 0 and job in ("worker", "chief")
ckpt = tf.train.Checkpoint(w=w, b=b, step=step)
# Every worker saves (a collective); only the chief's copy is kept, the others write to a temp dir.
ckpt_dir = CKPT_DIR if is_chief or not CKPT_DIR else tempfile.mkdtemp(prefix="mwms-%d-" % idx)
manager = tf.train.CheckpointManager(ckpt, ckpt_dir, max_to_keep=3) if CKPT_DIR else None
if manager and CKPT_DIR and tf.train.latest_checkpoint(CKPT_DIR):
    ckpt.restore(tf.train.latest_checkpoint(CKPT_DIR))
    print("restored at global step %d" % step.numpy(), flush=True)
true_w = tf.constant([[1.0], [-2.0], [0.5], [3.0]])


@tf.function
def train_step():
    def fn():
        x = tf.random.normal([32, 4])
        y = tf.matmul(x, true_w) + 0.7
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        grads = tape.gradient(loss, [w, b])
        grads = tf.distribute.get_replica_context().all_reduce("mean", grads)
        w.assign_sub(0.05 * grads[0])
        b.assign_sub(0.05 * grads[1])
        step.assign_add(1)
        return loss

    loss = strategy.run(fn)
    return strategy.reduce("mean", loss, axis=None)


g = int(step.numpy())
while g < STEPS:
    loss = train_step()
    g = int(step.numpy())
    if g % EVERY == 0:
        report(step=g, loss=float(loss))
        if manager and g % 20 == 0:
            manager.save(checkpoint_number=g)
    time.sleep(SLEEP)
if manager:
    manager.save(checkpoint_number=g)
done(g)
