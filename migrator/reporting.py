"""What `tfmigrate rewrite` tells the user: findings, per-file lines, the summary line and the exit code.

Findings print as `path:line:col: error|note CODE message` (columns 1-based, as ruff and flake8 print them),
severity coloured on a terminal (never when NO_COLOR is set; FORCE_COLOR forces it). Machine-readable formats
(json, sarif, github, junit) live in `tfmigrate.formats`.
"""
from __future__ import annotations

import os
from collections import Counter

from .diagnostics import Diagnostic, FileResult
from .records import field, record

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def use_color(stream) -> bool:
    """Colour only on a terminal; NO_COLOR (https://no-color.org) wins, FORCE_COLOR forces it."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


class Style:
    """ANSI styling that disappears when colour is off."""

    CODES = {"bold": "1", "red": "1;31", "cyan": "36", "yellow": "33", "green": "32", "dim": "2"}

    def __init__(self, color: bool):
        self.color = color

    def __call__(self, text: str, style: str) -> str:
        if not self.color or not text:
            return text
        return f"\x1b[{self.CODES[style]}m{text}\x1b[0m"


SEVERITY_STYLE = {"error": "red", "note": "cyan", "warning": "yellow"}


def format_finding(d: Diagnostic, style: Style) -> str:
    """`path:line:col: severity CODE message` (the plain form is exactly `Diagnostic.format()`)."""
    return (f"{style(d.path, 'bold')}:{d.line}:{d.col + 1}: {style(d.severity, SEVERITY_STYLE.get(d.severity, 'bold'))} "
            f"{style(d.code, 'bold')} {d.message}")


def format_failure(result: FileResult, style: Style) -> str:
    where = result.path
    if result.error_at:
        where = f"{result.path}:{result.error_at[0]}:{result.error_at[1] + 1}"
    return f"{style(where, 'bold')}: {style('error', 'red')}: {result.error}"


@record
class Report:
    """The outcome of a run, after rule selection and suppression comments were applied."""

    results: list[FileResult]
    writing: bool  # False under --check / --diff
    findings: list[Diagnostic] = field(default_factory=list)  # what is shown, in file order
    # blocked files whose every blocking finding is hidden (ignored or suppressed): path -> the hidden codes
    blocked_silently: dict[str, list[str]] = field(default_factory=dict)
    hidden: int = 0  # findings hidden by --ignore/--select/per-file-ignores or a suppression comment

    def count(self, status: str) -> int:
        return sum(r.status == status for r in self.results)

    def counts(self) -> Counter:
        """Files per status, in one pass (the summary and the exit code read several; a run may have thousands)."""
        return Counter(r.status for r in self.results)

    @property
    def changed(self) -> int:
        return self.count("changed")

    @property
    def blocked(self) -> int:
        return self.count("blocked")

    @property
    def failed(self) -> int:
        return self.count("failed")

    @property
    def unchanged(self) -> int:
        return self.count("unchanged") + self.count("skipped")

    @property
    def failing_findings(self) -> list[Diagnostic]:
        """Findings that fail the run by themselves (unused suppressions when asked for)."""
        return [d for d in self.findings if d.severity == "error" and d.code in FAILING_CODES]

    def exit_code(self) -> int:
        """black/ruff: 2 on any error; 1 if manual work remains (a blocked file, shown or not), a file would change
        under --check/--diff, or an unused suppression is reported; else 0 (everything converted, or nothing to do)."""
        counts = self.counts()
        if counts["failed"]:
            return EXIT_ERROR
        if counts["blocked"] or self.failing_findings:
            return EXIT_FINDINGS
        if not self.writing and counts["changed"]:
            return EXIT_FINDINGS
        return EXIT_OK

    def summary(self) -> str:
        """`rewrote 2 files, 1 needs manual work, 3 unchanged, 0 failed` (`would rewrite` under --check/--diff)."""
        counts = self.counts()
        changed, blocked_files = counts["changed"], counts["blocked"]
        verb = "rewrote" if self.writing else "would rewrite"
        noun = "file" if changed == 1 else "files"
        blocked = f"{blocked_files} need{'s' if blocked_files == 1 else ''} manual work"
        if self.blocked_silently:
            n = len(self.blocked_silently)
            blocked += f" ({n} left unchanged, blocked by suppressed findings)"
        unchanged = counts["unchanged"] + counts["skipped"]
        return f"{verb} {changed} {noun}, {blocked}, {unchanged} unchanged, {counts['failed']} failed"

    def statistics(self) -> list[tuple[str, int, str]]:
        """(code, count, rule name) of the shown findings, most frequent first (ruff --statistics)."""
        counts = Counter(d.code for d in self.findings)
        return [(code, n, rule_name(code)) for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


FAILING_CODES = {"TFM901"}  # unused suppression: reported only under --report-unused-suppressions


def rule_name(code: str) -> str:
    from tfmigrate.rules import RULES

    from .suppressions import ENGINE_RULES

    for rule in (*RULES, *ENGINE_RULES):
        if rule.code == code:
            return rule.name
    return ""

