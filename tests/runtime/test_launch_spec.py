"""`tfmigrate launch-spec`: a Kubeflow TFJob manifest (kubeflow.org/v1) and per-task shell commands.

The manifest is checked two ways: round-tripped through the kubeflow-training SDK's models (generated from the
operator's OpenAPI spec; skipped without the SDK), and against a JSON schema written from the training-operator's
v1 API (TFJobSpec.tfReplicaSpecs: map of Chief/Worker/PS/Evaluator to ReplicaSpec with
replicas, restartPolicy in {Always, OnFailure, Never, ExitCode}, template: a PodTemplateSpec whose container
named "tensorflow" runs the program). The TF_CONFIG each pod gets is derived the way the operator derives it,
and one test runs the migrated program on a local cluster with exactly those TF_CONFIGs.
"""
from __future__ import annotations

import json
import shlex
from pathlib import Path

import jsonschema
import pytest
import yaml
from typer.testing import CliRunner

from tfmigrate.cli import app
from tfmigrate.runtime import launch

DATA = Path(__file__).parent / "data"
PROGRAM = DATA / "regression_ctl.py"  # MultiWorkerMirroredStrategy
# ParameterServerStrategy: a layout with --ps is for such a program (launch-spec refuses ps for an MWMS one)
PS_PROGRAM = Path(__file__).resolve().parents[2] / "fixtures" / "ps_embedding" / "migrated.py"

CONTAINER = {
    "type": "object",
    "required": ["name", "image", "command"],
    "properties": {
        "name": {"type": "string"}, "image": {"type": "string", "minLength": 1},
        "command": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "args": {"type": "array", "items": {"type": "string"}},
        "workingDir": {"type": "string"},
        "env": {"type": "array", "items": {"type": "object", "required": ["name"],
                                           "properties": {"name": {"not": {"const": "TF_CONFIG"}}}}},
        "ports": {"type": "array", "items": {"type": "object", "required": ["containerPort"],
                                             "properties": {"name": {"type": "string"},
                                                            "containerPort": {"type": "integer", "minimum": 1,
                                                                              "maximum": 65535}}}},
    },
}
REPLICA = {
    "type": "object",
    "required": ["replicas", "template"],
    "additionalProperties": False,
    "properties": {
        "replicas": {"type": "integer", "minimum": 1},
        "restartPolicy": {"enum": ["Always", "OnFailure", "Never", "ExitCode"]},
        "template": {"type": "object", "required": ["spec"], "properties": {
            "metadata": {"type": "object"},
            "spec": {"type": "object", "required": ["containers"], "properties": {
                "containers": {"type": "array", "minItems": 1, "items": CONTAINER,
                               "contains": {"properties": {"name": {"const": "tensorflow"}}}}}}}},
    },
}
TFJOB_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "kubeflow.org/v1"},
        "kind": {"const": "TFJob"},
        "metadata": {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "maxLength": 63},
            "namespace": {"type": "string"}}},
        "spec": {"type": "object", "required": ["runPolicy", "tfReplicaSpecs"], "properties": {
            "tfReplicaSpecs": {"type": "object", "minProperties": 1, "additionalProperties": False,
                               "properties": {k: REPLICA for k in ("Chief", "Master", "Worker", "PS", "Evaluator")}},
            "runPolicy": {"type": "object", "properties": {
                "cleanPodPolicy": {"enum": ["All", "Running", "None"]}}}}},
    },
}


def _cli(*args):
    r = CliRunner().invoke(app, ["launch-spec", *map(str, args)])
    return r.exit_code, r.stdout, r.stderr


def test_tfjob_manifest_parses_and_matches_the_v1_schema(tmp_path):
    out = tmp_path / "job.yaml"
    code, _, err = _cli(PS_PROGRAM, "--engine", "tfjob", "--workers", "3", "--ps", "2", "--evaluator",
                        "--image", "registry.example/trainer:1", "--namespace", "ml", "--program-path",
                        "/app/regression_ctl.py", "-o", out, "--", "--steps", "100")
    assert code == 0, err
    doc = yaml.safe_load(out.read_text())
    jsonschema.validate(doc, TFJOB_SCHEMA)
    specs = doc["spec"]["tfReplicaSpecs"]
    assert {k: v["replicas"] for k, v in specs.items()} == {"Chief": 1, "Worker": 2, "PS": 2, "Evaluator": 1}
    assert doc["metadata"] == {"name": "regression-ctl", "namespace": "ml"}
    for rs in specs.values():
        (c,) = rs["template"]["spec"]["containers"]
        assert rs["restartPolicy"] == "OnFailure"
        assert c["name"] == "tensorflow" and c["image"] == "registry.example/trainer:1"
        assert c["command"] == ["python", "/app/regression_ctl.py"] and c["args"] == ["--steps", "100"]
        assert "env" not in c  # TF_CONFIG is the operator's to set
        assert c["ports"] == [{"name": "tfjob-port", "containerPort": 2222}]


