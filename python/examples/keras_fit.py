"""A tiny Keras model.fit with the tfjob_progress callback (Keras 3, or tf.keras on TensorFlow 2.x).

Prints where tfjob_progress came from (the real-node test installs it with pip and checks that), then
trains EPOCHS epochs of STEPS_PER_EPOCH batches, sleeping BATCH_SLEEP seconds per batch, with
validation, reporting each epoch end as a TFJOB_PROGRESS line.

Env: EPOCHS (default 4), STEPS_PER_EPOCH (default 20), BATCH_SLEEP (default 0), VERBOSE (default 2),
CALLBACK (default 1; 0 = no tfjob_progress callback: the operator then reads Keras's own output),
LEARNING_RATE (Adam's, default 0.001), MONITOR (the metric the callback reports, default "auto").
"""
import os
import time

import tfjob_progress
from tfjob_progress import install_sigterm_handler, keras_callback

install_sigterm_handler()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

try:
    import keras  # Keras 3 (TensorFlow >= 2.16), or Keras 2 standalone
except ImportError:  # pragma: no cover
    from tensorflow import keras

EPOCHS = int(os.environ.get("EPOCHS", "4"))
STEPS = int(os.environ.get("STEPS_PER_EPOCH", "20"))
SLEEP = float(os.environ.get("BATCH_SLEEP", "0"))
print(
    "tfjob_progress %s from %s; TensorFlow %s, Keras %s" % (tfjob_progress.__version__, tfjob_progress.__file__, tf.__version__, keras.__version__),
    flush=True,
)


class Slow(keras.callbacks.Callback):
    def on_train_batch_end(self, batch, logs=None):
        if SLEEP > 0:
            time.sleep(SLEEP)


rng = np.random.default_rng(0)
x = rng.normal(size=(STEPS * 32, 8)).astype("float32")
y = (x.sum(axis=1) > 0).astype("float32")
model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer=keras.optimizers.Adam(learning_rate=float(os.environ.get("LEARNING_RATE", "0.001"))), loss="binary_crossentropy", metrics=["accuracy"])
model.fit(
    x,
    y,
    batch_size=32,
    epochs=EPOCHS,
    validation_split=0.2,
    verbose=int(os.environ.get("VERBOSE", "2")),
    callbacks=([keras_callback(monitor=os.environ.get("MONITOR", "auto"))] if os.environ.get("CALLBACK", "1") == "1" else []) + [Slow()],
)
print("TRAINING_DONE epochs=%d" % EPOCHS, flush=True)
