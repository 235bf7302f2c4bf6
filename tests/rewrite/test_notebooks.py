"""Jupyter notebooks rewritten in place: the code cells as one program, each cell's text put back where it stands."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfmigrate.engine import Options, migrate_paths
from tfmigrate.notebooks import LostBoundary, NotebookError, Program, export, load

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
NOTEBOOKS = ["notebook_model_fn", "notebook_canned", "notebook_hook"]


def cell(source: str, kind: str = "code", **more) -> dict:
    out = {"cell_type": kind, "id": f"id{abs(hash(source)) % 10 ** 6}", "metadata": {}, "source": source.splitlines(True)}
    if kind == "code":
        out.update(execution_count=None, outputs=[])
    return {**out, **more}


def notebook(path: Path, *cells: dict, indent=1) -> Path:
    path.write_text(json.dumps({"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                               indent=indent, sort_keys=True, ensure_ascii=False) + "\n")
    return path


def code(data: bytes) -> list[str]:
    return ["".join(c["source"]) for c in json.loads(data)["cells"] if c["cell_type"] == "code"]


@pytest.mark.parametrize("case", NOTEBOOKS)
def test_fixture_notebook_rewrites_in_place(case, tmp_path):
    import nbformat

    original = (FIXTURES / case / "original.ipynb").read_bytes()
    path = tmp_path / "nb.ipynb"
    path.write_bytes(original)
    [result] = migrate_paths([path], Options(), jobs=1)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    assert result.output == (FIXTURES / case / "migrated.ipynb").read_bytes()  # the golden is today's rewrite
    nbformat.validate(nbformat.reads(result.output.decode(), as_version=4))
    before, after = json.loads(original), json.loads(result.output)
    # only code cells' sources change: markdown, outputs, counts, metadata, ids and the notebook's metadata stay
    assert {k: v for k, v in before.items() if k != "cells"} == {k: v for k, v in after.items() if k != "cells"}
    for a, b in zip(before["cells"], after["cells"], strict=True):
        assert {k: v for k, v in a.items() if k != "source"} == {k: v for k, v in b.items() if k != "source"}
        assert a["cell_type"] == "code" or a["source"] == b["source"]
    ipython = lambda cells: [line for c in cells for line in c.splitlines() if line.strip()[:1] in ("%", "!")]  # noqa: E731
    assert ipython(code(original)) == ipython(code(result.output)) != []
    # Jupyter's own JSON layout is kept: the unchanged cells' text is byte for byte in the output
    assert result.output.startswith(b'{\n "cells": [\n  {\n   "cell_type": "markdown"')
    # the migrated notebook is converted already
    path.write_bytes(result.output)
    assert migrate_paths([path], Options(), jobs=1)[0].status == "unchanged"


def test_ipython_lines_are_masked_and_come_back():
    cells = ["%matplotlib inline\nimport os\n!pip install \\\n    numpy\nfiles = !ls\nos?",
             "%%bash\necho hi\n",
             "if True:\n    !echo inside\n    x = 1\n",
             "",
             "y = %env HOME\nprint(y)"]
    program = Program({"cells": [cell(c) for c in cells] + [cell("# notes", "markdown")]})
    compile(program.text, "<nb>", "exec")  # every IPython line is a Python statement now
    assert "echo hi" not in program.text and "numpy" not in program.text
    assert program.split(program.text) == cells
    assert program.line_of(program.text.splitlines().index("if True:") + 1) == (3, 1)


def test_a_python_cell_keeps_its_lines_that_start_with_an_operator():
    # `%` / `!=` at the start of a continuation line is Python, not IPython: masking it broke the cell's parse
    cells = ["share = (done\n         % total)\nsame = (share\n        != 0)\n", "%ls\nz = 1"]
    program = Program({"cells": [cell(c) for c in cells]})
    compile(program.text, "<nb>", "exec")
    assert "% total" in program.text and "magic" in program.text.split("cell 1")[1]
    assert program.split(program.text) == cells


def test_a_rewrite_that_loses_a_boundary_or_moves_an_ipython_line_is_refused():
    program = Program({"cells": [cell("import os\n%ls"), cell("x = 1\n"), cell("%%bash\nls\n")]})
    text = program.text
    with pytest.raises(LostBoundary):
        program.split(text.replace(program.marker(1) + "\n", ""))
    with pytest.raises(NotebookError, match="IPython line of code cell 1"):
        moved = text.splitlines(True)
        line = next(i for i, t in enumerate(moved) if "magic" in t)
        moved.insert(len(moved) - 1, moved.pop(line))  # into the last cell
        program.split("".join(moved))
    with pytest.raises(NotebookError, match="code cell 3, a cell magic"):
        program.split(text + "y = 2\n")


def test_a_cell_whose_first_statement_the_rewrite_removes_still_maps_back(tmp_path):
    # the marker comment is a leading line of the statement after it: the rewrite removed `from tensorflow import
    # estimator as est` with it and the notebook was refused; statement markers keep it
    source = (FIXTURES / "adam_mae" / "original.py").read_text()
    tree = ast.parse(source)
    lines = source.splitlines(True)
    starts = [n.lineno - 1 for n in tree.body[1:]]
    pieces = ["".join(lines[a:b]) for a, b in zip([0, *starts], [*starts, len(lines)])]
    assert any(p.startswith("from tensorflow import estimator as est") for p in pieces)
    path = notebook(tmp_path / "adam.ipynb", *(cell(p) for p in pieces))
    [result] = migrate_paths([path], Options(), jobs=1)
    assert result.status == "changed", [d.format() for d in result.diagnostics]
    joined = "".join(code(result.output))
    assert ast.dump(ast.parse(joined)) == ast.dump(ast.parse((FIXTURES / "adam_mae" / "migrated.py").read_text()))


def test_findings_name_the_code_cell_and_its_line(tmp_path):
    path = notebook(tmp_path / "train.ipynb", cell("# title", "markdown"), cell("import tensorflow as tf\n"),
                    cell("x = 1\nreg = tf.estimator.LinearRegressor(feature_columns=[])\nreg.train(feed, steps=2)"))
    [result] = migrate_paths([path], Options(), jobs=1)
    assert result.status == "blocked" and result.output == result.source
    assert [(d.code, d.line, d.message) for d in result.diagnostics] == [
        ("TFM622", 2, "code cell 2: feature_columns is empty")]


def test_a_notebook_of_another_json_layout_keeps_it(tmp_path):
    source = (FIXTURES / "notebook_hook" / "original.ipynb").read_text()
    path = tmp_path / "two.ipynb"
    path.write_text(json.dumps(json.loads(source), indent=2, sort_keys=True) + "\n")
    [result] = migrate_paths([path], Options(), jobs=1)
    assert result.status == "changed" and not [d for d in result.diagnostics if "layout" in d.message]
    assert result.output == (json.dumps(json.loads((FIXTURES / "notebook_hook" / "migrated.ipynb").read_text()),
                                        indent=2, sort_keys=True) + "\n").encode()
    path.write_text(json.dumps(json.loads(source), separators=(",", ":")))  # no layout json.dumps(indent=...) gives
    [result] = migrate_paths([path], Options(), jobs=1)
    assert result.status == "changed" and [d for d in result.diagnostics if "layout" in d.message]
    assert result.output == (FIXTURES / "notebook_hook" / "migrated.ipynb").read_bytes()


def test_cli_check_and_diff_on_a_notebook(tmp_path):
    path = tmp_path / "hook.ipynb"
    original = (FIXTURES / "notebook_hook" / "original.ipynb").read_bytes()
    path.write_bytes(original)
    tool = [sys.executable, "-m", "tfmigrate", "rewrite"]
    check = subprocess.run([*tool, "--check", str(path)], capture_output=True, text=True)
    assert check.returncode == 1 and f"would rewrite {path}" in check.stderr, check.stderr
    diff = subprocess.run([*tool, "--diff", str(path)], capture_output=True, text=True)
    assert diff.returncode == 1, diff.stderr
    heads = [line for line in diff.stdout.splitlines() if line.startswith(("---", "+++"))]
    assert heads[:2] == [f"--- a/{path}:cell 2", f"+++ b/{path}:cell 2"] and '"cell_type"' not in diff.stdout
    assert path.read_bytes() == original
    write = subprocess.run([*tool, str(path)], capture_output=True, text=True)
    assert write.returncode == 0, write.stderr
    assert path.read_bytes() == (FIXTURES / "notebook_hook" / "migrated.ipynb").read_bytes()
    again = subprocess.run([*tool, "--check", str(path)], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr


def test_a_broken_notebook_fails_alone(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text('{"cells": 3}')
    good = tmp_path / "good.py"
    good.write_text("x = 1\n")
    results = {Path(r.path).name: r for r in migrate_paths([bad, good], Options(), jobs=1)}
    assert results["bad.ipynb"].status == "failed" and "no list of cells" in results["bad.ipynb"].error
    assert results["good.py"].status == "skipped"
    with pytest.raises(NotebookError):
        load(b"[1]")


def test_export_for_verify_drops_ipython_lines_with_notes(tmp_path):
    from tfmigrate.runtime import verify

    nb = (FIXTURES / "notebook_model_fn" / "original.ipynb").read_bytes()
    text, dropped = export(nb)
    compile(text, "<export>", "exec")
    assert dropped == ["cell 1: !pip list 2>/dev/null | grep -i '^tensorflow ' || true", "cell 1: %matplotlib inline",
                       "cell 8: %%bash (cell magic)"]
    said = []
    script = verify._program(FIXTURES / "notebook_model_fn" / "original.ipynb", tmp_path / "x", "ORIGINAL",
                             said.append)
    assert script == tmp_path / "x" / "original.py" and script.read_text().endswith(text)
    assert "IPython lines dropped: cell 1: !pip" in said[0]
    assert verify._program(Path("prog.py"), tmp_path, "ORIGINAL") == Path("prog.py")
    # no strategy in the notebook: verify runs it as one process, as for a .py
    assert verify.trainers_for(FIXTURES / "notebook_model_fn" / "original.ipynb") == (
        1, "original.ipynb sets no multi-worker train_distribute")


def test_a_cell_that_does_not_parse_is_named(tmp_path):
    path = notebook(tmp_path / "bad.ipynb", cell("import tensorflow as tf\n"),
                    cell("x = 1\nest = tf.estimator.Estimator(\n"))
    [result] = migrate_paths([path], Options(), jobs=1)
    assert result.status == "failed" and result.output == result.source
    assert result.error.startswith("code cell 2, line 2: "), result.error
