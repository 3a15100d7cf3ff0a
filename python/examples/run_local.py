"""Run an elastic-TFJob scenario with plain processes on 127.0.0.1 (no Kubernetes).

Each replica is a process whose TF_CONFIG has the shape the operator writes, with localhost ports
for the service names. Scenarios:
  scale    start --workers workers, kill the highest down to --scale-to (SIGTERM, like a pod
           deletion), train on, start them again, run to STEPS.
  suspend  start everything, kill everything at --at step, start everything again from CKPT_DIR.
Contracts (TF_CONFIG per replica, see docs/elastic-contract.md):
  elastic  every replica: the full cluster, worker slots 0..max-1 (the operator's elastic form)
  sparse   tf-operator's enableDynamicWorker form (worker: itself + PS; PS: itself; others: nothing)
  hybrid   PS/chief/evaluator: full cluster with slots; workers: the sparse form
Example:
  python run_local.py --python /tmp/tf221/bin/python --script ps_v1.py --ps 1 --workers 3 --max 3 \\
      --steps 300 --scenario scale --contract elastic --out /tmp/run-psv1
Prints a JSON summary line `SUMMARY {...}` at the end; logs are in --out.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRESS = re.compile(r"TFJOB_PROGRESS (\{.*\})")
DONE = re.compile(r"TRAINING_DONE global_step=(\d+)")


def tf_config(contract, counts, max_workers, port, rtype, index):
    """counts: lowercase type -> replicas (worker = current); port(type, i) -> address."""
    def full():
        cluster = {}
        for t in sorted(counts):
            n = max_workers if t == "worker" else counts[t]
            cluster[t] = [port(t, i) for i in range(n)]
        return cluster

    task = {"type": rtype, "index": index}
    if contract == "elastic" or (contract == "hybrid" and rtype != "worker"):
        return json.dumps({"cluster": full(), "task": task, "environment": "cloud"}, separators=(",", ":"))
    ps_all = [port("ps", i) for i in range(counts.get("ps", 0))] if "ps" in counts else None
    if rtype == "worker":
        cluster = {"worker": {str(index): port("worker", index)}, "ps": ps_all}
    elif rtype == "ps":
        cluster = {"worker": {}, "ps": [port("ps", index)]}
    else:
        cluster = {"worker": {}, "ps": []}
    return json.dumps({"cluster": cluster, "task": task}, separators=(",", ":"))


class Job:
    def __init__(self, a):
        self.a = a
        self.counts = {"worker": a.workers}
        if a.ps:
            self.counts["ps"] = a.ps
        if a.chief:
            self.counts["chief"] = 1
        if a.evaluator:
            self.counts["evaluator"] = 1
        self.bases = {"chief": a.port, "ps": a.port + 10, "worker": a.port + 20, "evaluator": a.port + 90}
        self.procs = {}
        self.events = []
        self.t0 = time.time()
        os.makedirs(a.out, exist_ok=True)

    def addr(self, t, i):
        return "localhost:%d" % (self.bases[t] + i)

    def log(self, what, **kw):
        e = dict(t=round(time.time() - self.t0, 1), event=what, **kw)
        self.events.append(e)
        print("EVENT", json.dumps(e), flush=True)

    def start(self, t, i, gen):
        env = dict(os.environ)
        env["TF_CONFIG"] = tf_config(self.a.contract, self.counts, self.a.max, self.addr, t, i)
        env.update(STEPS=str(self.a.steps), STEP_SLEEP=str(self.a.sleep), PYTHONUNBUFFERED="1", CUDA_VISIBLE_DEVICES="")
        env["TF_CPP_MIN_LOG_LEVEL"] = env.get("TF_CPP_MIN_LOG_LEVEL", "1")
        if self.a.ckpt:
            env["CKPT_DIR"] = self.a.ckpt
        f = open(os.path.join(self.a.out, "%s-%d.%d.log" % (t, i, gen)), "w")
        p = subprocess.Popen(
            ["timeout", "-s", "KILL", str(self.a.timeout), self.a.python, os.path.join(HERE, self.a.script)],
            env=env, stdout=f, stderr=subprocess.STDOUT, start_new_session=True,
        )
        self.procs[(t, i)] = (p, f.name)
        self.log("start", replica="%s-%d" % (t, i), pid=p.pid)

    def stop(self, t, i, grace=10):
        if (t, i) not in self.procs:
            return
        p, _ = self.procs.pop((t, i))
        t1 = time.time()
        # timeout(1) forwards SIGTERM to its child; kill the group after the grace period.
        p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(grace)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            rc = p.wait()
        self.log("stop", replica="%s-%d" % (t, i), rc=rc, seconds=round(time.time() - t1, 2))

    def cpu(self):
        out = {}
        for (t, i), (p, _) in self.procs.items():
            try:
                kids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
                fields = open("/proc/%s/stat" % kids[0]).read().rsplit(")", 1)[1].split()
                out["%s-%d" % (t, i)] = round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 1)
            except (IndexError, OSError):
                out["%s-%d" % (t, i)] = None
        return out

    def steps(self):
        best, done = -1, None
        for name in os.listdir(self.a.out):
            if not name.endswith(".log"):
                continue
            for line in open(os.path.join(self.a.out, name), errors="replace"):
                m = PROGRESS.search(line)
                if m:
                    best = max(best, json.loads(m.group(1))["step"])
                d = DONE.search(line)
                if d and name.startswith(self.a.progress_replica):
                    done = int(d.group(1))
        return best, done

    def last_step_of(self, prefix):
        best = -1
        for name in os.listdir(self.a.out):
            if name.startswith(prefix):
                for line in open(os.path.join(self.a.out, name), errors="replace"):
                    m = PROGRESS.search(line)
                    if m:
                        best = max(best, json.loads(m.group(1))["step"])
        return best

    def wait_step(self, target, limit, label):
        end = time.time() + limit
        while time.time() < end:
            s, d = self.steps()
            if s >= target or d is not None:
                self.log("reached", label=label, step=s, done=d)
                return True
            dead = [k for k, (p, _) in self.procs.items() if p.poll() is not None]
            for k in dead:
                p, name = self.procs.pop(k)
                self.log("exited", replica="%s-%d" % k, rc=p.returncode, tail=open(name, errors="replace").read()[-600:])
            time.sleep(1)
        self.log("timeout", label=label, step=self.steps()[0], cpu=self.cpu())
        return False

    def all_types(self):
        order = [("ps", self.counts.get("ps", 0)), ("chief", self.counts.get("chief", 0)), ("evaluator", self.counts.get("evaluator", 0))]
        return [(t, i) for t, n in order for i in range(n)] + [("worker", i) for i in range(self.a.workers)]

    def stop_all(self):
        for k in list(self.procs):
            self.stop(*k)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--script", required=True)
    ap.add_argument("--contract", default="elastic", choices=["elastic", "sparse", "hybrid"])
    ap.add_argument("--scenario", default="scale", choices=["scale", "suspend", "start-small"])
    ap.add_argument("--ps", type=int, default=1)
    ap.add_argument("--chief", type=int, default=0)
    ap.add_argument("--evaluator", type=int, default=0)
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument("--max", type=int, default=3)
    ap.add_argument("--scale-to", type=int, default=1)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--sleep", type=float, default=0.05)
    ap.add_argument("--at", type=int, default=60, help="step at which to scale in / suspend")
    ap.add_argument("--during", type=int, default=60, help="steps to train while scaled in")
    ap.add_argument("--port", type=int, default=23000)
    ap.add_argument("--timeout", type=int, default=600, help="per-process hard limit (seconds)")
    ap.add_argument("--phase-timeout", type=int, default=180)
    ap.add_argument("--small-timeout", type=int, default=60, help="start-small: how long to wait for progress below max")
    ap.add_argument("--progress-replica", default="worker-0")
    ap.add_argument("--ckpt", default=None)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    if a.ckpt:
        shutil.rmtree(a.ckpt, ignore_errors=True)
    job = Job(a)
    result = {"script": a.script, "contract": a.contract, "scenario": a.scenario, "ok": False}
    try:
        if a.scenario == "start-small":
            # Start below max: slots scale_to..max-1 absent from the start, then add them.
            job.a.workers = a.scale_to
            for t, i in job.all_types():
                job.start(t, i, 0)
            ok = job.wait_step(a.at, a.small_timeout, "small")
            result["trains_small"] = ok
            for i in range(a.scale_to, a.max):
                job.start("worker", i, 1)
            job.a.workers = a.max
            ok = job.wait_step(a.steps, a.phase_timeout, "done") and ok
        elif a.scenario == "scale":
            for t, i in job.all_types():
                job.start(t, i, 0)
            ok = job.wait_step(a.at, a.phase_timeout, "before-scale-in")
            result["cpu_before"] = job.cpu()
            for i in range(a.workers - 1, a.scale_to - 1, -1):
                job.stop("worker", i)
            s0 = job.steps()[0]
            ok_in = ok and job.wait_step(s0 + a.during, a.phase_timeout, "scaled-in")
            result["scale_in_trains"] = ok_in
            result["cpu_scaled_in"] = job.cpu()
            for i in range(a.scale_to, a.workers):
                job.start("worker", i, 1)
            ok_out = ok_in and job.wait_step(a.steps, a.phase_timeout, "done")
            result["cpu_end"] = job.cpu()
            result["scaled_out_worker_steps"] = {
                "worker-%d" % i: job.last_step_of("worker-%d.1" % i) for i in range(a.scale_to, a.workers)
            }
            ok = ok_out
        else:
            for t, i in job.all_types():
                job.start(t, i, 0)
            ok = job.wait_step(a.at, a.phase_timeout, "before-suspend")
            job.stop_all()
            result["step_at_suspend"] = job.steps()[0]
            for t, i in job.all_types():
                job.start(t, i, 1)
            ok = ok and job.wait_step(a.steps, a.phase_timeout, "done")
            first = None
            for line in open(os.path.join(a.out, "%s.1.log" % a.progress_replica), errors="replace"):
                m = PROGRESS.search(line)
                if m:
                    first = json.loads(m.group(1))["step"]
                    break
            result["first_step_after_resume"] = first
        time.sleep(3)
        result["final_step"], result["done"] = job.steps()
        result["ok"] = bool(ok and result["done"] is not None)
    finally:
        job.stop_all()
        result["seconds"] = round(time.time() - job.t0, 1)
        print("SUMMARY", json.dumps(result), flush=True)
        with open(os.path.join(a.out, "summary.json"), "w") as f:
            json.dump({"result": result, "events": job.events}, f, indent=1)


if __name__ == "__main__":
    main()
