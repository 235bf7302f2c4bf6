"""Every test gets its own empty rewrite cache: no test reads another's results, none writes to the user's cache.

The suite runs under pytest-xdist (`-n auto --dist loadgroup`, pyproject.toml): one worker per CPU this process may
use. Tests marked `cluster` (multi-process TF clusters) form one group and tests with an `xdist_group` mark theirs;
a group runs in one worker, one test after another. pytest 9.2 no longer lets xdist 3.8 put the group into the
node id (its loadgroup silently spreads groups), so the workers write each test's group to a file and the
controller's scheduler reads it.

Order: xdist hands out the groups first, largest first (its loadscope reordering: the cluster group, then each
fixture's group), then single tests in collection order, which sorts the tests without TensorFlow before the TF
ones. One worker starts building missing TF environments in the background as soon as collection ends; a TF test
waits on the environment's lock until its build is done."""
import json
import os
import tempfile
import threading
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _own_rewrite_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("TFMIGRATE_CACHE_DIR", str(tmp_path_factory.mktemp("rewrite-cache")))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto`: the CPUs this process may run on (taskset / container cpusets), not psutil's physical cores."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _group(item) -> str | None:
    names = {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")}
    if item.get_closest_marker("cluster"):
        names.add("cluster")
    return "_".join(sorted(names)) or None


TF_MARKS = ("tfenv", "equivalence")


def _needs_tf(item) -> bool:
    return any(item.get_closest_marker(m) for m in TF_MARKS)


def _phase(item) -> int:
    return 0 if not _needs_tf(item) else 1 if item.get_closest_marker("cluster") else 2


@pytest.hookimpl(trylast=True)  # after -m / -k deselection: the order of what runs
def pytest_collection_modifyitems(config, items):
    items.sort(key=_phase)  # stable: within a phase, collection order (the same in every worker)
    where = getattr(config, "workerinput", {}).get("tfmigrate_groups")
    if where:  # an xdist worker: tell the controller's scheduler the groups
        groups = {item.nodeid: g for item in items if (g := _group(item))}
        tmp = Path(where) / f".{config.workerinput['workerid']}.json"
        tmp.write_text(json.dumps(groups))
        tmp.rename(Path(where) / f"{config.workerinput['workerid']}.json")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    if not hasattr(node.config, "_tfmigrate_groups"):
        node.config._tfmigrate_groups = tempfile.TemporaryDirectory(prefix="pytest-groups-")
    node.workerinput["tfmigrate_groups"] = node.config._tfmigrate_groups.name


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class GroupsFromWorkers(LoadGroupScheduling):
        groups: dict | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:  # first called once every worker has collected (and written its file)
                where = Path(config._tfmigrate_groups.name)
                self.groups = {}
                for f in sorted(where.glob("gw*.json")):
                    self.groups.update(json.loads(f.read_text()))
            group = self.groups.get(nodeid)
            return f"group:{group}" if group else super()._split_scope(nodeid)

    return GroupsFromWorkers(config, log)


def _build_env(name: str) -> None:
    from tfmigrate.runtime import envs

    try:
        envs.ensure(name)
    except Exception:  # noqa: BLE001 - the first test that needs the env calls ensure() again and reports the error
        pass


def pytest_collection_finish(session):
    """Start building the missing TF environments (one thread per env, in the first worker only) when TF tests are
    selected; a TF test waits on the env's lock (runtime/envs.py) until its build is done."""
    if getattr(session.config, "workerinput", {}).get("workerid", "gw0") != "gw0":
        return
    if not any(_needs_tf(item) for item in session.items):
        return
    from tfmigrate.runtime import envs

    for name in envs.SPECS:
        if envs.status(name).state != "ready":
            threading.Thread(target=_build_env, args=(name,), name=f"build-{name}", daemon=True).start()


def pytest_configure(config):
    """Verify's tasks in this test process fork from one Python per TF environment that imported TensorFlow once
    (runtime/forkserver.py: 3-5 CPU-s saved per task, bit-equal losses). The servers stop when this process ends;
    the tests of the plain start (tests/runtime/test_cluster.py, test_verify_signals.py, test_verify_lifetime.py)
    turn it off."""
    from tfmigrate.runtime import forkserver

    if os.environ.get(forkserver.ENV_DIR) and os.environ.get(forkserver.ENV_OWNER) == str(os.getpid()):
        return
    where = tempfile.mkdtemp(prefix="tfmigrate-forkservers-")
    os.environ[forkserver.ENV_DIR] = where
    os.environ[forkserver.ENV_OWNER] = str(os.getpid())
    config.add_cleanup(lambda: forkserver.stop_all(where))


@pytest.fixture
def plain_task_start(monkeypatch):
    """Tasks started with a fresh `python`, as verify does outside the suite."""
    from tfmigrate.runtime import forkserver

    monkeypatch.delenv(forkserver.ENV_DIR, raising=False)
