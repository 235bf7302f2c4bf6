"""--select/--ignore, per-file-ignores and `# tfmigrate: ignore[...]`: they hide reports, never a blocker's effect."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tfmigrate.cli import app
from tfmigrate.suppressions import find_suppressions, is_selected

ROOT = Path(__file__).resolve().parents[2]
ORIGINAL = (ROOT / "fixtures" / "regression_adagrad" / "original.py").read_text()
MIGRATED = (ROOT / "fixtures" / "regression_adagrad" / "migrated.py").read_bytes()
BLOCKED = (ROOT / "fixtures" / "unsupported_hook" / "original.py").read_text()
HOOK_LINE = 96  # `training_hooks=[BiasHook(loss, b)]`: TFM611 blocks the file
NOTE_LINE = 93  # `log_step_count_steps=50,`: a TFM601 note
NEXT_NOTE_LINE = 102  # `eval_spec = tf.estimator.EvalSpec(..., throttle_secs=0)`: another
SILENT = "1 left unchanged, blocked by suppressed findings"


def rewrite(*args):
    result = CliRunner().invoke(app, ["rewrite", "--isolated", *map(str, args)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def with_comment(text: str, line: int, comment: str) -> str:
    lines = text.splitlines(True)
    lines[line - 1] = lines[line - 1].rstrip("\n") + f"  {comment}\n"
    return "".join(lines)


def findings(err: str) -> list[tuple[int, str, str]]:
    return [(int(m[0]), m[1], m[2]) for m in re.findall(r"^\S+?:(\d+):\d+: (error|note) (TFM\d+) ", err, re.M)]


def test_comment_parsing():
    src = (b"x = 1  # tfmigrate: ignore[TFM601, tfm5]\n"
           b"y = '# tfmigrate: ignore'\n"
           b"z = 2  # TFMigrate:ignore\n"
           b"w = 3  # tfmigrate: ignored-by-nothing\n")
    found = find_suppressions(src)
    assert sorted(found) == [1, 3]
    assert found[1].codes == ("TFM601", "TFM5") and found[1].col == 7
    assert found[3].codes is None
    assert find_suppressions(b"import os\n") == {}
    # only upper-case spellings in the file: the cheap pre-check must not skip them
    only_upper = find_suppressions(b"x = 1  # TFMIGRATE: IGNORE[tfm601]\n")
    assert list(only_upper) == [1] and only_upper[1].codes == ("TFM601",)


@pytest.mark.parametrize("code, select, ignore, expected", [
    ("TFM601", ["ALL"], [], True),
    ("TFM601", ["ALL"], ["TFM6"], False),
    ("TFM601", ["TFM6"], ["TFM601"], False),
    ("TFM601", ["TFM601"], ["TFM6"], True),   # the more specific selector wins
    ("TFM601", ["TFM6"], ["TFM6"], False),    # ignore on a tie
    ("TFM501", ["TFM6"], [], False),
    ("TFM501", ["ALL"], ["ALL"], False),
])
def test_selection_resolution(code, select, ignore, expected):
    assert is_selected(code, select, ignore) is expected


def test_ignore_hides_notes_of_a_converted_file(tmp_path):
    f = tmp_path / "prog.py"
    f.write_text(ORIGINAL)
    code, _, err = rewrite("--ignore", "TFM601", f)
    assert code == 0, err
    assert findings(err) == [] and f.read_bytes() == MIGRATED


def test_suppression_comment_hides_one_finding_at_its_line(tmp_path):
    f = tmp_path / "prog.py"
    f.write_text(with_comment(ORIGINAL, NOTE_LINE, "# tfmigrate: ignore[TFM601]"))
    code, _, err = rewrite("--check", f)
    assert code == 1  # --check: would change
    lines = [line for line, _, _ in findings(err)]
    assert NOTE_LINE not in lines and NEXT_NOTE_LINE in lines
    f.write_text(with_comment(ORIGINAL, NOTE_LINE, "# tfmigrate: ignore"))
    assert NOTE_LINE not in [line for line, _, _ in findings(rewrite("--check", f)[2])]


@pytest.mark.parametrize("how", ["comment", "bare comment", "ignore", "select", "per-file-ignores"])
def test_a_hidden_blocker_still_blocks_and_still_fails(tmp_path, how):
    """Never a half-migration, never exit 0 for a file left unconverted: only the report is hidden."""
    f = tmp_path / "hook.py"
    args = []
    if how == "comment":
        f.write_text(with_comment(BLOCKED, HOOK_LINE, "# tfmigrate: ignore[TFM611]"))
    elif how == "bare comment":
        f.write_text(with_comment(BLOCKED, HOOK_LINE, "# tfmigrate: ignore"))
    else:
        f.write_text(BLOCKED)
        args = {"ignore": ["--ignore", "TFM61"], "select": ["--select", "TFM60,TFM001"],
                "per-file-ignores": ["--config", 'per-file-ignores={"hook.py" = ["TFM611"]}']}[how]
    before = f.read_bytes()
    code, _, err = rewrite(*args, f)
    assert code == 1, err
    assert f.read_bytes() == before
    assert not [x for x in findings(err) if x[1] == "error"], err
    assert SILENT in err
    assert re.search(rf"^{re.escape(str(f))}: note: left unchanged: .*\(TFM611\); it still needs manual work$", err,
                     re.M), err


def test_visible_blocker_is_not_counted_as_silent(tmp_path):
    f = tmp_path / "hook.py"
    f.write_text(BLOCKED)
    code, _, err = rewrite(f)
    assert code == 1 and SILENT not in err and ("error", "TFM611") in [x[1:] for x in findings(err)]


def test_unused_suppressions_are_reported_on_request(tmp_path):
    f = tmp_path / "prog.py"
    text = with_comment(ORIGINAL, NOTE_LINE, "# tfmigrate: ignore[TFM601]")
    text = with_comment(text, NEXT_NOTE_LINE, "# tfmigrate: ignore[TFM601, TFM302]")
    text = with_comment(text, 3, "# tfmigrate: ignore")  # inside the docstring: not a comment
    text = with_comment(text, 8, "# tfmigrate: ignore")
    f.write_text(text)
    code, _, err = rewrite("--check", f)
    assert "TFM901" not in err  # off unless asked
    code, _, err = rewrite("--check", "--report-unused-suppressions", f)
    assert code == 1
    unused = [(line, sev) for line, sev, c in findings(err) if c == "TFM901"]
    assert unused == [(8, "error"), (NEXT_NOTE_LINE, "error")], err
    assert "unused suppression of TFM302" in err
    # a converted file with only used suppressions passes
    f.write_text(with_comment(ORIGINAL, NOTE_LINE, "# tfmigrate: ignore[TFM601]"))
    code, _, err = rewrite("--report-unused-suppressions", f)
    assert code == 0, err


def test_unknown_selector_exits_2(tmp_path):
    f = tmp_path / "prog.py"
    f.write_text(ORIGINAL)
    code, _, err = rewrite("--select", "TFM99", f)
    assert code == 2 and "'TFM99' matches no rule code" in err
    assert f.read_text() == ORIGINAL


def test_statistics_count_shown_findings(tmp_path):
    f = tmp_path / "prog.py"
    f.write_text(ORIGINAL)
    (tmp_path / "hook.py").write_text(BLOCKED)
    code, _, err = rewrite("--check", "--statistics", tmp_path)
    assert re.search(r"^\s+2\tTFM601\testimator-driver$", err, re.M), err
    assert re.search(r"^\s+1\tTFM611\tsession-run-hooks$", err, re.M), err


def test_unused_suppressions_in_files_no_rule_reads_are_reported_with_and_without_the_prefilter(tmp_path):
    f = tmp_path / "plain.py"
    f.write_text("import tensorflow as tf\n\nx = tf.constant(1)  # tfmigrate: ignore[TFM601]\n")
    for extra in ([], ["--no-prefilter"]):
        code, _, err = rewrite("--check", "--report-unused-suppressions", "--no-cache", *extra, f)
        assert code == 1 and findings(err) == [(3, "error", "TFM901")], (extra, err)
