"""Generated call text: the TF placeholder renamed at the end, and long calls wrapped one argument per line."""
from __future__ import annotations

import keyword
import re
import libcst as cst

from ..facts.calls import TF, code

_OPEN, _CLOSE = "([{", ")]}"


_TF_REF = re.compile(r"(?<![\w.])tf\.")


def generated(text: str) -> str:
    """tfmigrate's own code text with its `tf.` references marked (user code never goes through here)."""
    return _TF_REF.sub(TF + ".", text)


def wrap_call(text: str, base_indent: str = "", width: int = 100) -> str:
    """Lay out generated call code black-style: one line if it fits, else one argument per line.

    `base_indent` is the absolute indentation of the line the call starts on (continuation lines are absolute).
    """
    first_line = text.split("\n", 1)[0]
    if len(base_indent) + len(first_line) <= width and "\n" not in text:
        return text
    if "\n" not in text:
        try:  # the layout read from the text, where it is of a shape read exactly as LibCST's parse would be
            return _wrap_text(text, _blank_strings(text), base_indent, width)
        except _Unsure:
            pass
    try:
        expr = cst.parse_expression(text)
    except cst.ParserSyntaxError:
        return text  # not a single expression: leave the line as it is
    return _wrap(expr, text, base_indent, width)


def _wrap_part(node: cst.BaseExpression, base_indent: str, width: int) -> str:
    """wrap_call(code(node), ...) without parsing the text again where it is one line (the node is what a parse of
    it gives; a multi-line part is parsed, as it may not be an expression on its own)."""
    text = code(node)
    if "\n" in text:
        return wrap_call(text, base_indent, width)
    if len(base_indent) + len(text) <= width or not isinstance(node, (cst.List, cst.Call)):
        return text
    return _wrap(node, text, base_indent, width)


def _wrap(expr: cst.BaseExpression, text: str, base_indent: str, width: int) -> str:
    inner = base_indent + "    "
    if isinstance(expr, cst.List) and expr.elements:
        items = [("*" if isinstance(el, cst.StarredElement) else "") + _wrap_part(el.value, inner, width)
                 for el in expr.elements]
        return "[\n" + "".join(f"{inner}{item},\n" for item in items) + f"{base_indent}]"
    if not isinstance(expr, cst.Call) or not expr.args:
        return text
    if isinstance(expr.func, cst.Attribute) and isinstance(expr.func.value, cst.Call) and "\n" not in text:
        return text  # a method chain (`Dataset.from_tensor_slices(d).batch(32)`): splitting its last call helps no one
    args = []
    for arg in expr.args:
        prefix = f"{arg.keyword.value}=" if arg.keyword is not None else arg.star
        args.append(prefix + _wrap_part(arg.value, inner, width))
    return f"{code(expr.func)}(\n" + "".join(f"{inner}{a},\n" for a in args) + f"{base_indent})"


class _Unsure(Exception):
    """The text is not of a shape `_wrap_text` reads the way LibCST's parse would."""


_SIMPLE_STRING = re.compile(r"""(?<!\w)[rRbBuU]{0,2}(?:"[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\\\n]*(?:\\.[^'\\\n]*)*')""")


_PRIMARY = re.compile(r"[A-Za-z_]\w*")


_ATTRIBUTE = re.compile(r"\.[A-Za-z_]\w*")


_KEYWORD_ARG = re.compile(r"([A-Za-z_]\w*)\s*=(?!=)")


_NOT_AT_TOP = re.compile(r"\b(?:for|async|lambda|yield|await)\b|:")


def _blank_strings(text: str) -> str:
    """`text` with each plain one-line string literal (prefix included) turned into as many `_` (a name-like run,
    same length); a triple quote, an f-string, an unpaired quote or a comment make the reading unsure."""
    if '"""' in text or "'''" in text:
        raise _Unsure
    out = _SIMPLE_STRING.sub(lambda m: "_" * len(m.group()), text)
    if '"' in out or "'" in out or "#" in out or "\\" in out:
        raise _Unsure
    return out


def _group(masked: str, start: int) -> tuple[int, list[int]]:
    """For the bracket opening at `start`: the index after its closing bracket and the commas directly inside."""
    depth, commas = 0, []
    for i in range(start, len(masked)):
        c = masked[i]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
            if depth == 0:
                return i + 1, commas
        elif c == "," and depth == 1:
            commas.append(i)
    raise _Unsure


