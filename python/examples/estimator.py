"""tf.estimator.train_and_evaluate (TensorFlow <= 2.15: tf.estimator is gone from 2.16 on).

RunConfig reads TF_CONFIG itself: the chief trains and writes checkpoints to the model dir, workers
train, the PS serve variables, an evaluator (if any) evaluates new checkpoints. Estimator sets
device_filters by itself (a worker's session sees only the PS and itself), which is what lets
workers of an elastic job come and go. All replicas need the same model dir (a shared volume in a
cluster).

Env: TF_CONFIG, STEPS (default 200), STEP_SLEEP (seconds per local step, default 0.05), CKPT_DIR
(model dir; default /tmp/estimator-model), PROGRESS_EVERY (default 10).
"""
import os
import sys
import time

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")]
from tfjob_progress import done, install_sigterm_handler, report, tf_config  # noqa: E402

install_sigterm_handler()  # the chief checkpoints every 20 steps; nothing cheap to add on SIGTERM

import tensorflow as tf  # noqa: E402

STEPS = int(os.environ.get("STEPS", "200"))
SLEEP = float(os.environ.get("STEP_SLEEP", "0.05"))
MODEL_DIR = os.environ.get("CKPT_DIR") or "/tmp/estimator-model"
EVERY = int(os.environ.get("PROGRESS_EVERY", "10"))

cfg = tf_config()
task = cfg.get("task", {})
print("TF %s task %s:%s TF_CONFIG %s" % (tf.__version__, task.get("type"), task.get("index"), os.environ.get("TF_CONFIG")), flush=True)
TRUE_W = [[1.0], [-2.0], [0.5], [3.0]]


def input_fn():
    def gen(_):
        x = tf.random.normal([32, 4])
        return {"x": x}, tf.matmul(x, tf.constant(TRUE_W)) + 0.7

    return tf.data.Dataset.range(10**9).map(gen)


def model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [4, 1], initializer=tf.compat.v1.zeros_initializer())
    b = tf.compat.v1.get_variable("b", [1], initializer=tf.compat.v1.zeros_initializer())
    pred = tf.matmul(features["x"], w) + b
    loss = tf.reduce_mean(tf.square(pred - labels))
    gs = tf.compat.v1.train.get_or_create_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(loss, global_step=gs)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


class Progress(tf.compat.v1.train.SessionRunHook):
    last = 0

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs([tf.compat.v1.train.get_global_step(), "Mean:0"])

    def after_run(self, run_context, run_values):
        step, loss = run_values.results
        Progress.last = max(Progress.last, int(step))
        if step % EVERY == 0:
            report(step=int(step), loss=float(loss))
        time.sleep(SLEEP)


run_config = tf.estimator.RunConfig(model_dir=MODEL_DIR, save_checkpoints_steps=20, save_summary_steps=None, log_step_count_steps=None)
print("RunConfig: task %s:%s chief=%s workers=%d ps=%d" % (run_config.task_type, run_config.task_id, run_config.is_chief, run_config.num_worker_replicas, run_config.num_ps_replicas), flush=True)
est = tf.estimator.Estimator(model_fn=model_fn, config=run_config)
tf.estimator.train_and_evaluate(
    est,
    tf.estimator.TrainSpec(input_fn=input_fn, max_steps=STEPS, hooks=[Progress()]),
    tf.estimator.EvalSpec(input_fn=input_fn, steps=5, throttle_secs=5, start_delay_secs=1),
)
# A hook's fetch of the global step races the train op's increment (it may read the value before
# the last step), so the end line takes the step the final checkpoint holds when it is higher.
try:
    final = int(est.get_variable_value("global_step"))
except (ValueError, tf.errors.NotFoundError):  # no checkpoint visible to this replica
    final = 0
done(max(Progress.last, final))
