"""`tfmigrate launch-spec`: how to run the migrated program on a real cluster, which we do not run ourselves.

--engine tfjob   a Kubeflow training-operator TFJob (kubeflow.org/v1). The operator gives every pod its own
                 TF_CONFIG; `operator_tf_configs` derives them from a manifest the way the operator does
                 (cluster = every replica type but Evaluator, lower-cased, `<job>-<type>-<i>.<namespace>.svc:<port>`;
                 task = that pod's type and index), so a manifest can be checked against a local run.
--engine shell   one command line per task, TF_CONFIG spelled out, for a hand launch on N machines.

Task layout is verify's: --workers N trainers in total = Chief + N-1 Workers, --ps M parameter servers,
--evaluator one Evaluator. Pure standard library + PyYAML: no TensorFlow here.
"""
from __future__ import annotations

import json
import re
import shlex
from pathlib import Path, PurePosixPath

from . import cluster

API_VERSION, KIND = "kubeflow.org/v1", "TFJob"
CONTAINER = "tensorflow"  # the container name the operator looks for (it sets TF_CONFIG there)
PORT_NAME, DEFAULT_PORT = "tfjob-port", 2222
RESTART_POLICIES = ("OnFailure", "Never", "Always", "ExitCode")  # ReplicaSpec.restartPolicy in kubeflow.org/v1
REPLICA_TYPES = {"chief": "Chief", "worker": "Worker", "ps": "PS", "evaluator": "Evaluator"}


class LaunchSpecError(ValueError):
    pass


_PSS = re.compile(r"\bParameterServerStrategy(?:V2)?\s*\(")
_MWMS = re.compile(r"\bMultiWorkerMirroredStrategy\s*\(")


def program_kind(path: Path) -> str:
    """What the program is, as far as its launch goes: "estimator" (a TF1 original: not what a launch spec is
    for), "parameter-server" / "multi-worker" (the distribution strategy it builds), or "other"."""
    from tfmigrate.engine import Options, explain_paths

    try:
        if any("estimator" in plan for plan in explain_paths([path], Options())):
            return "estimator"
    except Exception:  # unparsable: the strategy search below still says what it can
        pass
    code = "\n".join(line.split("#", 1)[0] for line in path.read_text(errors="replace").splitlines())
    if _PSS.search(code):
        return "parameter-server"
    if _MWMS.search(code):
        return "multi-worker"
    return "other"


def check_layout(path: Path, kind: str, ps: int | None) -> tuple[int, list[str]]:
    """The --ps to use for the program (default: 1 for a ParameterServerStrategy program, else 0) and notes;
    refuses a layout the program cannot run in."""
    notes = []
    if kind == "estimator":
        raise LaunchSpecError(f"{path} is a TF1 Estimator program: launch-spec writes how to run the migrated TF2 "
                              "program (tfmigrate rewrite first, then launch-spec on its output)")
    if ps is None:
        ps = 1 if kind == "parameter-server" else 0
        if ps:
            notes.append(f"note: {path.name} builds a ParameterServerStrategy: --ps 1 (one parameter server)")
    if ps and kind != "parameter-server":
        what = "a MultiWorkerMirroredStrategy" if kind == "multi-worker" else "no ParameterServerStrategy"
        raise LaunchSpecError(f"--ps {ps}: {path.name} builds {what}, so parameter servers would take no part in "
                              "training (and keep the job from finishing); leave --ps out")
    if kind == "parameter-server" and ps == 0:
        raise LaunchSpecError(f"--ps 0: {path.name} builds a ParameterServerStrategy, which needs parameter "
                              "servers; give --ps M (M >= 1)")
    return ps, notes


def _counts(workers: int, ps: int, evaluator: bool) -> dict[str, int]:
    if workers < 1:
        raise LaunchSpecError("--workers counts the trainers (chief + workers): at least 1")
    if ps < 0:
        raise LaunchSpecError("--ps cannot be negative")
    tasks = cluster.layout(workers, ps, evaluator)
    counts: dict[str, int] = {}
    for t in tasks:
        counts[t.type] = counts.get(t.type, 0) + 1
    return counts


def command_line(program: str, args: list[str], python: str = "python") -> list[str]:
    return [python, program, *args]


