"""Helpers for emitting generated code as text.

`CodeWords` answers "does this generated text name one of the file's TF bindings?" the way the passes that would
walk its parse see it: a word inside a string literal (a docstring) or a comment is no Name node, so the
leftover-name pass would find nothing there and the text need not be parsed for it.
"""
from __future__ import annotations

import re

# A string literal (any prefix, single or triple quoted, escapes honoured) or a comment, scanned left to right as
# Python's tokenizer does: in valid code a quote or `#` outside a string opens a string or a comment. The prefix
# is the (up to two) letters before the quote; taking an identifier's tail for one (`if"x"`) can only make a plain
# string look like an f-string, which is kept as code (the safe side).
_STRING_OR_COMMENT = re.compile(
    r"""(?P<prefix>[rRbBuUfF]{1,2})?(?P<body>\"\"\"(?:\\[\s\S]|[^\\])*?\"\"\"|'''(?:\\[\s\S]|[^\\])*?'''"""
    r"""|"(?:\\[\s\S]|[^"\\\n])*"|'(?:\\[\s\S]|[^'\\\n])*')|\#[^\n]*""")
_NOT_NEWLINE = re.compile(r"[^\n]")


def mask(text: str) -> str | None:
    """`text` with its plain string literals and its comments blanked (every character but newlines a space: same
    length, same lines), f-strings kept (their replacement fields hold code). None when the scan cannot vouch for
    its reading of an f-string (braces that do not balance within the literal it found, as Python 3.12's nested
    quotes would give): the caller then looks at the whole text."""
    out: list[str] = []
    last = 0
    for m in _STRING_OR_COMMENT.finditer(text):
        prefix = m.group("prefix") or ""
        if "f" in prefix or "F" in prefix:
            body = m.group("body")
            if body.count("{") != body.count("}"):
                return None
            continue  # kept as it is (it is part of the text between blanked spans)
        out.append(text[last:m.start()])
        out.append(_NOT_NEWLINE.sub(" ", m.group()))
        last = m.end()
    out.append(text[last:])
    return "".join(out)


class CodeWords:
    """The file's TF binding names, found in generated text as code only (not in string literals or comments).

    `search(text)` is `re.search(r"\\b(?:w1|w2|…)\\b", text)` on `masked(text)`; a caller that searches several
    slices of one text masks it once (`masked`, same length and lines) and searches the slices (`search_masked`)."""

    def __init__(self, words):
        self.pattern = re.compile(r"\b(?:" + "|".join(re.escape(word) for word in words) + r")\b")

    def masked(self, text: str) -> str:
        """`mask(text)`, or the text itself where the mask cannot vouch (every word found then counts)."""
        if self.pattern.search(text) is None:
            return text  # nothing to hide
        blanked = mask(text)
        return text if blanked is None else blanked

    def search_masked(self, masked: str):
        return self.pattern.search(masked)

    def search(self, text: str):
        return self.pattern.search(self.masked(text))


def code_words(words) -> CodeWords | None:
    return CodeWords(words) if words else None
