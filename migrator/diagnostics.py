"""Findings reported by rules: a code, a place and a message (ruff-style `path:line:col: severity CODE message`)."""
from __future__ import annotations

from .records import field, record


@record(frozen=True)
class Diagnostic:
    code: str
    message: str
    line: int = 0
    col: int = 0
    # "error" blocks the file's migration; "note" is informational (the file is still migrated).
    severity: str = "error"
    path: str = ""

    def format(self) -> str:
        """`path:line:col: error|note CODE message`; `col` is kept 0-based (LibCST) and printed 1-based (ruff)."""
        return f"{self.path}:{self.line}:{self.col + 1}: {self.severity} {self.code} {self.message}"

    def at(self, path: str) -> "Diagnostic":
        return Diagnostic(self.code, self.message, self.line, self.col, self.severity, path)


class Blocked(Exception):
    """Raised by a rule when a construct cannot be converted safely; the file is left unchanged."""

    def __init__(self, code: str, message: str, node=None):
        super().__init__(f"{code} {message}")
        self.code = code
        self.message = message
        self.node = node
        self.errors: list["Blocked"] = [self]  # every blocker found, each reported on its own line

    @classmethod
    def many(cls, errors: list["Blocked"]) -> "Blocked":
        """One exception carrying every blocker (deduplicated), the first one as its own code and message."""
        seen, unique = set(), []
        for e in (x for err in errors for x in err.errors):
            key = (e.code, e.message, id(e.node))
            if key not in seen:
                seen.add(key)
                unique.append(e)
        first = unique[0]
        out = cls(first.code, first.message, first.node)
        out.errors = unique
        return out


@record
class FileResult:
    path: str
    status: str  # "unchanged" | "changed" | "blocked" | "skipped" | "failed"
    source: bytes = b""
    output: bytes = b""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: str = ""
    linked: set[str] = field(default_factory=set)  # files migrated as one unit with this one
    error_at: tuple[int, int] | None = None  # (line, 0-based col) of a syntax error
