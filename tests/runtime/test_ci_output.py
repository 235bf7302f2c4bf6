"""What verify leaves in a CI log and a CI job's files: full-width tables in a pipe, JUnit without "None" or paths
into a removed directory, a JSON report that says which tfmigrate and which layout wrote it."""
import json
import sys
import xml.etree.ElementTree as ET

from rich.console import Console

from tfmigrate.cli import version
from tfmigrate.runtime import commands, report, suite

from test_report_ps import _result
from test_suite import project, stub


def test_a_pipe_gets_full_width_lines(monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    monkeypatch.delenv("COLUMNS", raising=False)
    assert commands.make_console().width == commands.PIPE_WIDTH
    monkeypatch.setenv("COLUMNS", "90")  # a width the user chose still wins
    assert commands.make_console().width == 90


def test_statistical_table_in_a_ci_log_keeps_every_column(monkeypatch):
    """At rich's 80-column default for pipes the 19-column table became columns of `…`."""
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    monkeypatch.delenv("COLUMNS", raising=False)
    res = _result()
    res["verdict"] = "equivalent"
    console = commands.make_console()
    console.record = True
    report.print_verdict(res, console)
    out = console.export_text(styles=False)
    assert "…" not in out and "orig #3" in out and "band hi" in out and "migrated" in out


def test_verify_all_table_keeps_case_names_whole_when_wide(tmp_path):
    results = [stub(c, tmp_path) for c in suite.load_cases(project(tmp_path))]
    long_name = "a-rather-long-case-name/with/a/path/original.py"
    results[0].case.name = long_name
    console = Console(width=commands.PIPE_WIDTH, record=True, color_system=None)
    console.print(suite.table(results, wide=True))
    assert long_name in console.export_text()


def test_junit_has_no_none_and_no_paths_into_a_removed_run_dir(tmp_path):
    results = [stub(c, tmp_path) for c in suite.load_cases(project(tmp_path))]
    for r in results:
        r.case.steps = None  # not set: verify's default
        r.log = tmp_path / "run" / r.case.name / "verify.log"
    suite.write_junit(results, tmp_path / "gone.xml", logs_kept=False)
    text = (tmp_path / "gone.xml").read_text()
    assert '"None"' not in text and 'name="steps"' not in text
    assert "log: " not in text
    suite.write_junit(results, tmp_path / "kept.xml")
    outs = [e.text for e in ET.parse(tmp_path / "kept.xml").getroot().iter("system-out")]
    assert outs and all(o.startswith("log: ") for o in outs)


def test_json_report_names_tfmigrate_and_its_layout(tmp_path):
    report.write_json(_result(), tmp_path / "r.json")
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["schema_version"] == report.JSON_SCHEMA_VERSION == 1
    assert doc["tfmigrate_version"] == version() != "unknown"
    assert doc["comparison"]["mode"] == "statistical"


def test_env_setup_says_what_the_build_costs_before_it_starts(monkeypatch):
    from typer.testing import CliRunner

    from tfmigrate.cli import app
    from tfmigrate.runtime import envs

    calls = []
    monkeypatch.setattr(envs, "status", lambda name: envs.EnvStatus(name, envs.env_path(name), "missing", "", None))
    monkeypatch.setattr(envs, "ensure", lambda name, progress=None, force=False, live=None: (
        calls.append(name), progress(f"{name}: Collecting tensorflow"))[0] and envs.env_python(name))
    out = CliRunner().invoke(app, ["env", "setup"]).stdout
    first = out.splitlines()[0]
    assert first.startswith("building legacy, target: ~3.5 GB on disk") and "min to build" in first, out
    assert calls == ["legacy", "target"]
    monkeypatch.setattr(envs, "status", lambda name: envs.EnvStatus(name, envs.env_path(name), "ready", "", None))
    assert "GB on disk" not in CliRunner().invoke(app, ["env", "setup"]).stdout  # nothing to build: no estimate
