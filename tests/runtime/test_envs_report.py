import json
import subprocess
import sys

import pytest

from tfmigrate.runtime import envs, report


def test_version_matches():
    assert envs.version_matches("tensorflow-cpu==2.21.*", "2.21.0")
    assert envs.version_matches("tensorflow-cpu==2.21.*", "2.21.3")
    assert not envs.version_matches("tensorflow-cpu==2.21.*", "2.210.0")
    assert not envs.version_matches("tensorflow-cpu==2.21.*", "2.20.0")
    assert envs.version_matches("tensorflow-cpu==2.15.1", "2.15.1")
    assert not envs.version_matches("tensorflow-cpu==2.15.1", "2.15.10")
    assert not envs.version_matches("tensorflow-cpu==2.15.1", None)


def test_home_override_and_missing_status(tmp_path, monkeypatch):
    monkeypatch.setenv("TFMIGRATE_HOME", str(tmp_path))
    assert envs.env_path("legacy") == tmp_path / "envs" / "legacy"
    assert envs.status("legacy").state == "missing"


def test_marker_mismatch_is_stale(tmp_path, monkeypatch):
    monkeypatch.setenv("TFMIGRATE_HOME", str(tmp_path))
    p = envs.env_path("target")
    (p / "bin").mkdir(parents=True)
    (p / "bin" / "python").symlink_to(sys.executable)
    v = ".".join(map(str, sys.version_info[:3]))
    (p / envs.MARKER).write_text(json.dumps({"marker_version": 1, "spec": ["tensorflow-cpu==2.20.*"], "python": v}))
    assert envs.status("target").state == "stale"
    (p / envs.MARKER).write_text(json.dumps({"marker_version": 1, "spec": envs.SPECS["target"], "python": v}))
    assert envs.status("target").state == "ready"
    (p / envs.MARKER).write_text(json.dumps({"marker_version": 1, "spec": envs.SPECS["target"], "python": "3.0.0"}))
    assert envs.status("target").state == "stale"


def test_new_python_cannot_host_legacy(monkeypatch):
    monkeypatch.delenv("TFMIGRATE_LEGACY_PYTHON", raising=False)
    monkeypatch.setattr(envs.sys, "version_info", (3, 12, 1, "final", 0))
    monkeypatch.setattr(envs.shutil, "which", lambda name: None)
    with pytest.raises(envs.EnvError) as ei:
        envs.base_python("legacy")
    msg = str(ei.value)
    assert "python3.11" in msg and "TFMIGRATE_LEGACY_PYTHON" in msg


def test_legacy_python_override(monkeypatch):
    monkeypatch.setenv("TFMIGRATE_LEGACY_PYTHON", sys.executable)
    if sys.version_info[:2] <= (3, 11):
        assert envs.base_python("legacy")[0] == sys.executable
    else:
        with pytest.raises(envs.EnvError):
            envs.base_python("legacy")
    monkeypatch.setenv("TFMIGRATE_LEGACY_PYTHON", "/nonexistent/python")
    with pytest.raises(envs.EnvError):
        envs.base_python("legacy")


def _result():
    return {
        "settings": {"original": "o.py", "migrated": "m.py", "workers": 2, "ps": 0},
        "versions": {"legacy": {"tensorflow-cpu": "2.15.1"}, "target": {"tensorflow-cpu": "2.21.0", "keras": "3"}},
        "run_dir": "/tmp/x", "timings": {"env_check": 0.1},
        "verdict": "equivalent",
        "losses": {"original": {"chief0": [3.0, 2.0, 1.0]}, "migrated": {"chief0": [3.0, 2.0, 1.0000001]}},
        "comparison": {"mode": "stepwise", "rtol": 1e-5, "atol": 1e-6, "equivalent": True, "problems": [],
                       "max_abs": 1e-7, "max_rel": 1e-7, "first_break": None,
                       "workers": {"chief0": {"steps_original": 3, "steps_migrated": 3, "compared": 3, "bit_equal": 2,
                                              "max_abs": 1e-7, "max_rel": 1e-7, "first_break": None}}},
    }


def test_html_is_self_contained_with_svg(tmp_path):
    out = tmp_path / "r.html"
    report.write_html(_result(), out)
    html = out.read_text()
    assert html.count("<svg") == 1 and 'class="chart"' in html  # one panel per worker (loss and |Δ|)
    assert 'href="http' not in html and 'src="http' not in html and "https://" not in html
    assert "<script" not in html


def test_json_and_console(tmp_path):
    from rich.console import Console

    report.write_json(_result(), tmp_path / "r.json")
    assert json.loads((tmp_path / "r.json").read_text())["verdict"] == "equivalent"
    c = Console(record=True, width=120)
    report.print_verdict(_result(), c)
    assert c.export_text().strip().splitlines()[-1].endswith("equivalent")


def test_tool_process_never_imports_tensorflow_or_numpy():
    code = ("import sys; import tfmigrate.cli; from tfmigrate.runtime import verify, report, commands, envs, cluster;"
            "bad=[m for m in ('tensorflow','numpy') if m in sys.modules]; print(bad); sys.exit(bool(bad))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
