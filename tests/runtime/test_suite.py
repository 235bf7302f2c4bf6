"""Equivalence suites: cases declared once, `verify --all` (table, exit code, JUnit), and the pytest plugin.

Unit speed: a stub runner stands in for `tfmigrate verify`; one test (tfenv, equivalence) runs a real fixture case.
"""
from __future__ import annotations

import importlib.metadata
import re
import shutil
import threading
import time
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from rich.console import Console
from typer.testing import CliRunner

from tfmigrate.cli import app
from tfmigrate.config import Config, load
from tfmigrate.runtime import envs, suite
from tfmigrate.runtime.suite import Case, CaseResult

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"

CASES = '''
[tool.tfmigrate.verify-defaults]
workers = 1
timeout = 60

[[tool.tfmigrate.verify]]
name = "good"
original = "o.py"
migrated = "m.py"

[[tool.tfmigrate.verify]]
name = "bad"
original = "o.py"
migrated = "m.py"
workers = 2

[[tool.tfmigrate.verify]]
name = "known"
original = "o.py"
migrated = "m.py"
expect = "not-equivalent"
args = ["--steps", "5"]
'''


def project(tmp_path: Path, toml: str = CASES) -> Config:
    (tmp_path / "pyproject.toml").write_text(toml)
    for name in ("o.py", "m.py"):
        (tmp_path / name).write_text("print('x')\n")
    return load(tmp_path / "pyproject.toml")


def stub(case: Case, work: Path) -> CaseResult:
    """good: equivalent; bad: breaks at step 3; known: not equivalent (as expected); boom: cannot run."""
    verdict = {"good": "equivalent", "bad": "not-equivalent", "known": "not-equivalent"}.get(case.name)
    if verdict is None:
        return CaseResult(case, "error", 0.1, "error: task chief-0 failed (exit code 1)", output="Traceback ...")
    detail = "chief0 step 3: 0.5 vs 0.7" if verdict == "not-equivalent" else "max rel Δ 0"
    return CaseResult(case, verdict, 0.2, detail, 0.0, {"comparison": {}}, work / "verify.log", "loss table ...")


def test_cases_are_filled_from_defaults_and_relative_to_their_file(tmp_path):
    cases = suite.load_cases(project(tmp_path))
    assert [c.name for c in cases] == ["good", "bad", "known"]
    good, bad, known = cases
    assert good.original == tmp_path / "o.py" and good.workers == 1 and good.timeout == 60.0
    assert bad.workers == 2 and bad.tasks == 2
    assert known.expect == "not-equivalent" and known.args == ["--steps", "5"]
    assert good.verify_args()[:4] == [str(tmp_path / "o.py"), str(tmp_path / "m.py"), "--workers", "1"]
    assert known.verify_args()[-3:] == ["--", "--steps", "5"]


def test_statistical_cases_run_the_original_ten_times_unless_told(tmp_path):
    toml = CASES + ('\n[[tool.tfmigrate.verify]]\nname = "shuffled"\noriginal = "o.py"\nmigrated = "m.py"\n'
                    'statistical = true\n\n[[tool.tfmigrate.verify]]\nname = "five"\noriginal = "o.py"\n'
                    'migrated = "m.py"\nstatistical = true\nrepeats = 5\n')
    cases = {c.name: c for c in suite.load_cases(project(tmp_path, toml))}
    assert cases["good"].repeats == 3 and not cases["good"].statistical
    assert cases["shuffled"].repeats == 10 and "--statistical" in cases["shuffled"].verify_args()
    assert cases["five"].repeats == 5 and "--statistical" not in cases["good"].verify_args()
    assert suite.repeats_for(True, None, 4) == 4 and suite.repeats_for(False, None, None) == 3


