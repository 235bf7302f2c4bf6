"""TFM901 unused-suppression: rule selection (`select`/`ignore`/`per-file-ignores`) and suppression comments.

What it does: `# tfmigrate: ignore[TFM601]` at the end of a line hides the TFM601 finding reported at that line;
`# tfmigrate: ignore[TFM6]` hides every TFM6xx finding there and a bare `# tfmigrate: ignore` hides all of them.
`--select`/`--ignore` (and `select`/`ignore`/`per-file-ignores` in `[tool.tfmigrate]`) choose by code or prefix
which findings are reported at all; the most specific selector wins, `ignore` on a tie.

Why it matters: suppressions and selection only hide *reports*. A blocking construct still blocks: the file is
left byte-identical (never a half-migration) and still counts as needing manual work, so the exit code stays 1
and the summary says how many files were "left unchanged, blocked by suppressed findings". To stop tfmigrate from
looking at a file at all, exclude it (`extend-exclude`).

TFM901 (reported with `--report-unused-suppressions`): a suppression comment that hid nothing, e.g. because the
construct was migrated or the code is misspelt. Files left unchanged by a blocker are not checked: their notes
were never computed. An unused suppression is an error: it makes the exit code 1, like ruff's RUF100.

Example:

    opt = tf.compat.v1.train.AdamOptimizer(0.01)  # tfmigrate: ignore[TFM302]

hides the note that the generated TF1Adam differs from stock Keras Adam; after the migration the line no longer
produces TFM302, and `--report-unused-suppressions` reports the comment as TFM901.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

from tfmigrate.rules import RULES, Rule

from .diagnostics import Diagnostic, FileResult
from .files import glob_match, decode
from .records import field, record
from .reporting import Report

ENGINE_RULES = (
    Rule("TFM901", "unused-suppression", "tfmigrate.suppressions",
         "a `# tfmigrate: ignore[...]` comment that hid no finding (with --report-unused-suppressions)"),
)
ALL = "ALL"
COMMENT = re.compile(r"#\s*tfmigrate:\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
# the cheap check on the bytes, before a decode (which imports tokenize): COMMENT's words on one line, as
# case-insensitive (a file that names tfmigrate elsewhere, in a docstring, is not decoded for it)
_WORD = re.compile(rb"tfmigrate:[^\n]*ignore", re.IGNORECASE)


def known_codes() -> list[str]:
    return [r.code for r in (*RULES, *ENGINE_RULES)]


class SelectorError(ValueError):
    pass


def check_selectors(selectors, where: str) -> list[str]:
    """Codes or prefixes (`TFM6`, `TFM601`) or `ALL`; anything that names no rule is an error (a typo)."""
    codes = known_codes()
    out = []
    for raw in selectors or ():
        sel = raw.strip().upper()
        if not sel:
            continue
        if sel != ALL and not any(code.startswith(sel) for code in codes):
            raise SelectorError(f"{where}: {raw!r} matches no rule code (see `tfmigrate rules`)")
        out.append(sel)
    return out


def _specificity(code: str, selectors) -> int:
    """Length of the longest selector matching `code` (ALL: 0), or -1 when none does."""
    best = -1
    for sel in selectors:
        if sel == ALL:
            best = max(best, 0)
        elif code.startswith(sel):
            best = max(best, len(sel))
    return best


def is_selected(code: str, select, ignore) -> bool:
    """ruff's resolution: the more specific of the matching `select` and `ignore` selectors wins, `ignore` on a tie."""
    s, i = _specificity(code, select), _specificity(code, ignore)
    return s >= 0 and s > i


@record
class Suppression:
    line: int
    col: int  # 0-based column of the comment
    codes: tuple[str, ...] | None  # None: a bare `# tfmigrate: ignore` (every code)
    text: str
    used: set[str] = field(default_factory=set)

    def covers(self, code: str) -> str | None:
        """The selector of this comment that hides `code`, or None."""
        if self.codes is None:
            return ALL
        for sel in self.codes:
            if code.startswith(sel):
                return sel
        return None


