"""bench/sweep.py: which files count as Estimator code, and the outcome each gets from a real or a stand-in
tfmigrate on tiny programs written here."""
from __future__ import annotations

import importlib.util
import json
import shutil
import stat
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("sweep_under_test", ROOT / "bench" / "sweep.py")
sweep = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = sweep  # dataclasses look their module up by name
_spec.loader.exec_module(sweep)
TFMIGRATE = shutil.which("tfmigrate", path=str(Path(sys.executable).parent)) or "tfmigrate"

MODEL = textwrap.dedent("""\
    import tensorflow as tf


    def model_fn(features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features["x"], 1){extra}
        loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({{"x": [[1.0], [2.0]]}}, [[1.0], [2.0]])).batch(2).repeat()


    def main():
        estimator = tf.estimator.Estimator(model_fn, model_dir="/tmp/m")
        estimator.train(input_fn, steps=10)


    if __name__ == "__main__":
        main()
    """)
HELPER = '''"""Helpers: this docstring names tf.estimator.Estimator, the code does not."""
import tensorflow as tf

# tf.contrib.learn appears only in this comment
def scale(x, estimator=None):
    return tf.cast(x, tf.float32) * 2.0 + len("tf.estimator")
'''


def names(text: str, name: str = "a.py") -> list[str]:
    return sweep.estimator_names(Path(name), text.encode())


@pytest.mark.parametrize("code, expected", [
    ("import tensorflow as tf\ntf.estimator.Estimator(f)\n",
     ["tensorflow.estimator", "tensorflow.estimator.Estimator", "tf.estimator", "tf.estimator.Estimator"]),
    ("from tensorflow.contrib import learn\n", ["tensorflow.contrib.learn"]),
    ("from tensorflow.python.estimator.model_fn import ModeKeys\n",
     ["tensorflow.python.estimator.model_fn", "tensorflow.python.estimator.model_fn.ModeKeys"]),
    ("import tensorflow_estimator as tfe\n", ["tensorflow_estimator"]),
    ("x = tf.compat.v1.estimator.tpu.TPUEstimatorSpec\n",
     ["tf.compat.v1.estimator", "tf.compat.v1.estimator.tpu", "tf.compat.v1.estimator.tpu.TPUEstimatorSpec"]),
    ("m = tf.keras.estimator.model_to_estimator(k)\n", ["tf.keras.estimator", "tf.keras.estimator.model_to_estimator"]),
    ("import tensorflow.compat.v1 as tf1\ne = tf1.estimator.Estimator(f)\n",
     ["tensorflow.compat.v1.estimator", "tensorflow.compat.v1.estimator.Estimator"]),
    ("from tensorflow.compat import v1\nspec = v1.estimator.EstimatorSpec\n",
     ["tensorflow.compat.v1.estimator", "tensorflow.compat.v1.estimator.EstimatorSpec", "v1.estimator",
      "v1.estimator.EstimatorSpec"]),
    ("self.estimator.train(f)\nestimator = make()\n", []),  # a variable called estimator is not the API
    (HELPER, []),  # docstrings, comments and strings do not count
])
def test_estimator_names(code, expected):
    assert names(code) == expected


def test_python2_code_is_read_from_its_tokens():
    code = 'import tensorflow as tf\nprint "start"  # tf.estimator here is a comment\nc = tf.contrib.learn.RunConfig()\n'
    assert names(code) == ["tf.contrib.learn.RunConfig"]  # whole chains only (ast also gives their prefixes)
    assert names("from tensorflow.contrib import learn as L\nprint 'x'\n") == ["tensorflow.contrib.learn"]


def test_notebook_code_cells_only_without_magics():
    cells = [
        {"cell_type": "markdown", "source": ["Use tf.estimator.Estimator here"]},
        {"cell_type": "code", "source": ["!pip install tensorflow\n", "%matplotlib inline\n", "import tensorflow as tf"]},
        {"cell_type": "code", "source": "est = tf.estimator.LinearClassifier(cols)"},
        {"cell_type": "code", "source": "import tensorflow.compat.v1 as tf1"},
        {"cell_type": "code", "source": "spec = tf1.estimator.EstimatorSpec"},  # the alias of an earlier cell
    ]
    text = json.dumps({"cells": cells, "nbformat": 4, "nbformat_minor": 5, "metadata": {}})
    assert names(text, "n.ipynb") == [
        "tensorflow.compat.v1.estimator", "tensorflow.compat.v1.estimator.EstimatorSpec", "tensorflow.estimator",
        "tensorflow.estimator.LinearClassifier", "tf.estimator", "tf.estimator.LinearClassifier"]
    markdown_only = json.dumps({"cells": cells[:1], "nbformat": 4, "nbformat_minor": 5, "metadata": {}})
    assert names(markdown_only, "n.ipynb") == []


