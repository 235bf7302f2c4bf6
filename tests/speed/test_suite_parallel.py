"""The suite's own layout: it runs on every CPU under pytest-xdist, multi-process cluster tests one at a time."""
import os
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
pytest_plugins = ["pytester"]


def test_the_readme_command_runs_the_suite_in_parallel():
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert ini["addopts"][:4] == ["-n", "auto", "--dist", "loadgroup"]
    assert any(m.startswith("cluster:") for m in ini["markers"])
    test_deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert any(d.startswith("pytest-xdist") for d in test_deps)


def test_auto_uses_the_cpus_this_process_may_run_on(pytester, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    pytester.makeconftest((ROOT / "tests" / "conftest.py").read_text())
    pytester.makepyfile(test_n="import os\ndef test_n():\n    print('WORKERS', os.environ['PYTEST_XDIST_WORKER_COUNT'])\n")
    result = pytester.runpytest_subprocess("-n", "auto", "-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert f"created: {len(os.sched_getaffinity(0))}/{len(os.sched_getaffinity(0))} workers" in result.stdout.str()


def test_cluster_tests_share_one_worker_while_the_rest_spread(pytester):
    """Two multi-process clusters at once would put 4+ TF processes on 2 cores: every `cluster` test goes to the
    same worker; unmarked tests still spread over both."""
    pytester.makeconftest((ROOT / "tests" / "conftest.py").read_text())
    pytester.makeini("[pytest]\nmarkers =\n    cluster: x\n")
    log = pytester.path / "log"
    log.mkdir()
    pytester.makepyfile(test_many=f'''
import os, time
import pytest

def _record(kind, i):
    (__import__("pathlib").Path({str(log)!r}) / f"{{kind}}-{{i}}").write_text(os.environ["PYTEST_XDIST_WORKER"])
    time.sleep(0.2)

@pytest.mark.cluster
@pytest.mark.parametrize("i", range(8))
def test_cluster(i):
    _record("cluster", i)

@pytest.mark.parametrize("i", range(8))
def test_single(i):
    _record("single", i)
''')
    result = pytester.runpytest_subprocess("-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=16)
    workers = {p.name: p.read_text() for p in log.iterdir()}
    assert len({w for k, w in workers.items() if k.startswith("cluster")}) == 1, workers
    assert len(set(workers.values())) == 2, workers
