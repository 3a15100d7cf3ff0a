"""What the Kubeflow Pipelines "Launch TFJob" component does, for the compatibility tests.

Behaviour reproduced from kubeflow/pipelines components/kubeflow/launcher/src/launch_tfjob.py and
components/kubeflow/common/launch_crd.py (written anew here, same observable API traffic):

1. Builds the TFJob the launcher builds: `spec.cleanPodPolicy` (default "Running"), and when given
   `spec.ttlSecondsAfterFinished`, `spec.backoffLimit` and `spec.activeDeadlineSecond` (sic) at the top
   level of spec (pre-v1.1 layout, pruned by today's structural CRD), plus tfReplicaSpecs PS, Chief,
   Worker and Evaluator from the JSON/YAML replica specs.
2. Creates it with the Kubernetes Python client's CustomObjectsApi, without a fieldValidation parameter.
3. Polls the TFJob until `status.conditions[-1]` has type Succeeded or Failed and status "True".
4. If deleteAfterDone, deletes it with body {"propagationPolicy": "Foreground"}.

Differences, for running outside a pod: the kubeconfig comes from --kubeconfig (the launcher uses the
in-cluster config), and the polling interval is --pollingIntervalSeconds (the launcher polls every 30 s).
Progress is printed as one JSON object per line on stdout; exit code 0 when the job reached a terminal
condition (and was deleted if asked), 1 on any error or timeout.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from typing import Any, Dict, Optional, Tuple

import yaml
from kubernetes import client, config

GROUP = "kubeflow.org"
PLURAL = "tfjobs"
TERMINAL = ("Succeeded", "Failed")


def emit(event: str, **fields: Any) -> None:
    print(json.dumps({"event": event, **fields}, default=str), flush=True)


def replica_spec(text: str) -> Optional[Dict[str, Any]]:
    if text is None or text == "":
        return None
    return yaml.safe_load(text)


def truthy(text: str) -> bool:
    return text.strip().lower() in ("1", "y", "yes", "t", "true", "on")


def build(args: argparse.Namespace) -> Dict[str, Any]:
    spec: Dict[str, Any] = {"cleanPodPolicy": args.cleanPodPolicy, "tfReplicaSpecs": {}}
    if args.ttlSecondsAfterFinished >= 0:
        spec["ttlSecondsAfterFinished"] = args.ttlSecondsAfterFinished
    if args.backoffLimit >= 0:
        spec["backoffLimit"] = args.backoffLimit
    if args.activeDeadlineSeconds >= 0:
        spec["activeDeadlineSecond"] = args.activeDeadlineSeconds  # the launcher's spelling
    for key, value in (("PS", args.psSpec), ("Chief", args.chiefSpec), ("Worker", args.workerSpec), ("Evaluator", args.evaluatorSpec)):
        if value:
            spec["tfReplicaSpecs"][key] = value
    return {
        "apiVersion": f"{GROUP}/{args.version}",
        "kind": "TFJob",
        "metadata": {"name": args.name, "namespace": args.namespace},
        "spec": spec,
    }


def last_condition(obj: Dict[str, Any]) -> Tuple[bool, str]:
    conditions = (obj.get("status") or {}).get("conditions") or []
    if not conditions:
        return False, ""
    last = conditions[-1]
    return last.get("type") in TERMINAL and last.get("status") == "True", last.get("type", "")


def main() -> int:
    p = argparse.ArgumentParser(description="Kubeflow Pipelines TFJob launcher, reproduced for tests")
    p.add_argument("--name", required=True)
    p.add_argument("--namespace", default="kubeflow")
    p.add_argument("--version", default="v1")
    p.add_argument("--activeDeadlineSeconds", type=int, default=-1)
    p.add_argument("--backoffLimit", type=int, default=-1)
    p.add_argument("--cleanPodPolicy", default="Running")
    p.add_argument("--ttlSecondsAfterFinished", type=int, default=-1)
    p.add_argument("--psSpec", type=replica_spec, default={})
    p.add_argument("--workerSpec", type=replica_spec, default={})
    p.add_argument("--chiefSpec", type=replica_spec, default={})
    p.add_argument("--evaluatorSpec", type=replica_spec, default={})
    p.add_argument("--deleteAfterDone", type=truthy, default=True)
    p.add_argument("--tfjobTimeoutMinutes", type=int, default=60 * 24)
    p.add_argument("--kubeconfig", required=True, help="not in the launcher, which uses the in-cluster config")
    p.add_argument("--pollingIntervalSeconds", type=float, default=30.0, help="the launcher polls every 30 s")
    p.add_argument("--print-manifest", action="store_true", help="print the TFJob the launcher would create and exit")
    args = p.parse_args()

    manifest = build(args)
    if args.print_manifest:
        print(json.dumps(manifest))
        return 0

    config.load_kube_config(config_file=args.kubeconfig)
    api = client.CustomObjectsApi(client.ApiClient())
    try:
        created = api.create_namespaced_custom_object(GROUP, args.version, args.namespace, PLURAL, manifest)
        emit("created", object=created)

        deadline = datetime.datetime.now() + datetime.timedelta(minutes=args.tfjobTimeoutMinutes)
        while True:
            obj = api.get_namespaced_custom_object(GROUP, args.version, args.namespace, PLURAL, args.name)
            done, last = last_condition(obj)
            emit("poll", last=last)
            if done:
                emit("reached", condition=last, status=obj.get("status"))
                break
            if datetime.datetime.now() + datetime.timedelta(seconds=args.pollingIntervalSeconds) > deadline:
                emit("error", message=f"timeout waiting for {args.namespace}/{args.name} to reach {list(TERMINAL)}")
                return 1
            time.sleep(args.pollingIntervalSeconds)

        if args.deleteAfterDone:
            deleted = api.delete_namespaced_custom_object(GROUP, args.version, args.namespace, PLURAL, args.name, body={"propagationPolicy": "Foreground"})
            emit("deleted", response=deleted)
    except client.ApiException as err:
        emit("error", status=err.status, reason=err.reason, body=err.body)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