def tfjob(name: str, program: str, args: list[str], workers: int, ps: int = 0, evaluator: bool = False,
          image: str = "IMAGE", namespace: str | None = None, restart_policy: str = "OnFailure",
          workdir: str | None = None, python: str = "python", port: int = DEFAULT_PORT) -> dict:
    """The TFJob manifest as a dict (YAML-ready)."""
    if restart_policy not in RESTART_POLICIES:
        raise LaunchSpecError(f"--restart-policy must be one of {', '.join(RESTART_POLICIES)}")
    if not _valid_name(name):
        raise LaunchSpecError(f"job name {name!r} is not a Kubernetes name (lower-case letters, digits, '-')")
    specs = {}
    for kind, n in _counts(workers, ps, evaluator).items():
        container = {"name": CONTAINER, "image": image, "command": [python, program]}
        if args:
            container["args"] = list(args)
        container["ports"] = [{"name": PORT_NAME, "containerPort": port}]
        if workdir:
            container["workingDir"] = workdir
        specs[REPLICA_TYPES[kind]] = {
            "replicas": n,
            "restartPolicy": restart_policy,
            "template": {
                # Istio's sidecar keeps TFJob pods from talking to each other (Kubeflow's TFJob guide)
                "metadata": {"annotations": {"sidecar.istio.io/inject": "false"}},
                "spec": {"containers": [container]},
            },
        }
    metadata: dict = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    # runPolicy is a required field of TFJobSpec; cleanPodPolicy Running (the operator's default, spelled out):
    # once the job is done, pods still running (parameter servers never exit on their own) are deleted
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": metadata,
            "spec": {"runPolicy": {"cleanPodPolicy": "Running"}, "tfReplicaSpecs": specs}}


def _valid_name(name: str) -> bool:
    import re

    return bool(re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", name)) and len(name) <= 63


def job_name(program: str) -> str:
    import re

    stem = PurePosixPath(program).stem.lower()
    return (re.sub(r"[^a-z0-9]+", "-", stem).strip("-") or "tfmigrate")[:50]


def to_yaml(manifest: dict) -> str:
    import yaml

    return yaml.safe_dump(manifest, sort_keys=False, default_flow_style=False)


def operator_tf_configs(manifest: dict, namespace: str = "default",
                        address: dict[str, str] | None = None) -> dict[str, dict]:
    """{"chief-0": TF_CONFIG, ...} as the training-operator sets them in each pod. `address` maps a service
    host name (`<job>-<type>-<i>.<ns>.svc:<port>`) to another address (a local run: 127.0.0.1 ports)."""
    name = manifest["metadata"]["name"]
    namespace = manifest["metadata"].get("namespace", namespace)
    specs = manifest["spec"]["tfReplicaSpecs"]
    spec: dict[str, list[str]] = {}
    for rtype, rs in specs.items():
        if rtype == "Evaluator":  # not a member of the training cluster (the operator skips it, as TF does)
            continue
        port = _port(rs)
        rt = rtype.lower()
        hosts = [f"{name}-{rt}-{i}.{namespace}.svc:{port}" for i in range(rs["replicas"])]
        spec[rt] = [(address or {}).get(h, h) for h in hosts]
    out = {}
    for rtype, rs in specs.items():
        for i in range(rs["replicas"]):
            out[f"{rtype.lower()}-{i}"] = {"cluster": spec, "task": {"type": rtype.lower(), "index": i},
                                           "environment": "cloud"}
    return out


def _port(replica_spec: dict) -> int:
    for c in replica_spec["template"]["spec"]["containers"]:
        if c.get("name") == CONTAINER:
            for p in c.get("ports", []):
                if p.get("name") == PORT_NAME:
                    return int(p["containerPort"])
    return DEFAULT_PORT


def shell(program: str, args: list[str], workers: int, ps: int = 0, evaluator: bool = False,
          hosts: list[str] | None = None, port: int = DEFAULT_PORT, python: str = "python") -> str:
    """A script-like listing: one line per task, each with its TF_CONFIG, to start by hand on its machine."""
    tasks = cluster.layout(workers, ps, evaluator)
    members = [t for t in tasks if t.type != "evaluator"]
    if hosts:
        if len(hosts) != len(members):
            raise LaunchSpecError(f"--hosts names {len(hosts)} machines; the cluster has {len(members)} members "
                                  f"({', '.join(t.name for t in members)})")
        addrs = [h if ":" in h else f"{h}:{port}" for h in hosts]
    else:  # one machine: distinct ports
        addrs = [f"localhost:{port + i}" for i in range(len(members))]
    spec: dict[str, list[str]] = {}
    for t, a in zip(members, addrs):
        spec.setdefault(t.type, []).append(a)
    cmd = " ".join(shlex.quote(x) for x in command_line(program, args, python))
    lines = ["# Start every task (any order; each waits for the others). The evaluator is not a cluster member.",
             "# TF_CONFIG from your shell must not leak in: each line sets its own."]
    for t in tasks:
        cfg = json.dumps({"cluster": spec, "task": {"type": t.type, "index": t.index}}, separators=(",", ":"))
        where = f" on {addrs[members.index(t)].rsplit(':', 1)[0]}" if t in members else ""
        lines.append(f"# {t.name}{where}")
        lines.append(f"TF_CONFIG={shlex.quote(cfg)} {cmd}")
    return "\n".join(lines) + "\n"
