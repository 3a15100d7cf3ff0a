"""TF2 tf.distribute.experimental.ParameterServerStrategy: a chief coordinator, PS, workers.

The chief (coordinator) creates the variables on the PS and schedules training steps on the
workers with ClusterCoordinator, which retries a step on another worker when one dies and uses a
worker again once it is back at the same address. PS and workers only run a tf.distribute.Server.
Progress and checkpoints are the chief's: it restores from CKPT_DIR at start.

The coordinator only starts once every worker in its cluster spec answers. TF_CONFIG of an elastic
job lists every worker slot up to the maximum, so a chief started while the job runs below its
maximum waits until it is scaled out to it. With PSS_WORKERS=reachable the chief keeps only the
workers that answer at start (a prefix 0..k-1: scale-in removes the highest indices) and trains with
those; workers added later are then not used until the chief restarts (docs/elastic-contract.md).

Env: TF_CONFIG, STEPS (default 200), STEP_SLEEP (coordinator sleep per scheduled step, default
0.05), CKPT_DIR, PROGRESS_EVERY (default 10; also the number of steps scheduled per join),
PSS_WORKERS (all | reachable, default all), FAIL_ONCE (off by default: one replica exits once with a
given code once the chief's checkpoint reaches a given step, fail_once.py).
"""
import os
import socket
import sys
import time

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")]
from tfjob_progress import cluster_dict, done, install_sigterm_handler, report, tf_config  # noqa: E402
import fail_once  # noqa: E402

_term_hooks = []
install_sigterm_handler(on_term=lambda: [h() for h in _term_hooks])

import tensorflow as tf  # noqa: E402

STEPS = int(os.environ.get("STEPS", "200"))
SLEEP = float(os.environ.get("STEP_SLEEP", "0.05"))
CKPT_DIR = os.environ.get("CKPT_DIR") or None
EVERY = int(os.environ.get("PROGRESS_EVERY", "10"))

cfg = tf_config()
task = cfg.get("task", {})
job, idx = task.get("type", "chief"), int(task.get("index", 0))
print("TF %s task %s:%d TF_CONFIG %s" % (tf.__version__, job, idx, os.environ.get("TF_CONFIG")), flush=True)
spec = cluster_dict(cfg)


def answers(address, timeout=2.0):
    host, port = address.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
        return True
    except OSError:  # refused, or no such name (an absent worker's service is gone)
        return False


if job == "chief" and os.environ.get("PSS_WORKERS") == "reachable" and isinstance(spec.get("worker"), list):
    k = 0
    while k < len(spec["worker"]) and answers(spec["worker"][k]):
        k += 1
    print("PSS_WORKERS=reachable: using workers 0..%d of %d slots" % (k - 1, len(spec["worker"])), flush=True)
    spec["worker"] = spec["worker"][: max(k, 1)]
resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
    tf.train.ClusterSpec(spec), task_type=job, task_id=idx, rpc_layer="grpc"
)
if job in ("ps", "worker"):
    server = tf.distribute.Server(resolver.cluster_spec(), job_name=job, task_index=idx, protocol="grpc", start=True)
    print("server %s up" % server.target, flush=True)
    fail_once.arm(job, idx)
    while True:  # not server.join(): the SIGTERM handler must get to run
        time.sleep(1)

tf.get_logger().setLevel("INFO")  # the coordinator logs worker failures and recoveries at INFO
t0 = time.time()
strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
print("coordinator up after %.1fs, %d workers in the cluster spec" % (time.time() - t0, strategy.extended._num_workers if hasattr(strategy.extended, "_num_workers") else -1), flush=True)
with strategy.scope():
    w = tf.Variable(tf.zeros([4, 1]), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    step = tf.Variable(0, dtype=tf.int64, name="global_step")
ckpt = tf.train.Checkpoint(w=w, b=b, step=step)
manager = tf.train.CheckpointManager(ckpt, CKPT_DIR, max_to_keep=3) if CKPT_DIR else None
if manager and manager.latest_checkpoint:
    ckpt.restore(manager.latest_checkpoint)
    print("restored %s at global step %d" % (manager.latest_checkpoint, step.numpy()), flush=True)
if manager:
    _term_hooks.append(lambda: print("SIGTERM checkpoint", manager.save(checkpoint_number=int(step.numpy())), flush=True))
true_w = tf.constant([[1.0], [-2.0], [0.5], [3.0]])


@tf.function
def train_step():
    x = tf.random.normal([32, 4])
    y = tf.matmul(x, true_w) + 0.7
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    gw, gb = tape.gradient(loss, [w, b])
    w.assign_sub(0.05 * gw)
    b.assign_sub(0.05 * gb)
    step.assign_add(1)
    return loss


g = int(step.numpy())
last_saved = g
while g < STEPS:
    results = [coordinator.schedule(train_step) for _ in range(min(EVERY, STEPS - g))]
    coordinator.join()
    g = int(step.numpy())
    report(step=g, loss=float(results[-1].fetch()))
    if manager and g - last_saved >= 20:
        manager.save(checkpoint_number=g)
        last_saved = g
    time.sleep(SLEEP * EVERY)
if manager:
    manager.save(checkpoint_number=g)
done(g)
