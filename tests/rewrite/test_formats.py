"""--output-format json|sarif|github|junit: the same records as the text output, in each format's own shape."""
from __future__ import annotations

import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from typer.testing import CliRunner

from tfmigrate.cli import app

ROOT = Path(__file__).resolve().parents[2]
ORIGINAL = (ROOT / "fixtures" / "regression_adagrad" / "original.py").read_bytes()
BLOCKED = (ROOT / "fixtures" / "unsupported_hook" / "original.py").read_bytes()
BAD = b"import tensorflow as tf  # an estimator program\ndef f(:\n    pass\n"
SCHEMA = ROOT / "tests" / "data" / "sarif-schema-2.1.0.json"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "prog.py").write_bytes(ORIGINAL)
    (tmp_path / "src" / "hook.py").write_bytes(BLOCKED)
    (tmp_path / "src" / "bad.py").write_bytes(BAD)
    (tmp_path / "src" / "plain.py").write_bytes(b"import os\n")
    return tmp_path


def rewrite(*args):
    result = CliRunner().invoke(app, ["rewrite", "--isolated", *map(str, args)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_json_is_ruff_shaped(tree):
    code, out, err = rewrite("--check", "--output-format", "json", "src")
    assert code == 2  # bad.py
    items = json.loads(out)
    assert {i["code"] for i in items} == {"TFM601", "TFM611", None}
    hook = next(i for i in items if i["code"] == "TFM611")
    assert hook["severity"] == "error" and hook["name"] == "session-run-hooks"
    assert hook["filename"] == str(tree / "src" / "hook.py")
    assert hook["location"] == {"row": 96, "column": 91} and hook["file_status"] == "blocked"
    note = next(i for i in items if i["code"] == "TFM601")
    assert note["severity"] == "note" and note["file_status"] == "would-convert"
    bad = next(i for i in items if i["code"] is None)
    assert bad["location"] == {"row": 2, "column": 7} and bad["message"].startswith("syntax error")
    assert "would rewrite 1 file" in err  # the summary stays on stderr
    assert not re.search(r"^src/.*: (note|error) ", err, re.M)  # no text findings mixed in


def test_sarif_validates_against_the_official_schema(tree):
    jsonschema = pytest.importorskip("jsonschema")
    code, out, _ = rewrite("--check", "--output-format", "sarif", "src")
    doc = json.loads(out)
    schema = json.loads(SCHEMA.read_text())
    assert schema["id"].endswith("sarif-schema-2.1.0.json")
    jsonschema.Draft4Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(doc), key=str)
    assert not errors, errors[:3]
    run = doc["runs"][0]
    assert doc["version"] == "2.1.0" and run["tool"]["driver"]["name"] == "tfmigrate"
    rules = run["tool"]["driver"]["rules"]
    assert {"TFM611", "TFM601", "TFM901"} <= {r["id"] for r in rules}
    by_rule = {r["ruleId"]: r for r in run["results"]}
    hook = by_rule["TFM611"]
    assert hook["level"] == "error" and rules[hook["ruleIndex"]]["id"] == "TFM611"
    loc = hook["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "src/hook.py", "uriBaseId": "%SRCROOT%"}
    assert loc["region"] == {"startLine": 96, "startColumn": 91}
    assert by_rule["TFM601"]["level"] == "note"
    assert run["invocations"][0]["exitCode"] == code == 2


def test_github_annotations(tree):
    code, out, _ = rewrite("--check", "--output-format", "github", "src")
    lines = out.splitlines()
    assert "::error file=src/hook.py,line=96,col=91,title=TFM611::hook `BiasHook(loss, b)` is not converted here: a SessionRunHook subclass of this program becomes a keras.callbacks.Callback only when attached to training through train(hooks=...) or TrainSpec(hooks=...) (not EstimatorSpec hooks, which may read the model_fn's tensors); other hooks read graph tensors the Keras model does not have: rewrite it as a keras.callbacks.Callback" in lines
    assert any(re.fullmatch(r"::notice file=src/prog\.py,line=93,col=30,title=TFM601::RunConfig\(.*", ln) for ln in lines)
    assert "::error file=src/bad.py,line=2,col=7,title=tfmigrate::syntax error%3A invalid syntax" not in lines
    assert "::error file=src/bad.py,line=2,col=7,title=tfmigrate::syntax error: invalid syntax" in lines
    assert all(ln.startswith(("::error ", "::notice ")) for ln in lines)


def test_junit(tree):
    code, out, _ = rewrite("--check", "--output-format", "junit", "--output-file", tree / "r" / "junit.xml", "src")
    assert out == ""
    root = ET.parse(tree / "r" / "junit.xml").getroot()
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert set(suites) == {"src/bad.py", "src/hook.py", "src/prog.py"}  # plain.py never mentions tensorflow
    migration = {name: s.find("testcase[@name='migration']") for name, s in suites.items()}
    assert migration["src/bad.py"].find("error") is not None
    assert migration["src/hook.py"].find("failure").get("type") == "blocked"
    assert migration["src/prog.py"].find("failure").get("type") == "would-change"
    assert root.get("errors") == "1" and int(root.get("failures")) == 3
    (tree / "src" / "bad.py").unlink()
    (tree / "src" / "hook.py").unlink()
    rewrite("--output-format", "junit", "-o", tree / "w.xml", "src")  # write mode: converted passes
    root = ET.parse(tree / "w.xml").getroot()
    assert root.get("failures") == "0" and root.get("errors") == "0"


def test_blocked_by_hidden_findings_is_still_a_record(tree):
    (tree / "src" / "bad.py").unlink()
    code, out, _ = rewrite("--output-format", "json", "--ignore", "TFM61", "src/hook.py")
    assert code == 1
    (item,) = json.loads(out)
    assert item["code"] is None and item["severity"] == "error" and "left unchanged" in item["message"]
    assert "TFM611" in item["message"] and item["file_status"] == "blocked"


def test_machine_output_and_code_on_stdout_need_an_output_file(tree):
    code, _, err = rewrite("--diff", "--output-format", "json", "src/prog.py")
    assert code == 2 and "--output-file" in err
    result = CliRunner().invoke(app, ["rewrite", "--isolated", "--output-format", "json", "-o", "f.json", "-"],
                                input=ORIGINAL)
    assert result.exit_code == 0 and result.stdout_bytes.startswith(b'"""Linear regression')
    assert json.loads((tree / "f.json").read_text())[0]["filename"] == "<stdin>"


def test_output_format_from_configuration(tree):
    (tree / "pyproject.toml").write_text('[tool.tfmigrate]\noutput-format = "github"\n')
    result = CliRunner().invoke(app, ["rewrite", "--check", "src/hook.py"])
    assert result.stdout.startswith("::error file=src/hook.py,line=96,col=91,title=TFM611::")
