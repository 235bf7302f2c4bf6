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
    def at_places(cls, code: str, one: str, several: str, place: str, node=None) -> "Blocked":
        """A blocker of a construct that names the place it blocks (`one` with `{places}`: the line of the Estimator
        a shared column serves): found again for other places at the same node, it stays one diagnostic, whose
        message (`several`) names them all."""
        out = cls(code, one.format(places=place), node)
        out.places = (one, several, [place])
        return out

    def wrapped(self, code: str, before: str, after: str, node=None) -> "Blocked":
        """This blocker's message inside a longer one (`before` + message + `after`), keeping the places it names."""
        places = getattr(self, "places", None)
        if places is None:
            return Blocked(code, before + self.message + after, node)
        b, a = (t.replace("{", "{{").replace("}", "}}") for t in (before, after))
        out = Blocked.at_places(code, b + places[0] + a, b + places[1] + a, places[2][0], node)
        out.places[2][1:] = places[2][1:]
        return out

    @classmethod
    def many(cls, errors: list["Blocked"]) -> "Blocked":
        """One exception carrying every blocker (deduplicated), the first one as its own code and message."""
        seen, unique, placed = set(), [], {}
        for e in (x for err in errors for x in err.errors):
            places = getattr(e, "places", None)
            if places is not None:  # the same construct blocking at several places: one blocker naming them
                key = (e.code, places[0], id(e.node))
                if key in placed:
                    merged = placed[key]
                    names = merged.places[2]
                    names.extend(p for p in places[2] if p not in names)
                    merged.message = merged.places[1].format(places=", ".join(names))
                    continue
                e = cls.at_places(e.code, places[0], places[1], places[2][0], e.node)
                e.places[2].extend(places[2][1:])
                if len(e.places[2]) > 1:
                    e.message = places[1].format(places=", ".join(e.places[2]))
                placed[key] = e
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
    unit: str = ""  # the migration unit it came from (its first file): the CLI writes a unit all or none
