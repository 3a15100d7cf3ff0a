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

Elastic jobs and prompt stops (docs/elastic-contract.md)::

    from tfjob_progress import install_sigterm_handler, tf_config, cluster_dict, done
    install_sigterm_handler(on_term=save_checkpoint)   # first thing, before TensorFlow starts threads
    cfg = tf_config()                                  # TF_CONFIG parsed ({} when unset)
    cluster = tf.train.ClusterSpec(cluster_dict(cfg))  # also accepts tf-operator's sparse form
    ...
    done(global_step)                                  # prints "TRAINING_DONE global_step=N"

Exit-code contract: on SIGTERM the process runs on_term (bounded by `grace` seconds) and exits with
EXIT_SIGTERM = 143 (128 + SIGTERM), which the restart policy ExitCode retries (tf-operator's rule:
exit codes >= 128 are retryable, 1-127 permanent). A container's PID 1 ignores SIGTERM unless it
handles it, so without the handler a deleted pod only stops at the end of its grace period.
"""

import json
import math
import os
import re
import signal
import sys
import threading
import time as _time

__version__ = "0.1.0"  # the operator release this helper comes with (python/pyproject.toml)
PREFIX = "TFJOB_PROGRESS"
VERSION = 1
MAX_ABS_VALUE = 1e15
MAX_EPOCH = 1e9
MAX_TIME_SECONDS = 253402300799
MAX_LINE_LENGTH = 4096
_NAME = re.compile(r"^[A-Za-z0-9_.:/-]{1,64}$")
_MAX_STEP = 2**53 - 1
_warned = set()

__all__ = [
    "report",
    "format_line",
    "keras_callback",
    "PREFIX",
    "EXIT_SIGTERM",
    "install_sigterm_handler",
    "terminating",
    "tf_config",
    "cluster_dict",
    "done",
]

EXIT_SIGTERM = 128 + signal.SIGTERM  # 143: retryable under restartPolicy ExitCode
DONE_PREFIX = "TRAINING_DONE"


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


def _plan(value, field, limit):
    """A positive integer up to limit (the job's planned epochs or steps)."""
    if isinstance(value, bool):
        raise ValueError("%s is not an integer" % field)
    try:
        as_int = int(value)
    except (TypeError, ValueError):
        raise ValueError("%s is not an integer" % field)
    if as_int != value or not 1 <= as_int <= limit:
        raise ValueError("%s is not an integer in [1, %d]" % (field, limit))
    return as_int


def format_line(
    step, metric=None, name=None, higher_is_better=None, loss=None, epoch=None, target=None, time=None, epochs=None, total_steps=None
):
    """The protocol line for one report (without newline). Raises ValueError on a value the operator would reject.

    epochs, total_steps: the job's plan (how many epochs, or up to which global step, it means to
    train), shown as the share done and an ETA in status.progress.
    """
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
    if epochs is not None:
        obj["epochs"] = _plan(epochs, "epochs", int(MAX_EPOCH))
    if total_steps is not None:
        obj["totalSteps"] = _plan(total_steps, "total_steps", _MAX_STEP)
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


def report(
    step,
    metric=None,
    name=None,
    higher_is_better=None,
    loss=None,
    epoch=None,
    target=None,
    time=None,
    file=None,
    epochs=None,
    total_steps=None,
):
    """Print one progress line (flushed). Returns True if printed; never raises on a bad value."""
    if time is None:
        time = _time.time()
    try:
        line = format_line(step, metric, name, higher_is_better, loss, epoch, target, time, epochs, total_steps)
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
                **self._plan(),
            )

        def _plan(self):
            # fit()'s own plan: epochs, and steps per epoch when the dataset has a length.
            params = getattr(self, "params", None) or {}
            epochs, steps = params.get("epochs"), params.get("steps")
            plan = {}
            if isinstance(epochs, int) and epochs >= 1:
                plan["epochs"] = epochs
                if isinstance(steps, int) and steps >= 1:
                    plan["total_steps"] = epochs * steps
            return plan

    return TFJobProgress()


_term_lock = threading.Lock()
_watching = False
_term_event = threading.Event()


