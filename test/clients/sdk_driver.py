"""Drives the Kubeflow training SDK (kubeflow-training 1.8.x) for the TypeScript tests.

Reads one JSON request per line on stdin and answers each with one JSON line on stdout:

    {"id": 1, "op": "init", "args": {"config_file": "...", "namespace": "ns", "job_kind": "TFJob"}}
    {"id": 1, "ok": true, "type": "dict", "value": {"namespace": "ns", "job_kind": "TFJob"}}

    {"id": 2, "op": "call", "args": {"method": "get_job_pod_names", "kwargs": {"name": "x", "is_master": true}}}
    {"id": 2, "ok": true, "type": "list[str]", "value": ["x-worker-0"]}

A failing SDK call answers {"id": n, "ok": false, "error": {"type", "message", "cause_type", "cause"}}.
Values are what the SDK returned, turned into JSON by the SDK's own ApiClient.sanitize_for_serialization
(so models appear with their Kubernetes field names, e.g. status.replicaStatuses), and "type" names the
Python type the SDK returned. Nothing here reimplements an SDK call: every "call" is one public
TrainingClient method with the given keyword arguments. Diagnostics go to stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import traceback
from typing import Any, Callable, Dict, List, Optional

import yaml
from kubernetes import client as k8s
from kubeflow.training import TrainingClient, models
from kubeflow.training.api_client import ApiClient
from kubeflow.training.utils import utils

# Public TrainingClient methods the tests may call with plain JSON keyword arguments.
CALLABLE = {
    "get_job",
    "list_jobs",
    "get_job_conditions",
    "is_job_created",
    "is_job_running",
    "is_job_restarting",
    "is_job_succeeded",
    "is_job_failed",
    "wait_for_job_conditions",
    "get_job_pods",
    "get_job_pod_names",
    "get_job_logs",
    "delete_job",
}

api = ApiClient()
clients: Dict[str, TrainingClient] = {}
# What a wait_for_job_conditions callback saw during the current request (condition lists per poll).
callback_saw: List[List[str]] = []


def to_json(value: Any) -> Any:
    return api.sanitize_for_serialization(value)


def type_name(value: Any) -> str:
    if isinstance(value, list):
        inner = sorted({type(v).__name__ for v in value})
        return f"list[{'|'.join(inner)}]" if inner else "list"
    if isinstance(value, tuple):
        return f"tuple[{', '.join(type_name(v) for v in value)}]"
    if isinstance(value, dict):
        return "dict"
    return type(value).__name__


def tfjob_from_dict(manifest: Dict[str, Any]) -> models.KubeflowOrgV1TFJob:
    """A manifest (as read from YAML) as the SDK's TFJob model, by the SDK's own deserializer."""
    return api.deserialize(utils.FakeResponse(manifest), "KubeflowOrgV1TFJob")


def tfjob_from_models(args: Dict[str, Any]) -> models.KubeflowOrgV1TFJob:
    """A TFJob written the way the SDK's documentation writes one: nested model objects."""
    container = k8s.V1Container(
        name="tensorflow",
        image=args.get("image", "docker.io/tensorflow/tensorflow:2.9.1"),
        command=args.get("command"),
        resources=k8s.V1ResourceRequirements(requests=args.get("requests", {"cpu": "100m", "memory": "64Mi"})),
    )
    specs = {
        replica_type: models.KubeflowOrgV1ReplicaSpec(
            replicas=count,
            restart_policy=args.get("restart_policy", "Never"),
            template=k8s.V1PodTemplateSpec(
                metadata=k8s.V1ObjectMeta(annotations={"sidecar.istio.io/inject": "false"}),
                spec=k8s.V1PodSpec(containers=[container]),
            ),
        )
        for replica_type, count in args["replicas"].items()
    }
    return models.KubeflowOrgV1TFJob(
        api_version="kubeflow.org/v1",
        kind="TFJob",
        metadata=k8s.V1ObjectMeta(name=args["name"], labels=args.get("labels")),
        spec=models.KubeflowOrgV1TFJobSpec(
            run_policy=models.KubeflowOrgV1RunPolicy(clean_pod_policy=args.get("clean_pod_policy", "None")),
            tf_replica_specs=specs,
        ),
    )


def train_func(parameters: Dict[str, Any]) -> None:
    """The training function shipped to the pods by create_job(train_func=...)."""
    import json as _json
    import os

    print("TF_CONFIG", os.environ.get("TF_CONFIG"), "parameters", _json.dumps(parameters))


def get_client(args: Dict[str, Any]) -> TrainingClient:
    name = args.get("client", "default")
    if name not in clients:
        raise KeyError(f"no TrainingClient named {name!r}: send an init first")
    return clients[name]


