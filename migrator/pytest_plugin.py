"""pytest plugin (entry point `pytest11`): equivalence cases as test items, and a `tfmigrate_verify` fixture.

    pytest --tfmigrate-verify                  # every [[tool.tfmigrate.verify]] case is a test item
    pytest --tfmigrate-verify -k regression    # the usual selection works on the case names
    pytest --tfmigrate-verify pyproject.toml::train   # one case by its node id (FILE::case name)

The cases come from the nearest configuration above pytest's rootdir (`--tfmigrate-config FILE` to name one).
Each item runs `tfmigrate verify` for its case (the TF environments are built once, on the first item) and fails
when the verdict is not the case's `expect` (default: equivalent), showing where the losses broke or why the run
failed. Items carry the `tfmigrate_verify` marker and are collected like any test, from the configuration file
(node ids `pyproject.toml::<case name>`): pytest counts, selects and deselects them. Ctrl-C (or SIGTERM) during a
case stops the whole session, as in any test.

The fixture runs a case from a test of your own:

    def test_train(tfmigrate_verify):
        result = tfmigrate_verify("src/train.py", "migrated/src/train.py", workers=2, args=["--steps", "50"])
        assert result.equivalent, result.detail

Both go through the `pytest_tfmigrate_run_case(case, work, config)` hook (first result wins), so a conftest can
replace the runner, e.g. with a stub in the plugin's own tests.
"""
from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import pytest

OPTION = "--tfmigrate-verify"


class _HookSpecs:
    @pytest.hookspec(firstresult=True)
    def pytest_tfmigrate_run_case(self, case, work, config):
        """Run one verify case (`tfmigrate.runtime.suite.Case`) with its files under `work` (a Path); return a
        `tfmigrate.runtime.suite.CaseResult`. The first non-None result wins."""


def pytest_addhooks(pluginmanager):
    pluginmanager.add_hookspecs(_HookSpecs)


def pytest_addoption(parser):
    group = parser.getgroup("tfmigrate", "tfmigrate equivalence cases")
    group.addoption(OPTION, action="store_true", default=False,
                    help="run every [[tool.tfmigrate.verify]] case (or [[verify]] in tfmigrate.toml) as a test item")
    group.addoption("--tfmigrate-config", default=None, metavar="FILE",
                    help="the configuration file that declares the cases (default: the nearest above rootdir)")


def pytest_configure(config):
    config.addinivalue_line("markers", "tfmigrate_verify: an equivalence case run by tfmigrate verify")
    if not config.getoption(OPTION):
        return
    path = _configuration_path(config)
    config.stash[_CASES_FILE] = path
    # collect the configuration file with the other arguments, unless one of them already names it (FILE::case)
    named = {Path(str(a).split("::")[0]).resolve() for a in config.args}
    if path not in named:
        config.args.append(str(path))


_CASES_FILE = pytest.StashKey[Path]()


_ENVS_READY: list[bool] = []


@pytest.hookimpl(trylast=True)
def pytest_tfmigrate_run_case(case, work, config):
    from tfmigrate.runtime import envs, suite

    if not _ENVS_READY:
        envs.ensure_all(progress=lambda m: print(f"tfmigrate env {m}", flush=True))
        _ENVS_READY.append(True)
    return suite.run_case(case, Path(work))


def _configuration_path(config) -> Path:
    from tfmigrate.config import find

    named = config.getoption("--tfmigrate-config")
    found = Path(named) if named else find(config.rootpath)
    if found is None:
        raise pytest.UsageError(f"{OPTION}: no tfmigrate.toml or pyproject.toml with [tool.tfmigrate] at or above "
                                f"{config.rootpath}")
    return Path(found).resolve()


class VerifyCaseFailed(Exception):
    def __init__(self, result):
        super().__init__(result.detail)
        self.result = result


class VerifyFile(pytest.File):
    """The configuration file that declares the cases; its items are the cases (`pyproject.toml::<case name>`)."""

    def collect(self):
        from tfmigrate.config import ConfigError, load
        from tfmigrate.runtime.suite import SuiteError, load_cases

        try:
            cases = load_cases(load(self.path))
        except (ConfigError, SuiteError) as exc:
            raise pytest.UsageError(f"{OPTION}: {exc}") from None
        if not cases:
            raise pytest.UsageError(f"{OPTION}: no verify cases are declared (add [[tool.tfmigrate.verify]] tables)")
        for case in cases:
            item = VerifyItem.from_parent(self, name=case.name, case=case)
            item.add_marker("tfmigrate_verify")
            yield item


class VerifyItem(pytest.Item):
    def __init__(self, *, case, **kw):
        super().__init__(**kw)
        self.case = case

    def runtest(self):
        work = Path(tempfile.mkdtemp(prefix=f"tfmigrate-{re.sub(r'[^A-Za-z0-9_.-]+', '_', self.case.name)}-"))
        result = self.config.hook.pytest_tfmigrate_run_case(case=self.case, work=work, config=self.config)
        if result.interrupted:  # verify stopped on Ctrl-C / SIGTERM: so does the session, not just this case
            raise KeyboardInterrupt
        self.user_properties += [("verdict", result.verdict), ("expect", self.case.expect),
                                 ("seconds", f"{result.seconds:.1f}")]
        if not result.ok:
            raise VerifyCaseFailed(result)  # its run files stay: the failure report points at its log
        shutil.rmtree(work, ignore_errors=True)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, VerifyCaseFailed):
            r = excinfo.value.result
            c = r.case
            lines = [f"tfmigrate verify {c.name}: {r.verdict}, expected {c.expect}",
                     f"  original: {c.original}", f"  migrated: {c.migrated}",
                     f"  cluster: {c.workers} trainer(s)" + (f", {c.ps} ps" if c.ps else ""),
                     f"  {r.detail}" if r.detail else ""]
            if r.log:
                lines.append(f"  log: {r.log}")
            if r.output:
                lines += ["", *r.output.splitlines()[-30:]]
            return "\n".join(line for line in lines if line is not None)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.case.source or self.path, None, f"tfmigrate verify {self.case.name}"


def pytest_collect_file(file_path, parent):
    if file_path.resolve() == parent.config.stash.get(_CASES_FILE, None):
        return VerifyFile.from_parent(parent, path=file_path)
    return None


@pytest.fixture
def tfmigrate_verify(request, tmp_path):
    """Run one equivalence case: `tfmigrate_verify(original, migrated, **settings) -> CaseResult`.

    Paths are relative to pytest's rootdir; settings are the case keys (workers, ps, evaluator, steps, repeats,
    rtol, atol, timeout, args, expect, name), defaulting to [tool.tfmigrate.verify-defaults]."""
    from tfmigrate.config import find, load
    from tfmigrate.runtime.suite import DEFAULTS, Case

    found = find(request.config.rootpath)
    defaults = {**DEFAULTS, **(load(found).get("verify-defaults", {}) if found else {})}
    root = request.config.rootpath

    def run(original, migrated, **settings):
        unknown = set(settings) - set(DEFAULTS) - {"expect", "name"}
        if unknown:
            raise TypeError(f"tfmigrate_verify: unknown settings {sorted(unknown)}")
        values = {**defaults, **settings}
        original, migrated = root / Path(original), root / Path(migrated)
        name = values.pop("name", None) or original.name
        case = Case(name=name, original=original, migrated=migrated, args=list(values.pop("args")), **values)
        work = tmp_path / re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
        result = request.config.hook.pytest_tfmigrate_run_case(case=case, work=work, config=request.config)
        if result.interrupted:
            raise KeyboardInterrupt
        return result

    return run
