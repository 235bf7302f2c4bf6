"""Issue #28: every file of a unit left unchanged (TFM600) names the construct that blocks the unit and where
(file:line of the construct in whichever file of the run it stands), not only "migrated as one unit with X"."""
from __future__ import annotations

from pathlib import Path

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.files import discover

DATA = '''\
import tensorflow as tf

KEYS = ["a", "b"]


def columns():
    return [tf.feature_column.numeric_column(k) for k in KEYS]


def feed():
    return tf.data.Dataset.from_tensor_slices(({"a": [1.0, 2.0], "b": [0.5, 0.25]}, [[1.0], [0.0]])).batch(2)
'''

TASK = '''\
import sys

import tensorflow as tf

from trainer import data

RECEIVERS = {"json": data.feed}


def main(kind):
    est = tf.estimator.LinearRegressor(feature_columns=data.columns())
    est.train(data.feed, max_steps=2)
    est.export_saved_model("/tmp/tfmigrate-unit-blockers", RECEIVERS[kind])


main(sys.argv[1])
'''


def _run(root: Path, files: dict[str, str]) -> dict:
    root.mkdir(parents=True)
    (root / "__init__.py").write_text("")
    for name, text in files.items():
        (root / name).write_text(text)
    return {Path(r.path).name: r for r in migrate_paths(discover([str(root)]), Options(), jobs=1)}


def test_a_file_left_unchanged_names_the_construct_and_its_line_in_the_other_file(tmp_path):
    # a public census trainer: its data module was reported only "left unchanged: migrated as one unit with
    # trainer/task.py", which said neither what blocks nor where
    results = _run(tmp_path / "trainer", {"data.py": DATA, "task.py": TASK})
    (own,) = [d for d in results["task.py"].diagnostics if d.severity == "error"]
    assert (own.code, own.line) == ("TFM601", 13)
    (left,) = results["data.py"].diagnostics
    assert left.code == "TFM600" and left.line == 1
    assert left.message.startswith("left unchanged: migrated as one unit with ")
    # the construct, its file:line and its own message, after the file's name
    assert f"task.py, which needs manual work: {tmp_path}/trainer/task.py:13 TFM601 " in left.message
    assert left.message.endswith(own.message)
