"""Makes one replica exit once with a chosen code, to test what happens to a failed replica. Off by default.

FAIL_ONCE="<type>:<index>:<exit code>:<step>", e.g. "worker:2:137:60": replica worker 2 exits with 137
the first time training reaches global step 60. A replica that runs the training loop (ps_v1.py
workers) reads the step itself (`check`); one that only serves (ParameterServerStrategy workers)
watches CKPT_DIR for the chief's checkpoint at that step or later (`arm`). A marker file in
CKPT_DIR (else /tmp) makes it once: the same replica started again in its slot trains normally.
"""
import glob
import os
import re
import sys
import threading
import time


def _plan(job, idx):
    spec = os.environ.get("FAIL_ONCE", "")
    if not spec:
        return None
    kind, index, code, step = spec.split(":")
    if kind != job or int(index) != idx:
        return None
    marker = os.path.join(os.environ.get("CKPT_DIR") or "/tmp", "failed-once-%s-%d" % (job, idx))
    if os.path.exists(marker):
        print("FAIL_ONCE: %s %d failed once already, running normally" % (job, idx), flush=True)
        return None
    return int(code), int(step), marker


def _exit(job, idx, code, step, marker):
    open(marker, "w").close()
    print("FAIL_ONCE: %s %d exits %d at global step %d" % (job, idx, code, step), flush=True)
    os._exit(code)


def check(job, idx, step):
    """Call from the training loop with the current global step."""
    plan = _plan(job, idx)
    if plan is not None and step >= plan[1]:
        _exit(job, idx, plan[0], step, plan[2])


def _checkpointed_step(ckpt_dir):
    steps = [int(m.group(1)) for f in glob.glob(os.path.join(ckpt_dir, "ckpt-*.index")) for m in [re.search(r"ckpt-(\d+)\.index$", f)] if m]
    return max(steps, default=-1)


def arm(job, idx):
    """For a replica without a training loop: exits once the chief's checkpoint reaches the step."""
    plan = _plan(job, idx)
    ckpt_dir = os.environ.get("CKPT_DIR")
    if plan is None:
        return
    if not ckpt_dir:
        print("FAIL_ONCE needs CKPT_DIR for a replica without a training loop", file=sys.stderr, flush=True)
        return

    def watch():
        while True:
            step = _checkpointed_step(ckpt_dir)
            if step >= plan[1]:
                _exit(job, idx, plan[0], step, plan[2])
            time.sleep(0.5)

    threading.Thread(target=watch, daemon=True).start()