def test_manifest_round_trips_through_the_kubeflow_training_sdk_models():
    """The SDK's generated models (kubeflow-training, from the operator's OpenAPI spec): deserializing checks the
    required fields (runPolicy, a container's name ...), and serializing back drops every field the models do
    not know, so an equal round trip means every field of the manifest is part of the v1 API."""
    pytest.importorskip("kubeflow.training", reason="pip install kubeflow-training")
    from kubeflow.training.api_client import ApiClient

    class Response:  # what ApiClient.deserialize reads
        def __init__(self, doc):
            self.data = json.dumps(doc)

    api = ApiClient()
    doc = yaml.safe_load(launch.to_yaml(launch.tfjob("job", "/app/p.py", ["--steps", "5"], workers=3, ps=1,
                                                     evaluator=True, namespace="ml", workdir="/app")))
    job = api.deserialize(Response(doc), "KubeflowOrgV1TFJob")
    assert type(job).__name__ == "KubeflowOrgV1TFJob"
    assert set(job.spec.tf_replica_specs) == {"Chief", "Worker", "PS", "Evaluator"}
    assert api.sanitize_for_serialization(job) == doc
    unknown = json.loads(json.dumps(doc))
    unknown["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"][0]["bogus"] = 1
    assert api.sanitize_for_serialization(api.deserialize(Response(unknown), "KubeflowOrgV1TFJob")) != unknown
    nameless = json.loads(json.dumps(doc))
    del nameless["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"][0]["name"]
    with pytest.raises(ValueError):
        api.deserialize(Response(nameless), "KubeflowOrgV1TFJob")


def test_single_trainer_is_a_lone_chief_and_no_args_means_no_args_field():
    doc = launch.tfjob("job", "p.py", [], workers=1)
    jsonschema.validate(doc, TFJOB_SCHEMA)
    assert list(doc["spec"]["tfReplicaSpecs"]) == ["Chief"]
    assert "args" not in doc["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"][0]


def test_schema_rejects_what_the_operator_rejects():
    """The schema check has teeth: a bad restart policy, a missing container name, a TF_CONFIG env."""
    doc = launch.tfjob("job", "p.py", [], workers=2)
    bad = json.loads(json.dumps(doc))
    bad["spec"]["tfReplicaSpecs"]["Worker"]["restartPolicy"] = "Sometimes"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, TFJOB_SCHEMA)
    bad = json.loads(json.dumps(doc))
    bad["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"][0]["name"] = "main"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, TFJOB_SCHEMA)
    bad = json.loads(json.dumps(doc))
    bad["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"][0]["env"] = [{"name": "TF_CONFIG"}]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, TFJOB_SCHEMA)


def test_bad_options_are_errors():
    assert _cli(PROGRAM, "--engine", "slurm")[0] == 2
    # a complete tfjob call otherwise, so each call is refused for what it tests
    image = ("--image", "registry.example/trainer:1", "--program-path", "/app/regression_ctl.py")
    assert _cli(PROGRAM, "--engine", "tfjob", *image, "--restart-policy", "Sometimes")[0] == 2
    assert _cli(PROGRAM, "--engine", "tfjob", *image, "--workers", "0")[0] == 2
    assert _cli(PROGRAM, "--engine", "tfjob", *image, "--name", "Bad_Name")[0] == 2
    assert _cli(DATA / "nope.py", "--engine", "tfjob", *image)[0] == 2
    assert _cli(PROGRAM, "--engine", "tfjob", *image)[0] == 0
    code, _, err = _cli(PROGRAM, "--engine", "shell", "--workers", "2", "--hosts", "a")
    assert code == 2 and "the cluster has 2 members" in err


def test_operator_tf_configs():
    doc = launch.tfjob("mnist", "p.py", [], workers=2, ps=1, evaluator=True, namespace="ml")
    cfgs = launch.operator_tf_configs(doc)
    assert set(cfgs) == {"chief-0", "worker-0", "ps-0", "evaluator-0"}
    cluster = {"chief": ["mnist-chief-0.ml.svc:2222"], "worker": ["mnist-worker-0.ml.svc:2222"],
               "ps": ["mnist-ps-0.ml.svc:2222"]}
    assert cfgs["worker-0"] == {"cluster": cluster, "task": {"type": "worker", "index": 0}, "environment": "cloud"}
    assert cfgs["evaluator-0"]["task"] == {"type": "evaluator", "index": 0}
    assert "evaluator" not in cfgs["evaluator-0"]["cluster"]  # not a member of the training cluster