def find_suppressions(source: bytes) -> dict[int, Suppression]:
    """line -> the suppression comment on it (read from the tokens: a `#` inside a string is not a comment)."""
    if not _WORD.search(source):
        return {}
    try:
        text, _ = decode(source)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return {}
    if not COMMENT.search(text):  # a suppression comment's text is in the file's text: none, no need to tokenize
        return {}
    import tokenize

    comments: list[tuple[int, int, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                comments.append((tok.start[0], tok.start[1], tok.string))
    except (tokenize.TokenError, SyntaxError, IndentationError):  # a file that does not tokenize: read lines
        comments = [(n, line.index("#"), line[line.index("#"):]) for n, line in enumerate(text.splitlines(), 1)
                    if "#" in line]
    found = {}
    for line, col, comment in comments:
        m = COMMENT.search(comment)
        if not m:
            continue
        codes = None
        if m.group("codes") is not None:
            codes = tuple(c.strip().upper() for c in m.group("codes").split(",") if c.strip())
        found[line] = Suppression(line, col + m.start(), codes, m.group(0))
    return found


@record
class Selection:
    """Which findings are shown: rule selectors, per-file ignores (globs relative to `root`) and comments."""

    select: list[str] = field(default_factory=lambda: [ALL])
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    root: Path | None = None
    report_unused: bool = False

    def ignored_for(self, path: str) -> list[str]:
        extra = [c for pattern, codes in self.per_file_ignores.items() if glob_match(Path(path), pattern, self.root)
                 for c in codes]
        return [*self.ignore, *extra]

    def selected(self, code: str, path: str) -> bool:
        return is_selected(code, self.select, self.ignored_for(path))


def apply(results: list[FileResult], selection: Selection, writing: bool) -> Report:
    """Decide which findings are shown. Hidden blocking findings still block: their files stay unchanged and
    are counted in `Report.blocked_silently`."""
    report = Report(results, writing)
    sources = {r.path: r.source for r in results}
    comments: dict[str, dict[int, Suppression]] = {}

    def comments_of(path: str) -> dict[int, Suppression]:
        if path not in comments:
            data = sources.get(path)
            if data is None:
                try:
                    data = Path(path).read_bytes()
                except OSError:
                    data = b""
            comments[path] = find_suppressions(data)
        return comments[path]

    for result in results:
        shown_errors, hidden_errors = 0, []
        for d in result.diagnostics:
            visible = selection.selected(d.code, d.path)
            if visible:
                suppression = comments_of(d.path).get(d.line)
                selector = suppression.covers(d.code) if suppression else None
                if selector is not None:
                    suppression.used.add(selector)
                    visible = False
            if visible:
                report.findings.append(d)
                shown_errors += d.severity == "error"
            else:
                report.hidden += 1
                if d.severity == "error":
                    hidden_errors.append(d.code)
        if result.status == "blocked" and not shown_errors:
            report.blocked_silently[result.path] = sorted(set(hidden_errors))
    if selection.report_unused:
        for result in results:
            # a file the prefilter skipped is an unchanged file no rule spoke of: its comments count the same
            if result.status not in ("changed", "unchanged", "skipped"):
                continue
            for s in comments_of(result.path).values():
                unused = _unused(s)
                if unused and selection.selected("TFM901", result.path):
                    report.findings.append(Diagnostic("TFM901", unused, s.line, s.col, "error", result.path))
    return report


def _unused(s: Suppression) -> str:
    if s.codes is None:
        return "" if s.used else f"unused suppression `{s.text}`: no finding on this line"
    unused = [c for c in s.codes if c not in s.used]
    if not unused:
        return ""
    return f"unused suppression of {', '.join(unused)} in `{s.text}`: no such finding on this line"
