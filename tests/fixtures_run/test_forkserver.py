"""_runs.run_program runs a program in a fork of a Python that imported TensorFlow once (runtime/forkserver.py): it must behave as
`python PROGRAM ARGS` in a process of its own would (what the TF-environment tests assert on)."""
import subprocess

import pytest

from _runs import run_program

pytestmark = pytest.mark.tfenv

PROGRAM = '''
import json, os, sys
import helper  # a module next to the program: sys.path[0] is the program's directory
print(json.dumps({"name": __name__, "argv": sys.argv[1:], "cwd": os.getcwd(), "path0": sys.path[0],
                  "model_dir": os.environ.get("TFMIGRATE_MODEL_DIR"), "tf_config": os.environ.get("TF_CONFIG"),
                  "file": __file__}))
mode = sys.argv[1]
if mode == "exit":
    sys.exit(3)
if mode == "raise":
    raise ValueError("boom")
if mode == "hang":
    import time
    time.sleep(600)
'''


@pytest.fixture
def program(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "helper.py").write_text("")
    (src / "prog.py").write_text(PROGRAM)
    (tmp_path / "work").mkdir()
    return src / "prog.py"


@pytest.mark.parametrize("env", ["legacy", "target"])
def test_a_forked_program_runs_as_python_program_would(program, tmp_path, env, monkeypatch):
    import json

    monkeypatch.setenv("TF_CONFIG", '{"leaked": 1}')  # run_program drops it, as it always did
    work = tmp_path / "work"
    ok = run_program(env, [str(program), "ok", "--steps", "2"], work, model_dir=tmp_path / "md")
    assert ok.returncode == 0, ok.stderr
    seen = json.loads(ok.stdout)
    assert seen == {"name": "__main__", "argv": ["ok", "--steps", "2"], "cwd": str(work),
                    "path0": str(program.parent), "model_dir": str(tmp_path / "md"), "tf_config": None,
                    "file": str(program)}
    assert run_program(env, [str(program), "exit"], work).returncode == 3
    raised = run_program(env, [str(program), "raise"], work)
    assert raised.returncode == 1 and "Traceback" in raised.stderr and "ValueError: boom" in raised.stderr
    with pytest.raises(subprocess.TimeoutExpired):
        run_program(env, [str(program), "hang"], work, timeout=3)
    assert run_program(env, [str(program), "ok"], work).returncode == 0  # the server goes on after a timeout


def test_one_server_per_environment_across_tests(program, tmp_path, monkeypatch):
    """Each test has its own TFMIGRATE_CACHE_DIR (conftest): that must not start a server per test."""
    import os
    from pathlib import Path

    from tfmigrate.runtime import forkserver

    servers = Path(os.environ[forkserver.ENV_DIR])
    run_program("legacy", [str(program), "ok"], tmp_path / "work")
    before = set(servers.glob("*.sock"))
    for i in range(3):
        monkeypatch.setenv("TFMIGRATE_CACHE_DIR", str(tmp_path / f"cache{i}"))
        assert run_program("legacy", [str(program), "ok"], tmp_path / "work").returncode == 0
    assert before and set(servers.glob("*.sock")) == before