def test_shell_lines_carry_each_tasks_tf_config():
    code, out, err = _cli(PS_PROGRAM, "--engine", "shell", "--workers", "2", "--ps", "1", "--hosts",
                          "h1,h2:3000,h3", "--", "--steps", "5")
    assert code == 0, err
    cmds = [shlex.split(ln) for ln in out.splitlines() if ln.startswith("TF_CONFIG=")]
    assert len(cmds) == 3
    cfgs = [json.loads(c[0].split("=", 1)[1]) for c in cmds]
    assert [c["task"] for c in cfgs] == [{"type": "chief", "index": 0}, {"type": "worker", "index": 0},
                                         {"type": "ps", "index": 0}]
    assert cfgs[0]["cluster"] == {"chief": ["h1:2222"], "worker": ["h2:3000"], "ps": ["h3:2222"]}
    assert cmds[0][1:] == ["python", str(PS_PROGRAM), "--steps", "5"]


@pytest.mark.tfenv
@pytest.mark.equivalence
@pytest.mark.cluster
def test_program_trains_with_the_tf_configs_the_operator_would_set(tmp_path):
    """Hosts of the manifest mapped to 127.0.0.1 ports; each task gets the operator-shaped TF_CONFIG (including
    its "environment": "cloud") and the migrated program trains on both trainers."""
    from tfmigrate.runtime import capture, cluster, envs

    python = envs.ensure_all()["target"]
    doc = yaml.safe_load(launch.to_yaml(launch.tfjob("reg", str(PROGRAM), ["--steps", "20"], workers=2)))
    hosts = ["reg-chief-0.default.svc:2222", "reg-worker-0.default.svc:2222"]
    ports = cluster.pick_ports(2)
    cfgs = launch.operator_tf_configs(doc, address={h: f"127.0.0.1:{p}" for h, p in zip(hosts, ports)})
    cfg_dir = tmp_path / "tf_config"
    cfg_dir.mkdir()
    for task, cfg in cfgs.items():
        (cfg_dir / task).write_text(json.dumps(cfg))
    wrapper = ("import os, runpy, sys; os.environ['TF_CONFIG'] = open(sys.argv[1]).read(); "
               "sys.argv = sys.argv[2:]; sys.path.insert(0, os.path.dirname(sys.argv[0])); "
               "runpy.run_path(sys.argv[0], run_name='__main__')")
    (c,) = doc["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"]
    cap, md = tmp_path / "capture", tmp_path / "model_dir"
    cap.mkdir()
    md.mkdir()
    run = cluster.run_cluster(
        lambda t: [str(python), "-c", wrapper, str(cfg_dir / t.name), str(capture.TARGET_BOOT),
                   *c["command"][1:], *c["args"]],
        cluster.layout(2), tmp_path / "logs",
        {"TFMIGRATE_CAPTURE_DIR": str(cap), "TFMIGRATE_MODEL_DIR": str(md), "TMPDIR": str(tmp_path)},
        timeout=180, ports=lambda n: ports)
    assert [r.returncode for r in run.results] == [0, 0], [cluster.log_tail(r.log) for r in run.results]
    losses = capture.read_target(cap)
    assert set(losses) == {"chief0", "worker0"} and all(len(v) == 20 for v in losses.values())
    assert "environment" in (cfg_dir / "worker-0").read_text()


# ----------------------------------------------------------------------------- refusals and defaults


def test_tfjob_needs_an_image():
    code, out, err = _cli(PROGRAM, "--engine", "tfjob")
    assert code == 2 and not out and "needs --image IMG" in err


def test_tfjob_refuses_a_path_of_this_machine_as_the_container_command():
    code, out, err = _cli(PROGRAM.resolve(), "--engine", "tfjob", "--image", "img:1")
    assert code == 2 and not out and "--program-path" in err
    code, out, err = _cli(PROGRAM.resolve(), "--engine", "tfjob", "--image", "img:1", "--program-path", "/app/p.py")
    assert code == 0 and yaml.safe_load(out)["spec"]["tfReplicaSpecs"]["Chief"]["template"]["spec"]["containers"][0][
        "command"] == ["python", "/app/p.py"]


def test_no_parameter_servers_for_a_multi_worker_mirrored_program():
    code, out, err = _cli(PROGRAM, "--engine", "shell", "--ps", "1")
    assert code == 2 and not out and "MultiWorkerMirroredStrategy" in err and "leave --ps out" in err


def test_a_parameter_server_program_gets_one_by_default():
    code, out, err = _cli(PS_PROGRAM, "--engine", "tfjob", "--image", "img:1", "--program-path", "/app/p.py")
    assert code == 0, err
    assert yaml.safe_load(out)["spec"]["tfReplicaSpecs"]["PS"]["replicas"] == 1 and "--ps 1" in err
    code, _, err = _cli(PS_PROGRAM, "--engine", "shell", "--ps", "0")
    assert code == 2 and "needs parameter servers" in err


def test_a_tf1_original_is_refused():
    original = Path(__file__).resolve().parents[2] / "fixtures" / "adam_mae" / "original.py"
    code, out, err = _cli(original, "--engine", "shell")
    assert code == 2 and not out and "TF1 Estimator program" in err and "tfmigrate rewrite" in err
