"""The plugin's cases are test items like any other: node ids pytest selects, counts and deselects; Ctrl-C during a
case stops the session."""
from test_suite import CASES, CONFTEST

pytest_plugins = ["pytester"]


def _project(pytester, conftest=CONFTEST):
    pytester.makepyprojecttoml(CASES)
    pytester.makepyfile(o="print(1)\n", m="print(1)\n")
    pytester.makeconftest(conftest)


def test_a_case_is_selected_by_its_node_id(pytester):
    _project(pytester)
    result = pytester.runpytest("--tfmigrate-verify", "pyproject.toml::known", "-v", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*collected 1 item", "*pyproject.toml::known PASSED*"])


def test_collected_counts_the_cases_and_k_deselects_them(pytester):
    _project(pytester)
    pytester.makepyfile(test_plain="def test_one():\n    pass\n")
    result = pytester.runpytest("--tfmigrate-verify", "-p", "no:cacheprovider", "--collect-only", "-q")
    assert sorted(line for line in result.stdout.lines if "::" in line) == [
        "pyproject.toml::bad", "pyproject.toml::good", "pyproject.toml::known", "test_plain.py::test_one"]
    result = pytester.runpytest("--tfmigrate-verify", "-p", "no:cacheprovider", "-k", "good")
    result.stdout.fnmatch_lines(["collected 4 items / 3 deselected / 1 selected"])
    result.assert_outcomes(passed=1, deselected=3)
    assert pytester.runpytest("--tfmigrate-verify", "-k", "nothing_matches").ret == 5  # all deselected


INTERRUPTED = CONFTEST.replace(
    'return CaseResult(case, verdict, 0.1, detail, output="the tail of the verify log")',
    'return CaseResult(case, "error", 0.1, "interrupted (SIGINT): every task stopped, no verdict", returncode=130)')


def test_ctrl_c_during_a_case_stops_the_session(pytester):
    _project(pytester, INTERRUPTED)
    result = pytester.runpytest_subprocess("--tfmigrate-verify", "-p", "no:cacheprovider", "-v")
    assert result.ret == 2, result.stdout.str()  # pytest's INTERRUPTED
    assert "KeyboardInterrupt" in result.stdout.str() or "Interrupted" in result.stdout.str()
    assert result.stdout.str().count("PASSED") + result.stdout.str().count("FAILED") == 0
    assert "pyproject.toml::good" not in result.stdout.str().split("!!!")[-1]
