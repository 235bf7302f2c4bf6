"""Verify's legacy boot runs an original written for TF 1.x (TF1-only names through `import tensorflow as tf`)
with tf.compat.v1 as its `tensorflow`, where `tf.estimator.DNNClassifier` is the v1 canned class as on TF 1.x;
a TF 2 program (or one importing tensorflow.compat.v1 itself) keeps TF 2.15's `tensorflow`."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures_run._runs import run_program

LEGACY_BOOT = Path(__file__).resolve().parents[2] / "runtime" / "boot" / "legacy_boot.py"
PROBE = ("import tensorflow as tf\n{body}\n"
         "print('class:', tf.estimator.DNNClassifier.__mro__[1].__name__)\n")


@pytest.mark.tfenv
@pytest.mark.parametrize("body, expect", [
    ("opt = tf.train.AdamOptimizer(0.1)", "Estimator"),  # TF 1.x: the v1 class (an Estimator subclass)
    ("tf.logging.set_verbosity(tf.logging.INFO)", "Estimator"),
    ("opt = tf.keras.optimizers.legacy.Adam(0.1)", "EstimatorV2"),  # TF 2: the v2 class
    ("opt = tf.compat.v1.train.AdamOptimizer(0.1)", "EstimatorV2"),
])
def test_tf1_program_gets_tf1_namespace(body, expect, tmp_path):
    program = tmp_path / "probe" / "main.py"
    program.parent.mkdir()
    program.write_text(PROBE.format(body=body))
    run = run_program("legacy", [str(LEGACY_BOOT), str(program)], tmp_path, capture_dir=tmp_path / "capture",
                      model_dir=tmp_path / "model", timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert f"class: {expect}\n" in run.stdout, run.stdout[-2000:]
    assert ("runs with TF 1.x's API as TF 2.15 keeps it" in run.stderr) == (expect == "Estimator")