def _pieces(text: str, masked: str, start: int, commas: list[int], end: int) -> list[tuple[str, str]]:
    """The (text, masked) of each comma-separated item between the brackets at `start` and `end - 1`, stripped;
    a trailing comma ends the list. An item holding what `_NOT_AT_TOP` finds outside its own brackets (a
    generator, a lambda, a walrus, ...) is unsure."""
    bounds = [start, *commas, end - 1]
    out = []
    for a, b in zip(bounds, bounds[1:]):
        piece, piece_masked = text[a + 1:b].strip(), masked[a + 1:b].strip()
        out.append((piece, piece_masked))
    if out and not out[-1][0] and commas:
        out.pop()
    for piece, piece_masked in out:
        if not piece or _NOT_AT_TOP.search(_flatten(piece_masked)):
            raise _Unsure
    return out


def _flatten(masked: str) -> str:
    """`masked` with what is inside its brackets dropped (the brackets kept)."""
    out, depth = [], 0
    for c in masked:
        if c in _CLOSE:
            depth -= 1
        if depth == 0:
            out.append(c)
        if c in _OPEN:
            depth += 1
    return "".join(out)


def _shape(masked: str):
    """How LibCST parses the one-line expression whose masked text is `masked`, as far as `_wrap` looks at it:
    ("list", start, commas, end) for a list display, ("call", start, commas, end, chained) for a call (`start`
    its parenthesis; `chained`: its func is a method of another call's result), ("other",) for what `_wrap`
    keeps as written. Only a name (or string) followed by calls, subscripts and attributes with nothing between
    them is read; anything else is _Unsure."""
    if masked.startswith("["):
        end, commas = _group(masked, 0)
        if end != len(masked):
            raise _Unsure
        return "list", 0, commas, end
    m = _PRIMARY.match(masked)
    if m is None or keyword.iskeyword(m.group()) or keyword.issoftkeyword(m.group()):
        raise _Unsure
    i, trailers, last = m.end(), [], None
    while i < len(masked):
        c = masked[i]
        if c in "([":
            end, commas = _group(masked, i)
            trailers.append(c)
            last = (i, commas, end)
            i = end
        else:
            m = _ATTRIBUTE.match(masked, i)
            if m is None or keyword.iskeyword(m.group()[1:]):
                raise _Unsure
            trailers.append(".")
            i = m.end()
    if not trailers or trailers[-1] != "(":
        return ("other",)
    chained = trailers[-3:-1] == ["(", "."]
    return ("call", *last, chained)


def _wrap_text(text: str, masked: str, base_indent: str, width: int) -> str:
    """`_wrap(parse_expression(text), text, base_indent, width)` for one-line `text` (`masked`: _blank_strings)."""
    shape = _shape(masked)
    inner = base_indent + "    "
    if shape[0] == "list":
        _, start, commas, end = shape
        items = []
        for piece, piece_masked in _pieces(text, masked, start, commas, end):
            star = piece_masked.startswith("*")
            if star:
                piece, piece_masked = piece[1:].lstrip(), piece_masked[1:].lstrip()
            items.append(("*" if star else "") + _wrap_text_part(piece, piece_masked, inner, width))
        if not items:
            raise _Unsure  # `[]` (or `[,]`): left to the parse
        return "[\n" + "".join(f"{inner}{item},\n" for item in items) + f"{base_indent}]"
    if shape[0] != "call":
        return text
    _, start, commas, end, chained = shape
    pieces = _pieces(text, masked, start, commas, end)
    if not pieces:
        return text  # a call without arguments
    if chained:
        return text  # a method chain: see _wrap
    args = []
    for piece, piece_masked in pieces:
        prefix = ""
        if piece_masked.startswith("*"):
            prefix = "**" if piece_masked.startswith("**") else "*"
            piece, piece_masked = piece[len(prefix):].lstrip(), piece_masked[len(prefix):].lstrip()
        else:
            m = _KEYWORD_ARG.match(piece_masked)
            if m is not None:
                prefix = m.group(1) + "="
                piece, piece_masked = piece[m.end():].lstrip(), piece_masked[m.end():].lstrip()
        args.append(prefix + _wrap_text_part(piece, piece_masked, inner, width))
    return f"{text[:start]}(\n" + "".join(f"{inner}{a},\n" for a in args) + f"{base_indent})"


def _wrap_text_part(text: str, masked: str, base_indent: str, width: int) -> str:
    """`_wrap_part` on the text of a one-line argument or element."""
    if len(base_indent) + len(text) <= width:
        return text
    return _wrap_text(text, masked, base_indent, width)
