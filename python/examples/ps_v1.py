"""Between-graph parameter-server training with tf.compat.v1 (Kubeflow dist-mnist style).

Worker 0 (or the chief/master replica, if the job has one) is the chief: it initialises or restores
the variables and writes checkpoints; other workers wait for it. Variables live on the PS
(replica_device_setter). Each worker's session only sees the PS and itself (device_filters), which
is what lets workers of an elastic job come and go: see docs/elastic-contract.md.

Env: TF_CONFIG (required for distributed), STEPS (global steps, default 200), STEP_SLEEP (seconds
per local step, default 0.05), CKPT_DIR (checkpoints; resume from it), PROGRESS_EVERY (default 10),
LOSS_TARGET (unset by default: a loss that, once reached, makes the job Converged at once).
NOISE (default 0): standard deviation of Gaussian noise added to the targets, so the loss has a floor
(about NOISE**2) the model cannot go below. EVAL_BATCH (default 0: each progress line reports the loss
of the batch just trained on, which is noisy): N > 0 reports the loss on one fixed batch of N samples
instead (the same in every replica and restart), so once converged the reported loss sits flat at the
floor and only SGD's small jitter moves it (an evaluation function FlowCon can call Completing).
FAIL_ONCE (off by default: one replica exits once with a given code at a given step, fail_once.py).
"""
import os
import sys
import time

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")]
from tfjob_progress import cluster_dict, done, install_sigterm_handler, report, tf_config  # noqa: E402
import fail_once  # noqa: E402

_term_hooks = []
install_sigterm_handler(on_term=lambda: [h() for h in _term_hooks])

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

STEPS = int(os.environ.get("STEPS", "200"))
SLEEP = float(os.environ.get("STEP_SLEEP", "0.05"))
CKPT_DIR = os.environ.get("CKPT_DIR") or None
EVERY = int(os.environ.get("PROGRESS_EVERY", "10"))
LOSS_TARGET = float(os.environ["LOSS_TARGET"]) if os.environ.get("LOSS_TARGET") else None
NOISE = float(os.environ.get("NOISE", "0"))
EVAL_BATCH = int(os.environ.get("EVAL_BATCH", "0"))

cfg = tf_config()
task = cfg.get("task", {})
job, idx = task.get("type", "worker"), int(task.get("index", 0))
print("TF %s task %s:%d TF_CONFIG %s" % (tf.__version__, job, idx, os.environ.get("TF_CONFIG")), flush=True)
tf.compat.v1.disable_eager_execution()
spec = cluster_dict(cfg)
if not spec:
    server_target, n_ps, is_chief, device = "", 0, True, "/cpu:0"
    filters = None
else:
    cluster = tf.train.ClusterSpec(spec)
    server = tf.distribute.Server(cluster, job_name=job, task_index=idx, start=True)
    print("server %s up" % server.target, flush=True)
    if job == "ps":
        while True:  # not server.join(): the SIGTERM handler must get to run
            time.sleep(1)
    chief_type = "chief" if "chief" in spec else ("master" if "master" in spec else None)
    is_chief = job == chief_type if chief_type else (job == "worker" and idx == 0)
    server_target, n_ps = server.target, len(spec.get("ps", []))
    device = "/job:%s/task:%d" % (job, idx)
    # Only the PS and this task: the session never waits for (or talks to) absent worker slots.
    # DEVICE_FILTERS=0 turns this off, to see what a script without filters does (it waits).
    filters = ["/job:ps", device] if os.environ.get("DEVICE_FILTERS", "1") != "0" else None

with tf.compat.v1.device(tf.compat.v1.train.replica_device_setter(ps_tasks=n_ps, worker_device=device)):
    gs = tf.compat.v1.train.get_or_create_global_step()
    x = tf.compat.v1.placeholder(tf.float32, [None, 4])
    y = tf.compat.v1.placeholder(tf.float32, [None, 1])
    w = tf.compat.v1.get_variable("w", [4, 1], initializer=tf.compat.v1.zeros_initializer())
    b = tf.compat.v1.get_variable("b", [1], initializer=tf.compat.v1.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    train = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=gs)

saver = tf.compat.v1.train.Saver(max_to_keep=3, sharded=True)
scaffold = tf.compat.v1.train.Scaffold(saver=saver)


_raw = []


class _Keep(tf.compat.v1.train.SessionRunHook):
    """Keeps the raw session so that SIGTERM can write a last checkpoint (chief only)."""

    def after_create_session(self, session, coord):
        _raw.append(session)
        if is_chief and CKPT_DIR:
            _term_hooks.append(lambda: print("SIGTERM checkpoint", saver.save(session, os.path.join(CKPT_DIR, "model.ckpt"), global_step=gs), flush=True))


true_w = np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)


def batch(r, n):
    xb = r.normal(size=(n, 4)).astype(np.float32)
    yb = xb @ true_w + 0.7
    if NOISE:  # no draw without noise: the batches stay what they were before the knob
        yb = (yb + NOISE * r.normal(size=(n, 1))).astype(np.float32)
    return xb, yb


rng = np.random.default_rng(idx + 100 * int(time.time()))
# A fixed seed: every replica and every restart evaluates on the same samples.
eval_x, eval_y = batch(np.random.default_rng(20261129), EVAL_BATCH) if EVAL_BATCH > 0 else (None, None)
conf = tf.compat.v1.ConfigProto(device_filters=filters) if filters else None
hooks = [tf.compat.v1.train.StopAtStepHook(last_step=STEPS), _Keep()]
step, last_loss, t0 = 0, float("nan"), time.time()
print("opening session (chief=%s)" % is_chief, flush=True)
with tf.compat.v1.train.MonitoredTrainingSession(
    master=server_target,
    is_chief=is_chief,
    checkpoint_dir=CKPT_DIR,
    scaffold=scaffold,
    hooks=hooks,
    config=conf,
    save_checkpoint_steps=20 if CKPT_DIR else None,
    save_checkpoint_secs=None,
    save_summaries_steps=None,
    save_summaries_secs=None,
    log_step_count_steps=None,
) as sess:
    step = sess.run(gs)
    print("session open after %.1fs, global step %d" % (time.time() - t0, step), flush=True)
    reported = step // EVERY
    while not sess.should_stop():
        xb, yb = batch(rng, 32)
        _, step, last_loss = sess.run([train, gs, loss], {x: xb, y: yb})
        fail_once.check(job, idx, int(step))
        # Each time the global step passes a multiple of EVERY: workers taking turns see every
        # other step (two workers may see only odd ones), so `step % EVERY == 0` could never hold.
        if step // EVERY > reported:
            reported = step // EVERY
            if eval_x is not None and not sess.should_stop():
                last_loss = sess.run(loss, {x: eval_x, y: eval_y})
            report(step=int(step), loss=float(last_loss), target=LOSS_TARGET)
        time.sleep(SLEEP)
    # The step fetched with the last update may predate another worker's last one: read it again.
    step = int(_raw[-1].run(gs)) if _raw else step
done(step)