def test_normalise_masks_the_programs_own_words():
    assert sweep.normalise("code cell 11: `if isinstance(features, dict):` is not converted") == "… is not converted"
    assert sweep.normalise("hook `h` made by x is the Estimator's own 2 steps") == "hook … made by x is the Estimator's own N steps"
    long = sweep.normalise("tf.Variable creates variables inside the model_fn, which the converted Keras model would not own "
                          "(a new variable per call, never trained)")
    assert long.endswith("…") and len(long) <= 81 and long.startswith("tf.Variable creates variables")


def _corpus(tmp_path: Path, programs: dict[str, dict[str, str]]) -> Path:
    corpus = tmp_path / "corpus"
    rows = ["dir\trepo\tcommit\tsubdir\tkind"]
    for name, files in programs.items():
        for rel, text in files.items():
            (corpus / name / rel).parent.mkdir(parents=True, exist_ok=True)
            (corpus / name / rel).write_text(text)
        rows.append(f"{name}/prog\towner/{name}\t0\tprog\tpackage")
    (corpus / "MANIFEST.tsv").write_text("\n".join(rows) + "\n")
    return corpus


def _by_file(report: dict) -> dict[str, str]:
    return {f["path"]: f["outcome"] for p in report["results"] for f in p["files"]}


def test_real_tfmigrate_converted_flagged_unparsable(tmp_path):
    corpus = _corpus(tmp_path, {
        "good": {"prog/model.py": MODEL.format(extra=""), "prog/util.py": HELPER},
        "blocked": {"prog/model.py": MODEL.format(extra="\n    w = tf.Variable(1.0)"), "prog/util.py": HELPER},
        "py2": {"prog/train.py": 'import tensorflow as tf\nprint "x"\nest = tf.estimator.Estimator(None)\n'},
    })
    report = sweep.sweep(corpus, TFMIGRATE, timeout=120, echo=lambda line: None)
    assert _by_file(report) == {"good/prog/model.py": "converted", "blocked/prog/model.py": "flagged",
                                "py2/prog/train.py": "unparsable"}  # util.py: no Estimator code, not counted
    assert report["files"] == {"converted": 1, "flagged": 1, "silent": 0, "unparsable": 1, "crashed": 0}
    assert report["programs_fully_converted"] == 1 and report["programs_with_estimator_code"] == 3
    [blocker] = report["first_blockers"]
    assert blocker["blocker"].startswith("TFM811 tf.Variable creates variables") and blocker["files"] == 1
    assert blocker["example"] == "blocked/prog/model.py:6"


def _fake(tmp_path: Path, body: str) -> str:
    """A stand-in tfmigrate: `body` runs with `out` (the --out dir) and `root` (the program path) bound."""
    script = tmp_path / "fake-tfmigrate"
    script.write_text(f"#!{sys.executable}\nimport shutil, sys, time\nargs = sys.argv[1:]\n"
                      f"out, root = args[args.index('--out') + 1], args[-1]\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


@pytest.mark.parametrize("body, outcome, detail", [
    # copies the program unchanged and reports nothing: every Estimator file is silent
    ("shutil.copytree(root, out)\nprint('[]')", "silent", "unchanged (no finding)"),
    ("print('[]')", "silent", "not in the output (not visited)"),
    ("raise SystemExit('Traceback: boom')", "crashed", "exit 1, no JSON: Traceback: boom"),
    ("time.sleep(30)", "crashed", "timeout"),
])
def test_stand_in_tfmigrate_silent_and_crashed(tmp_path, body, outcome, detail):
    corpus = _corpus(tmp_path, {"p": {"prog/model.py": MODEL.format(extra=""), "prog/util.py": HELPER}})
    report = sweep.sweep(corpus, _fake(tmp_path, body), timeout=3, echo=lambda line: None)
    [program] = report["results"]
    [file] = program["files"]
    assert (file["path"], file["outcome"], file["detail"]) == ("p/prog/model.py", outcome, detail)
    assert report["programs_fully_converted"] == 0
    assert len(report["silent_files"]) == (outcome == "silent")


def test_first_blocker_is_the_files_own_before_tfm600(tmp_path):
    corpus = _corpus(tmp_path, {"p": {"prog/model.py": MODEL.format(extra="")}})
    record = ("{{'code': '{code}', 'severity': 'error', 'message': '{message}', 'file_status': 'blocked', "
              "'filename': os.path.abspath(os.path.join(root, 'model.py')), 'location': {{'row': {row}, 'column': 1}}}}")
    records = ", ".join([record.format(code="TFM600", message="left unchanged: migrated as one unit with x.py", row=1),
                         record.format(code="TFM501", message="statement `x = 1` in model_fn is not converted", row=5)])
    body = f"import json, os\nshutil.copytree(root, out)\nprint(json.dumps([{records}]))"
    report = sweep.sweep(corpus, _fake(tmp_path, body), timeout=30, echo=lambda line: None)
    assert report["first_blockers"] == [{"blocker": "TFM501 statement … in model_fn is not converted", "files": 1,
                                         "example": "p/prog/model.py:5"}]
