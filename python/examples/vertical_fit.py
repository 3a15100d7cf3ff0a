"""One CPU-bound training process whose evaluation loss the operator follows (FlowCon's evaluation function).

Every PROGRESS_EVERY steps it prints the loss on a fixed evaluation set (not the noisy batch loss), so
a flat curve is flat and a falling one falls. Models, all on synthetic data made here (no downloads):
  linear  full-batch gradient descent on a fixed least-squares problem with orthogonal features.
          NOISE=0: the loss falls by the factor (1 - 2 LR)^2 every step for the whole run (a job
          that keeps learning: over STEPS steps it falls by about exp(4 LR STEPS));
          NOISE>0 with a large LR (0.2): it reaches the noise floor within a few dozen steps and
          stays exactly there (a job that converged early).
  mlp     a two-layer perceptron fitting a random teacher network (Adam).
  cnn     a small convolutional net on 16x16 synthetic images labelled by a random teacher (Adam).
  lstm    an LSTM reading 20-step sequences, predicting a random teacher's output (Adam).
Env: MODEL (default linear), STEPS (default 3000), PROGRESS_EVERY (default 50), LR, NOISE (linear),
WIDTH (linear features / hidden units), SEED, MAX_STEPS_PER_SECOND (default 0: unpaced; else it sleeps
at each progress line to stay at or below that rate, so a fast host does not end the run early).
Ends with TRAINING_DONE global_step=N.
"""
import os
import sys
import time

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")]
from tfjob_progress import done, install_sigterm_handler, report  # noqa: E402

install_sigterm_handler()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

MODEL = os.environ.get("MODEL", "linear")
STEPS = int(os.environ.get("STEPS", "3000"))
EVERY = int(os.environ.get("PROGRESS_EVERY", "50"))
NOISE = float(os.environ.get("NOISE", "0"))
WIDTH = int(os.environ.get("WIDTH", "256"))
SEED = int(os.environ.get("SEED", "1"))
MAX_RATE = float(os.environ.get("MAX_STEPS_PER_SECOND", "0"))
rng = np.random.default_rng(SEED)
tf.random.set_seed(SEED)


def linear():
    lr = float(os.environ.get("LR", "0.002"))
    n = 8 * WIDTH
    # Orthogonal features scaled to X^T X = n I: every direction has the same curvature, so with NOISE=0
    # the loss falls by the same factor (1 - 2 LR)^2 every step, from the first step to the last.
    q, _ = np.linalg.qr(rng.normal(size=(n, WIDTH)))
    x = tf.constant(q * np.sqrt(n), tf.float64)
    y = x @ tf.constant(rng.normal(size=(WIDTH, 1)), tf.float64) + NOISE * tf.constant(rng.normal(size=(n, 1)), tf.float64)
    w = tf.Variable(tf.zeros((WIDTH, 1), tf.float64))

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(x @ w - y))
        w.assign_sub(lr * tape.gradient(loss, w))
        return loss

    # Full batch: the training loss is the evaluation loss, measured before the step.
    return step, None


def keras_model(model, x_shape, out):
    """A model fitting a random teacher's outputs on fixed synthetic inputs; step = one Adam batch."""
    lr = float(os.environ.get("LR", "0.001"))
    x = rng.normal(size=(2048,) + x_shape).astype(np.float32)
    teacher = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(out)])
    y = teacher(x).numpy()
    y = (y == y.max(axis=1, keepdims=True)).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(2048, seed=SEED).repeat().batch(64)
    batches = iter(ds)
    opt = tf.keras.optimizers.Adam(lr)
    lossf = tf.keras.losses.CategoricalCrossentropy(from_logits=True)
    xe, ye = tf.constant(x[:512]), tf.constant(y[:512])

    @tf.function
    def train(xb, yb):
        with tf.GradientTape() as tape:
            loss = lossf(yb, model(xb, training=True))
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    @tf.function
    def evaluate():
        return lossf(ye, model(xe, training=False))

    return (lambda: train(*next(batches))), evaluate


def build():
    if MODEL == "linear":
        return linear()
    L = tf.keras.layers
    if MODEL == "mlp":
        m = tf.keras.Sequential([L.Input((64,)), L.Dense(WIDTH, activation="relu"), L.Dense(WIDTH, activation="relu"), L.Dense(10)])
        return keras_model(m, (64,), 10)
    if MODEL == "cnn":
        m = tf.keras.Sequential(
            [L.Input((16, 16, 1)), L.Conv2D(16, 3, activation="relu"), L.MaxPool2D(), L.Conv2D(32, 3, activation="relu"), L.Flatten(), L.Dense(10)]
        )
        return keras_model(m, (16, 16, 1), 10)
    if MODEL == "lstm":
        m = tf.keras.Sequential([L.Input((20, 8)), L.LSTM(WIDTH // 4), L.Dense(10)])
        return keras_model(m, (20, 8), 10)
    raise SystemExit("unknown MODEL %r (linear, mlp, cnn, lstm)" % MODEL)


train_step, evaluate = build()
print("TF %s model %s steps %d" % (tf.__version__, MODEL, STEPS), flush=True)
t0 = time.time()
for step in range(1, STEPS + 1):
    loss = train_step()
    if step % EVERY == 0 or step == STEPS:
        value = float(evaluate() if evaluate is not None else loss)
        report(step=step, loss=value, total_steps=STEPS)
        if MAX_RATE > 0:
            time.sleep(max(0.0, step / MAX_RATE - (time.time() - t0)))
print("trained %d steps in %.1fs" % (STEPS, time.time() - t0), flush=True)
done(STEPS)
