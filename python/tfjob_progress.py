"""Report training progress to the TFJob operator (docs/progress-protocol.md).

Standard library only. Each report is one line on stdout:

    TFJOB_PROGRESS {"v":1,"step":1200,"metric":0.87,"name":"val_accuracy","higherIsBetter":true}

Custom loop::

    from tfjob_progress import report
    report(step=global_step, metric=val_acc, name="val_accuracy", higher_is_better=True)

Keras (importing this module does not import Keras; the callback does, when created)::

    from tfjob_progress import keras_callback
    model.fit(..., callbacks=[keras_callback()])

A report never raises: a value the operator would reject (NaN, infinite, out of range) is not
printed, a warning goes to stderr once per kind, and report() returns False.
"""

import json
import math
import re
import sys
import time as _time

PREFIX = "TFJOB_PROGRESS"
VERSION = 1
MAX_ABS_VALUE = 1e15
MAX_EPOCH = 1e9
MAX_TIME_SECONDS = 253402300799
MAX_LINE_LENGTH = 4096
_NAME = re.compile(r"^[A-Za-z0-9_.:/-]{1,64}$")
_MAX_STEP = 2**53 - 1
_warned = set()

__all__ = ["report", "format_line", "keras_callback", "PREFIX"]


def _warn(kind, message):
    if kind not in _warned:
        _warned.add(kind)
        print("tfjob_progress: %s (report skipped)" % message, file=sys.stderr, flush=True)


def _number(value, field):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        # numpy scalars and tensors convert; anything else is a caller error.
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ValueError("%s is not a number" % field)
    value = float(value)
    if not math.isfinite(value):
        raise ValueError("%s is not finite" % field)
    if abs(value) > MAX_ABS_VALUE:
        raise ValueError("%s is out of range" % field)
    return value


def format_line(step, metric=None, name=None, higher_is_better=None, loss=None, epoch=None, target=None, time=None):
    """The protocol line for one report (without newline). Raises ValueError on a value the operator would reject."""
    if isinstance(step, bool):
        raise ValueError("step is not an integer")
    try:
        step_int = int(step)
    except (TypeError, ValueError):
        raise ValueError("step is not an integer")
    if step_int != step or not 0 <= step_int <= _MAX_STEP:
        raise ValueError("step is not a non-negative integer")
    obj = {"v": VERSION, "step": step_int}
    if epoch is not None:
        e = _number(epoch, "epoch")
        if not 0 <= e <= MAX_EPOCH:
            raise ValueError("epoch is out of range")
        obj["epoch"] = int(e) if e == int(e) else e
    if metric is None and loss is None:
        raise ValueError("give metric or loss")
    if metric is not None:
        if higher_is_better is None:
            raise ValueError("higher_is_better is required with metric")
        obj["metric"] = _number(metric, "metric")
        obj["name"] = name if name is not None else "metric"
        if not isinstance(obj["name"], str) or not _NAME.match(obj["name"]):
            raise ValueError("name must match %s" % _NAME.pattern)
        obj["higherIsBetter"] = bool(higher_is_better)
    if loss is not None:
        obj["loss"] = _number(loss, "loss")
    if target is not None:
        obj["target"] = _number(target, "target")
    if time is not None:
        t = _number(time, "time")
        if not 0 < t <= MAX_TIME_SECONDS:
            raise ValueError("time is not seconds since the Unix epoch")
        obj["time"] = t
    # allow_nan=False: a NaN that slipped through must fail here, not in the operator's parser.
    line = PREFIX + " " + json.dumps(obj, separators=(",", ":"), allow_nan=False)
    if len(line) > MAX_LINE_LENGTH:
        raise ValueError("line too long")
    return line


