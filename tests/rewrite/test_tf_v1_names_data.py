"""rules/facts/data/tf_v1_names.json is what tools/tf_v1_names.py makes from the TF 2.15 and 2.21 environments now."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tfmigrate.runtime.envs import env_python

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.tfenv
def test_name_table_is_current():
    missing = [e for e in ("legacy", "target") if not Path(env_python(e)).exists()]
    if missing:
        pytest.skip(f"TF environment(s) {missing} absent: run `tfmigrate env setup`")
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "tf_v1_names.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_rewrite_path_never_imports_tensorflow():
    code = ("import sys, tfmigrate.rules.planners.imports as i; i.tf2_name('tensorflow.compat.v1.log', 'tf'); "
            "print('tensorflow' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"