def set_path(obj: Any, path: List[str], value: Any) -> None:
    """Sets obj.a.b[c]... = value, walking model attributes (snake_case) and dict keys."""
    for key in path[:-1]:
        obj = obj[key] if isinstance(obj, dict) else getattr(obj, key)
    last = path[-1]
    if isinstance(obj, dict):
        obj[last] = value
    else:
        setattr(obj, last, value)


def resolve(c: TrainingClient, kwargs: Dict[str, Any]) -> Dict[str, Any]:
    out = dict(kwargs)
    # {"job": {"$fetch": "<name>"}} passes the SDK's own get_job result as the `job` argument.
    job = out.get("job")
    if isinstance(job, dict) and set(job) == {"$fetch"}:
        out["job"] = c.get_job(job["$fetch"])
    if "expected_conditions" in out:
        out["expected_conditions"] = set(out["expected_conditions"])
    if isinstance(out.get("delete_options"), dict):
        out["delete_options"] = models.V1DeleteOptions(**out["delete_options"])
    return out


def op_init(args: Dict[str, Any]) -> Any:
    kwargs = {k: v for k, v in args.items() if k in ("config_file", "context", "namespace", "job_kind")}
    c = TrainingClient(**kwargs)
    clients[args.get("as", "default")] = c
    return {"namespace": c.namespace, "job_kind": c.job_kind}


def op_call(args: Dict[str, Any]) -> Any:
    method = args["method"]
    if method not in CALLABLE:
        raise ValueError(f"{method} is not a TrainingClient method these tests call")
    c = get_client(args)
    kwargs = resolve(c, args.get("kwargs", {}))
    if kwargs.pop("record_callback", False):
        # The callback receives the polled job; record the condition list it saw each time.
        kwargs["callback"] = lambda job: callback_saw.append(
            [f"{x.type}={x.status}" for x in ((job.status.conditions or []) if job.status else [])]
        )
    return getattr(c, method)(**kwargs)


def op_create_from_models(args: Dict[str, Any]) -> Any:
    c = get_client(args)
    return c.create_job(job=tfjob_from_models(args), namespace=args.get("namespace"))


def op_create_from_yaml(args: Dict[str, Any]) -> Any:
    c = get_client(args)
    with open(args["path"], encoding="utf-8") as f:
        manifest = yaml.safe_load(f)
    if "name" in args:
        manifest["metadata"]["name"] = args["name"]
    return c.create_job(job=tfjob_from_dict(manifest), namespace=args.get("namespace"))


def op_create_from_image(args: Dict[str, Any]) -> Any:
    c = get_client(args)
    keys = ("name", "namespace", "job_kind", "base_image", "num_workers", "num_ps_replicas", "num_chief_replicas", "resources_per_worker")
    return c.create_job(**{k: args[k] for k in keys if k in args})


def op_create_from_func(args: Dict[str, Any]) -> Any:
    c = get_client(args)
    keys = ("name", "namespace", "job_kind", "base_image", "num_workers", "parameters", "packages_to_install", "resources_per_worker")
    return c.create_job(train_func=train_func, **{k: args[k] for k in keys if k in args})


def op_update(args: Dict[str, Any]) -> Any:
    """update_job as the upstream e2e test uses it: get_job, change fields, update_job(job, name)."""
    c = get_client(args)
    job = c.get_job(args["name"])
    for path, value in args["set"]:
        set_path(job, path, value)
    return c.update_job(job, args["name"])


OPS: Dict[str, Callable[[Dict[str, Any]], Any]] = {
    "init": op_init,
    "call": op_call,
    "create_from_models": op_create_from_models,
    "create_from_yaml": op_create_from_yaml,
    "create_from_image": op_create_from_image,
    "create_from_func": op_create_from_func,
    "update": op_update,
}


def answer(request: Dict[str, Any]) -> Dict[str, Any]:
    rid: Optional[int] = request.get("id")
    callback_saw.clear()
    try:
        value = OPS[request["op"]](request.get("args", {}))
    except Exception as err:  # noqa: BLE001 - every SDK error is reported to the test as data
        cause = err.__cause__ or err.__context__
        logging.debug("request %s failed:\n%s", rid, traceback.format_exc())
        return {
            "id": rid,
            "ok": False,
            "error": {
                "type": type(err).__name__,
                "message": str(err),
                "cause_type": type(cause).__name__ if cause is not None else None,
                "cause": str(cause)[:2000] if cause is not None else None,
            },
        }
    reply = {"id": rid, "ok": True, "type": type_name(value), "value": to_json(value)}
    if callback_saw:
        reply["callback_saw"] = list(callback_saw)
    return reply


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log-level", default="WARNING")
    opts = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=opts.log_level, format="[sdk-driver] %(levelname)s %(name)s: %(message)s")
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line))
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
