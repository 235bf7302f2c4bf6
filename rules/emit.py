"""Helpers for emitting generated code as text.

`CodeWords` answers "does this generated text name one of the file's TF bindings?" the way the passes that would
walk its parse see it: a word inside a string literal (a docstring) or a comment is no Name node, so the
leftover-name pass would find nothing there and the text need not be parsed for it.
"""
from __future__ import annotations

import re

# A string literal (any prefix, single or triple quoted, escapes honoured) or a comment, scanned left to right as
# Python's tokenizer does: in valid code a quote or `#` outside a string opens a string or a comment.
_STRING_OR_COMMENT = re.compile(
    r"""(?P<prefix>\b[rRbBuUfF]{1,2})?(?P<body>\"\"\"(?:\\[\s\S]|[^\\])*?\"\"\"|'''(?:\\[\s\S]|[^\\])*?'''"""
    r"""|"(?:\\[\s\S]|[^"\\\n])*"|'(?:\\[\s\S]|[^'\\\n])*')|\#[^\n]*""")


def code_only(text: str) -> str | None:
    """`text` with its plain string literals replaced by `"" ` and its comments removed (f-strings are kept: their
    replacement fields hold code). None when the scan cannot vouch for its reading of an f-string (a replacement
    field whose braces do not balance within the literal it found, as Python 3.12's nested quotes would give):
    the caller then searches the whole text."""
    out: list[str] = []
    last = 0
    for m in _STRING_OR_COMMENT.finditer(text):
        prefix = m.group("prefix") or ""
        if "f" in prefix or "F" in prefix:
            body = m.group("body")
            if body.count("{") != body.count("}"):
                return None
            continue  # kept as it is (it is part of the text between masked spans)
        out.append(text[last:m.start()])
        if m.group("body") is not None:
            out.append('"" ')  # spaced: adjacent literals must not merge into a triple quote
        last = m.end()
    out.append(text[last:])
    return "".join(out)


class CodeWords:
    """`re.compile(r"\\bw1\\b|\\bw2\\b|…")` for the file's binding names, whose `search` looks at code only (not
    into string literals or comments)."""

    def __init__(self, words):
        self.pattern = re.compile("|".join(rf"\b{re.escape(word)}\b" for word in words))

    def search(self, text: str):
        found = self.pattern.search(text)
        if found is None:
            return None
        masked = code_only(text)
        return found if masked is None else self.pattern.search(masked)


def code_words(words) -> CodeWords | None:
    return CodeWords(words) if words else None
