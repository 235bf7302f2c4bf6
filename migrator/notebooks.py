"""Jupyter notebooks: the code cells as one program, and the converted program put back into the cells.

The code cells, in order, are one Python program (a notebook runs them top to bottom in one namespace): they are
joined into one source with a marker comment line before each cell, converted like a .py file, and split again at
the markers. IPython syntax that is not Python (`%matplotlib inline`, `!pip install x`, `files = !ls`, `obj?`, a
`%%bash` cell) is swapped for a placeholder statement before the parse and restored after, so it comes back
unchanged. A rewrite that drops or reorders a marker, or moves code into a cell magic, is refused (the caller's
finding), never guessed at. Only the changed cells' `source` changes: markdown, outputs, execution counts,
metadata and cell ids are the parsed JSON's own, written back in the layout the file had (Jupyter's: indent 1,
sorted keys). Plain `json`: nbformat is not needed to read or write.
"""
from __future__ import annotations

import bisect
import json
import re

# IPython line syntax (what IPython's input transformers turn into calls): `%magic`, `!shell`, `x = !cmd`,
# `x = %magic`, `name?` / `name??` / `?name` help
_MAGIC = re.compile(r"[ \t]*(?:[!%]|[\w.]+[ \t]*=[ \t]*[!%]|\?+[\w.]+[ \t]*$|[\w.]+\?\??[ \t]*$)")
# the Jupyter JSON layouts tried, Jupyter's own (nbformat.writes, a final newline) first
_LAYOUTS = [(indent, keys, ascii_, end) for indent in (1, 2, 4, None) for keys in (True, False)
            for ascii_ in (False, True) for end in ("\n", "")]


class NotebookError(ValueError):
    """Bytes that are no nbformat-4-shaped notebook (no `cells` list of dicts with a `source`)."""


class LostBoundary(NotebookError):
    """A cell marker did not come back (see Program.marker)."""


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def load(data: bytes) -> dict:
    try:
        nb = json.loads(data)
    except ValueError as exc:
        raise NotebookError(f"not JSON: {exc}") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list) \
            or not all(isinstance(c, dict) for c in nb["cells"]):
        raise NotebookError("no list of cells (nbformat 4)")
    return nb


def code_cells(nb: dict) -> list[tuple[int, str]]:
    """(index in nb["cells"], text) of each code cell, in order."""
    return [(i, _text(c.get("source", ""))) for i, c in enumerate(nb["cells"]) if c.get("cell_type") == "code"]