@pytest.mark.parametrize("toml, message", [
    ('[[tool.tfmigrate.verify]]\noriginal = "o.py"\n', "missing migrated"),
    ('[[tool.tfmigrate.verify]]\noriginal = "o.py"\nmigrated = "m.py"\n' * 2, "a second case named 'o.py'"),
])
def test_case_mistakes(tmp_path, toml, message):
    with pytest.raises(suite.SuiteError, match=re.escape(message)):
        suite.load_cases(project(tmp_path, toml))


def test_run_all_never_runs_more_tasks_than_cores(tmp_path, monkeypatch):
    monkeypatch.setattr(suite.os, "cpu_count", lambda: 4)
    cases = [Case(f"c{i}", tmp_path / "o.py", tmp_path / "m.py", workers=w) for i, w in enumerate([1, 3, 2, 1, 2, 1])]
    running, peak, lock = [0], [0], threading.Lock()

    def slow(case, work):
        with lock:
            running[0] += case.tasks
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= case.tasks
        return CaseResult(case, "equivalent", 0.05)

    results = suite.run_all(cases, tmp_path, slow, jobs=4)
    assert [r.case.name for r in results] == [c.name for c in cases]
    assert 1 < peak[0] <= 4
    assert suite.default_jobs(cases) == 1  # a 3-task case on 4 cores: one at a time unless asked


def test_exit_codes_and_junit(tmp_path):
    cases = suite.load_cases(project(tmp_path))
    results = [stub(c, tmp_path) for c in cases]
    assert suite.exit_code(results) == 1
    assert suite.exit_code([r for r in results if r.case.name != "bad"]) == 0
    boom = stub(Case("boom", tmp_path / "o.py", tmp_path / "m.py"), tmp_path)
    assert suite.exit_code(results + [boom]) == 2
    suite.write_junit(results + [boom], tmp_path / "out" / "junit.xml")
    root = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    ts = root.find("testsuite")
    assert (ts.get("tests"), ts.get("failures"), ts.get("errors")) == ("4", "1", "1")
    by_name = {tc.get("name"): tc for tc in ts.iter("testcase")}
    assert by_name["good"].find("failure") is None and by_name["known"].find("failure") is None
    assert "step 3" in by_name["bad"].find("failure").get("message")
    assert by_name["boom"].find("error").get("message").startswith("error: task chief-0")


def test_table_is_readable_at_80_columns(tmp_path):
    cases = suite.load_cases(project(tmp_path))
    results = [stub(c, tmp_path) for c in cases]
    results[0].case.name = "a-rather-long-case-name/with/a/path/original.py"
    console = Console(width=80, record=True, color_system=None)
    console.print(suite.table(results))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "not-equivalent (expected)" in text and "(expected equivalent)" in text


def verify_all(*args):
    result = CliRunner().invoke(app, ["verify", "--all", *map(str, args)], env={"COLUMNS": "100"})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout


@pytest.fixture
def stubbed(monkeypatch):
    built = []
    monkeypatch.setattr(envs, "ensure_all", lambda progress=None, force=False, live=None: built.append(1) or {})
    monkeypatch.setattr(suite, "run_case", stub)
    return built


