"""Every test gets its own empty rewrite cache: no test reads another's results, none writes to the user's cache.

The suite runs under pytest-xdist (`-n auto --dist loadgroup`, pyproject.toml): one worker per CPU this process may
use, and every test marked `cluster` in one group, so the multi-process clusters run one after another in one
worker while the other workers take the single-process tests."""
import os

import pytest


@pytest.fixture(autouse=True)
def _own_rewrite_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("TFMIGRATE_CACHE_DIR", str(tmp_path_factory.mktemp("rewrite-cache")))


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: the CPUs this process may run on (taskset / container cpusets), not psutil's physical cores."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@pytest.hookimpl(tryfirst=True)  # before xdist's loadgroup reads the xdist_group marks
def pytest_collection_modifyitems(items):
    for item in items:
        if item.get_closest_marker("cluster"):
            item.add_marker(pytest.mark.xdist_group("cluster"))