def _is_cell_magic(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    return first.lstrip().startswith("%%")


def _compiles(text: str) -> bool:
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<cell>", "exec", flags=0x400, dont_inherit=True)  # ast.PyCF_ONLY_AST
    except (SyntaxError, ValueError):
        return False
    return True


def _magic_lines(text: str) -> list[tuple[int, int]]:
    """(first, last) line numbers (0-based, inclusive) of each IPython line (with its backslash continuations). A
    cell that is Python as it stands has none: a `%` or `!=` that starts a line there continues an expression."""
    if "%" not in text and "!" not in text and "?" not in text or _compiles(text):
        return []
    lines = text.splitlines()
    found, i = [], 0
    while i < len(lines):
        if _MAGIC.match(lines[i]):
            j = i
            while lines[j].endswith("\\") and j + 1 < len(lines):
                j += 1
            found.append((i, j))
            i = j + 1
        else:
            i += 1
    return found


class Program:
    """The code cells of a notebook as one Python source (`text`), and the way back (`cells`)."""

    def __init__(self, nb: dict, anchored: bool = False):
        self.nb, self.anchored = nb, anchored
        self.cells = code_cells(nb)
        raw = "".join(t for _, t in self.cells)
        n = 0
        while f"tfmigrate{n}" in raw:  # markers no cell holds
            n += 1
        self.tag = f"tfmigrate{n}"
        self.magics: list[str] = []  # IPython text by placeholder number
        self.opaque: set[int] = set()  # code cells that are cell magics (%%bash): not Python at all
        self.own: list[set[int]] = []  # the placeholders of each code cell
        self.starts: list[int] = []  # the line (from 1) of each cell's marker in `text`
        parts, line = [], 1
        for k, (_, text) in enumerate(self.cells):
            parts.append(self.marker(k) + "\n")
            self.starts.append(line)
            first = len(self.magics)
            if _is_cell_magic(text):
                self.opaque.add(k)
                body = ""
            else:
                body = self._mask(text)
                body = body if not body or body.endswith("\n") else body + "\n"
            self.own.append(set(range(first, len(self.magics))))
            parts.append(body)
            line += 1 + body.count("\n")
        self.text = "".join(parts)

    def marker(self, k: int) -> str:
        # a comment line sits in the leading lines of the statement after it and goes if a rule removes that
        # statement: `anchored` markers are statements of their own (`pass`), which no rule removes
        return f"{'pass  ' if self.anchored else ''}# {self.tag} cell {k}"

    def _mask(self, text: str) -> str:
        lines = text.splitlines(True)
        for first, last in reversed(_magic_lines(text)):
            original = "".join(lines[first:last + 1])
            ending = original[len(original.rstrip("\r\n")):]
            indent = original[:len(original) - len(original.lstrip(" \t"))]
            lines[first:last + 1] = [f"{indent}pass  # {self.tag} magic {len(self.magics)}{ending}"]
            self.magics.append(original[len(indent):].rstrip("\r\n"))  # (the placeholder keeps the indent)
        return "".join(lines)

    def line_of(self, line: int) -> tuple[int, int]:
        """(code cell number from 1, line in that cell) of a line (from 1) of `text`."""
        k = max(0, bisect.bisect_left(self.starts, line) - 1)
        return k + 1, max(1, line - self.starts[k]) if self.starts else line

    def split(self, text: str) -> list[str]:
        """Each code cell's text from the converted program; NotebookError when the markers do not come back in
        order on lines of their own, a magic is lost or moved, or code reached a cell magic."""
        pieces = re.split(rf"^{re.escape(self.marker(0)[:-1])}(\d+)\n", text, flags=re.MULTILINE)
        numbers = [int(n) for n in pieces[1::2]]
        if numbers != list(range(len(self.cells))):
            raise LostBoundary("the converted program lost or reordered the cell boundaries")
        if pieces[0].strip():
            raise NotebookError("the converted program put code before the first code cell")
        out = []
        for k, ((_, original), body) in enumerate(zip(self.cells, pieces[2::2])):
            if k in self.opaque:
                if body.strip():
                    raise NotebookError(f"the converted program put code into code cell {k + 1}, a cell magic")
                out.append(original)
                continue
            if not original.endswith("\n") and body.endswith("\n"):
                body = body[:-1]
            out.append(self._unmask(body, k))
        return out

    def _unmask(self, body: str, k: int) -> str:
        def back(match: re.Match) -> str:
            n = int(match.group(2))
            if n in restored:
                raise NotebookError(f"the converted program repeated an IPython line ({self.magics[n]!r})")
            restored.add(n)
            return match.group(1) + self.magics[n]

        restored: set[int] = set()
        text = re.sub(rf"^([ \t]*)pass  # {self.tag} magic (\d+)$", back, body, flags=re.MULTILINE)
        if restored != self.own[k] or f"{self.tag} magic" in text:
            raise NotebookError(f"the converted program moved or dropped an IPython line of code cell {k + 1}")
        return text

    def with_cells(self, texts: list[str]) -> dict:
        """The notebook with each code cell's source replaced by `texts` (in the form it had: list or string);
        cells whose text is unchanged keep their own source object."""
        nb = dict(self.nb)
        cells = list(nb["cells"])
        for (i, original), text in zip(self.cells, texts):
            if text != original:
                source = cells[i].get("source", "")
                cells[i] = {**cells[i], "source": text.splitlines(True) if isinstance(source, list) else text}
        nb["cells"] = cells
        return nb


def layout(data: bytes, nb: dict) -> tuple | None:
    """The json.dumps settings (indent, sort_keys, ensure_ascii, final newline) that give back `data` exactly."""
    text = data.decode("utf-8", "replace")
    for indent, keys, ascii_, end in _LAYOUTS:
        if json.dumps(nb, indent=indent, sort_keys=keys, ensure_ascii=ascii_) + end == text:
            return indent, keys, ascii_, end
    return None


def dumps(nb: dict, how: tuple | None) -> bytes:
    indent, keys, ascii_, end = how or _LAYOUTS[0]
    return (json.dumps(nb, indent=indent, sort_keys=keys, ensure_ascii=ascii_) + end).encode("utf-8")


def cell_texts(data: bytes) -> list[str]:
    """Each code cell's text (for diffs), or [] when `data` is no notebook."""
    try:
        return [t for _, t in code_cells(load(data))]
    except NotebookError:
        return []


def cell_diff(source: bytes, output: bytes, name: str) -> list[str]:
    """One unified diff per changed code cell, named `name:cell N` (code cells counted from 1, as in findings)."""
    import difflib

    out: list[str] = []
    for k, (a, b) in enumerate(zip(cell_texts(source), cell_texts(output))):
        if a != b:
            out += difflib.unified_diff(_lines(a), _lines(b), f"a/{name}:cell {k + 1}", f"b/{name}:cell {k + 1}")
    return out


def _lines(text: str) -> list[str]:
    # a cell's last line has no newline in the JSON: give it one, so the diff lines stay one per line
    return [line if line.endswith("\n") else line + "\n" for line in text.splitlines(True)]


def export(data: bytes) -> tuple[str, list[str]]:
    """The code cells as a plain Python script (what `verify` runs), and notes on the IPython lines dropped: each
    magic or shell line becomes `pass` (it keeps an indented block a block), each cell magic a comment."""
    nb = load(data)
    parts, dropped = [], []
    for k, (_, text) in enumerate(code_cells(nb)):
        parts.append(f"# code cell {k + 1}\n")
        if _is_cell_magic(text):
            parts.append("".join(f"# {line}" for line in text.splitlines(True)) + "\n\n")
            dropped.append(f"cell {k + 1}: {text.splitlines()[0].strip()} (cell magic)")
            continue
        lines, here = text.splitlines(True), []
        for first, last in reversed(_magic_lines(text)):
            original = "".join(lines[first:last + 1])
            indent = original[:len(original) - len(original.lstrip(" \t"))]
            here.insert(0, f"cell {k + 1}: {original.strip()}")
            lines[first:last + 1] = [f"{indent}pass  # IPython, dropped: {original.strip()!r}\n"]
        dropped += here
        body = "".join(lines)
        parts.append(body + ("\n" if body and not body.endswith("\n") else "") + "\n")
    return "".join(parts), dropped


def migrate(path: str, options, words, finding: tuple[str, str]):
    """The notebook at `path` converted in place (a FileResult whose bytes are the notebook's JSON). `words`: the
    prefilter's (none: no prefilter); `finding`: the rules' (code, message with {name} and {why}) for a converted
    program that cannot be put back into the cells."""
    from pathlib import Path

    from .diagnostics import Diagnostic, FileResult
    from .engine import migrate_source

    try:
        data = Path(path).read_bytes()
        nb = load(data)
    except (OSError, NotebookError) as exc:
        return FileResult(path, "failed", error=f"cannot read the notebook: {exc}")
    # comment markers first: the same conversion as the program's .py would get; a rule that removed the statement
    # after a marker took the marker with it: again with statement markers
    for anchored in (False, True):
        program = Program(nb, anchored)
        if words and not any(word.decode() in program.text for word in words):
            return FileResult(path, "skipped", data, data)
        result = migrate_source(program.text.encode("utf-8"), path, options, prefilter=bool(words))
        diagnostics = [_placed(d, path, program) for d in result.diagnostics]
        if result.status == "failed":
            if result.error_at is not None:
                cell, line = program.line_of(result.error_at[0])
                result.error = f"code cell {cell}, line {line}: {result.error}"
            return FileResult(path, "failed", data, data, diagnostics, result.error, result.linked)
        if result.status != "changed":
            return FileResult(path, result.status, data, data, diagnostics, linked=result.linked)
        try:
            texts = program.split(result.output.decode("utf-8"))
            break
        except NotebookError as exc:
            if isinstance(exc, LostBoundary) and not anchored:
                continue
            code, message = finding
            return FileResult(path, "blocked", data, data, [Diagnostic(
                code, message.format(name=Path(path).name, why=exc), 1, 0, "error", path)])
    how = layout(data, nb)
    if how is None:
        diagnostics.append(Diagnostic(finding[0], "the notebook's JSON is not in a layout tfmigrate writes back byte "
                                      "for byte: it is written as Jupyter writes notebooks (indent 1, sorted keys)",
                                      1, 0, "note", path))
    return FileResult(path, "changed", data, dumps(program.with_cells(texts), how), diagnostics,
                      linked=result.linked)


def _placed(d, path: str, program: Program):
    """A finding on the program's line L as one on its code cell's line (the cell named in the message)."""
    from .diagnostics import Diagnostic

    if d.path != path:
        return d
    cell, line = program.line_of(d.line)
    return Diagnostic(d.code, f"code cell {cell}: {d.message}", line, d.col, d.severity, d.path)