def test_verify_all_cli(tmp_path, monkeypatch, stubbed):
    project(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out = verify_all("--junit-xml", tmp_path / "v.xml", "--run-dir", tmp_path / "run")
    assert code == 1, out
    assert stubbed == [1]  # environments checked once
    assert "3 cases: 2 as expected, 1 not, 0 errors" in out
    assert re.search(r"bad .*not-equivalent", out) and "junit:" in out
    assert ET.parse(tmp_path / "v.xml").getroot().find("testsuite").get("tests") == "3"
    code, out = verify_all("--case", "good", "--case", "known")
    assert code == 0 and "2 cases: 2 as expected" in out
    assert not list(Path(tmp_path).glob("tfmigrate-suite-*"))  # temp run dir removed after success
    code, out = verify_all("--case", "nope")
    assert code == 2 and "no case named nope" in out


def test_verify_all_without_cases_says_how_to_declare_them(tmp_path, monkeypatch, stubbed):
    (tmp_path / "pyproject.toml").write_text('[tool.tfmigrate]\ntarget = "ctl"\n')
    monkeypatch.chdir(tmp_path)
    code, out = verify_all()
    assert code == 2 and "no verify cases declared" in " ".join(out.split())
    assert "[[tool.tfmigrate.verify]]" in " ".join(out.split())


def test_plugin_is_registered_as_a_pytest11_entry_point():
    eps = importlib.metadata.entry_points(group="pytest11")
    assert any(ep.name == "tfmigrate" and ep.value == "tfmigrate.pytest_plugin" for ep in eps)


CONFTEST = '''
from tfmigrate.runtime.suite import CaseResult

seen = []

def pytest_tfmigrate_run_case(case, work, config):
    seen.append(case.name)
    verdict = {"good": "equivalent", "bad": "not-equivalent", "known": "not-equivalent"}[case.name]
    detail = "chief0 step 3: 0.5 vs 0.7" if verdict != "equivalent" else ""
    return CaseResult(case, verdict, 0.1, detail, output="the tail of the verify log")
'''


def test_pytest_plugin_turns_cases_into_items(pytester):
    pytester.makepyprojecttoml(CASES)
    pytester.makepyfile(o="print(1)\n", m="print(1)\n")
    pytester.makeconftest(CONFTEST)
    result = pytester.runpytest("--tfmigrate-verify", "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*pyproject.toml::good PASSED*",
        "*pyproject.toml::bad FAILED*",
        "*tfmigrate verify bad: not-equivalent, expected equivalent*",
        "*chief0 step 3: 0.5 vs 0.7*",
        "*the tail of the verify log*",
    ])
    pytester.runpytest("--tfmigrate-verify", "-k", "known").assert_outcomes(passed=1)
    plain = pytester.runpytest()  # without the option, no case is collected
    assert plain.ret == 5


def test_pytest_fixture_runs_a_case(pytester):
    pytester.makepyprojecttoml("[tool.tfmigrate.verify-defaults]\nworkers = 1\nsteps = 4\n")
    pytester.makepyfile(o="print(1)\n", m="print(1)\n")
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_mine='''
        def test_good(tfmigrate_verify):
            result = tfmigrate_verify("o.py", "m.py", name="good", args=["--steps", "4"])
            assert result.equivalent and result.case.workers == 1 and result.case.steps == 4
            assert result.case.original.name == "o.py" and result.case.original.is_absolute()

        def test_known(tfmigrate_verify):
            result = tfmigrate_verify("o.py", "m.py", name="known", workers=2, expect="not-equivalent")
            assert result.ok and not result.equivalent and result.case.workers == 2
    ''')
    pytester.runpytest().assert_outcomes(passed=2)


@pytest.mark.tfenv
@pytest.mark.equivalence
def test_verify_all_runs_a_real_fixture_case(tmp_path, monkeypatch):
    """One real case through `tfmigrate verify --all` (TF 2.15 vs 2.21, one process, a few steps)."""
    for name in ("original.py", "migrated.py"):
        shutil.copy(FIXTURES / "regression_adagrad" / name, tmp_path / name)
    (tmp_path / "tfmigrate.toml").write_text(
        '[[verify]]\nname = "regression_adagrad"\noriginal = "original.py"\nmigrated = "migrated.py"\n'
        'workers = 1\ntimeout = 300\nargs = ["--steps", "30"]\n')
    monkeypatch.chdir(tmp_path)
    code, out = verify_all("--junit-xml", tmp_path / "v.xml", "--run-dir", tmp_path / "run")
    assert code == 0, out
    assert "1 case: 1 as expected, 0 not, 0 errors" in out
    case = ET.parse(tmp_path / "v.xml").getroot().find("testsuite/testcase")
    assert case.get("name") == "regression_adagrad" and case.find("failure") is None and case.find("error") is None
    assert (tmp_path / "run" / "regression_adagrad" / "verify.json").is_file()