def terminating():
    """True once SIGTERM arrived (for loops that poll instead of relying on the exit)."""
    return _term_event.is_set()


def _terminate(on_term, exit_code, grace):
    _term_event.set()
    if not _term_lock.acquire(blocking=False):
        return  # the other path (signal handler or watcher thread) is already exiting
    print("SIGTERM: exiting with %d" % exit_code, file=sys.stderr, flush=True)
    if on_term is not None:
        # on_term may block (a checkpoint to a PS that is gone): exit anyway after `grace` seconds.
        timer = threading.Timer(grace, os._exit, (exit_code,))
        timer.daemon = True
        timer.start()
        try:
            on_term()
        except BaseException as err:  # noqa: BLE001 - exiting regardless
            print("SIGTERM: on_term failed: %r" % (err,), file=sys.stderr, flush=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(exit_code)


def install_sigterm_handler(on_term=None, exit_code=EXIT_SIGTERM, grace=10.0, signals=(signal.SIGTERM,)):
    """Exit promptly on SIGTERM: call on_term() (at most `grace` seconds), then os._exit(exit_code).

    Call it from the main thread, early, and again after creating a MultiWorkerMirroredStrategy:
    TensorFlow's preemption notifier (coordination service) replaces the process's SIGTERM handler
    with its own, which only logs "SIGTERM caught" and keeps running. A Python signal handler only runs when the main thread is
    back in the interpreter, which a thread blocked in a TensorFlow call (Session.run, server.join,
    a collective waiting for a dead peer) may never be; so the handler is also run from a watcher
    thread woken through signal.set_wakeup_fd. on_term runs in whichever of the two comes first,
    concurrently with the main thread: keep it to something thread-safe like saving a checkpoint.
    os._exit skips atexit and finally blocks on purpose (TensorFlow's can hang on a dead peer).
    """

    global _watching

    def handler(signum, frame):
        _terminate(on_term, exit_code, grace)

    for sig in signals:
        signal.signal(sig, handler)
    if _watching:
        return  # called again (after TensorFlow took the signal): the watcher thread is running
    _watching = True
    try:
        r, w = os.pipe()
        os.set_blocking(w, False)
        signal.set_wakeup_fd(w, warn_on_full_buffer=False)
    except (ValueError, OSError):  # not the main thread, or an fd already taken: the handler alone
        return

    def watch():
        while True:
            data = os.read(r, 64)
            if any(b in [int(s) for s in signals] for b in data):
                _terminate(on_term, exit_code, grace)

    threading.Thread(target=watch, name="tfjob-sigterm", daemon=True).start()


def tf_config(environ=None):
    """TF_CONFIG as a dict ({} when unset or empty)."""
    raw = (environ if environ is not None else os.environ).get("TF_CONFIG") or ""
    return json.loads(raw) if raw.strip() else {}


def cluster_dict(cfg):
    """`cfg["cluster"]` in a form tf.train.ClusterSpec takes: lists stay lists, tf-operator's sparse
    `{"<index>": "<address>"}` becomes `{index: address}` (int keys), empty types are dropped."""
    out = {}
    for name, tasks in (cfg.get("cluster") or {}).items():
        if isinstance(tasks, dict):
            tasks = {int(i): a for i, a in tasks.items()}
        if tasks:
            out[name] = tasks
    return out


def done(global_step, file=None):
    """Print the end line `TRAINING_DONE global_step=N` (flushed)."""
    out = file if file is not None else sys.stdout
    out.write("%s global_step=%d\n" % (DONE_PREFIX, int(global_step)))
    out.flush()


if __name__ == "__main__":
    # Smoke test from a shell: python3 tfjob_progress.py 100 0.5 accuracy
    args = sys.argv[1:]
    if len(args) != 3:
        print("usage: tfjob_progress.py STEP METRIC NAME (NAME must be a Keras built-in metric name)", file=sys.stderr)
        sys.exit(2)
    direction = _direction(args[2])
    sys.exit(0 if report(step=int(args[0]), metric=float(args[1]), name=args[2], higher_is_better=direction) else 1)