def report(step, metric=None, name=None, higher_is_better=None, loss=None, epoch=None, target=None, time=None, file=None):
    """Print one progress line (flushed). Returns True if printed; never raises on a bad value."""
    if time is None:
        time = _time.time()
    try:
        line = format_line(step, metric, name, higher_is_better, loss, epoch, target, time)
    except ValueError as err:
        _warn(str(err), str(err))
        return False
    out = file if file is not None else sys.stdout
    # One write of the whole line: a line split across writes can interleave with other output.
    out.write(line + "\n")
    out.flush()
    return True


# Keras's own names, as its progress bar prints them; the direction of any other name is unknown.
_HIGHER = re.compile(r"(?:^|_)(?:accuracy|acc|auc|precision|recall|f1_score|fbeta_score|r2_score|iou)$")
_LOWER = re.compile(r"(?:^|_)(?:loss|error|mae|mse|mape|msle|rmse|crossentropy|hinge|divergence|kld|poisson|logcosh)$")


def _direction(name):
    base = re.sub(r"_\d+$", "", re.sub(r"^val_", "", name))
    if _HIGHER.search(base):
        return True
    if _LOWER.search(base):
        return False
    return None


def _choose(names):
    """Same order as the operator's Keras recognition: a validation metric, val_loss, a training metric, loss."""
    known = [n for n in names if _direction(n) is not None]

    def is_loss(n):
        return re.search(r"(?:^|_)loss$", re.sub(r"_\d+$", "", n)) is not None

    for pick in (
        lambda n: n.startswith("val_") and not is_loss(n),
        lambda n: n.startswith("val_"),
        lambda n: not is_loss(n),
        lambda n: True,
    ):
        for n in known:
            if pick(n):
                return n
    return None


def _import_keras_callback_base():
    try:
        import keras  # Keras 3, or Keras 2 standalone

        return keras.callbacks.Callback
    except ImportError:
        from tensorflow import keras  # TensorFlow 2.x bundling Keras 2

        return keras.callbacks.Callback


def keras_callback(monitor="auto", higher_is_better=None, target=None, file=None):
    """A keras.callbacks.Callback reporting at each epoch end.

    monitor: a name from the epoch's logs, or "auto" (a validation metric, then val_loss, then a
    training metric, then loss). higher_is_better: needed only for a monitor whose direction is not a
    Keras built-in one. Raises ImportError if neither keras nor tensorflow is installed.
    """
    base = _import_keras_callback_base()

    class TFJobProgress(base):
        def __init__(self):
            super().__init__()
            self._step = 0

        def on_train_batch_end(self, batch, logs=None):
            self._step += 1

        def on_epoch_end(self, epoch, logs=None):
            logs = logs or {}
            name = _choose(list(logs.keys())) if monitor == "auto" else monitor
            if name is None or name not in logs:
                _warn("monitor", "no metric to report in %s" % sorted(logs.keys()))
                return
            hib = higher_is_better if higher_is_better is not None else _direction(name)
            if hib is None:
                _warn("direction", "direction of %s unknown: pass higher_is_better" % name)
                return
            loss_key = "val_loss" if name.startswith("val_") else "loss"
            loss = logs.get(loss_key) if name != loss_key else None
            try:
                loss = float(loss) if loss is not None and math.isfinite(float(loss)) else None
            except (TypeError, ValueError):
                loss = None
            report(
                step=self._step,
                metric=logs[name],
                name=name,
                higher_is_better=hib,
                loss=loss,
                epoch=epoch + 1,  # Keras counts epochs from 0 here and prints them from 1
                target=target,
                file=file,
            )

    return TFJobProgress()


if __name__ == "__main__":
    # Smoke test from a shell: python3 tfjob_progress.py 100 0.5 accuracy
    args = sys.argv[1:]
    if len(args) != 3:
        print("usage: tfjob_progress.py STEP METRIC NAME (NAME must be a Keras built-in metric name)", file=sys.stderr)
        sys.exit(2)
    direction = _direction(args[2])
    sys.exit(0 if report(step=int(args[0]), metric=float(args[1]), name=args[2], higher_is_better=direction) else 1)
