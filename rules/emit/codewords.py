"""Helpers for emitting generated code as text.

`CodeWords` answers "does this generated text name one of the file's TF bindings?" the way the passes that would
walk its parse see it: a word inside a string literal (a docstring) or a comment is no Name node, so the
leftover-name pass would find nothing there and the text need not be parsed for it.
"""
from __future__ import annotations

import re

# A string literal's quoted part (single or triple quoted, escapes honoured) or a comment, scanned left to right as
# Python's tokenizer does: in valid code a quote or `#` outside a string opens a string or a comment. (Loops
# unrolled: no per-character alternation.) The prefix letters before the quote are read by `_prefix`.
STRING_OR_COMMENT = re.compile(
    r"""\"\"\"[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*\"\"\"|'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*'''"""
    r"""|"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"|'[^'\\\n]*(?:\\[\s\S][^'\\\n]*)*'|\#[^\n]*""")
_PREFIX_LETTERS = frozenset("rRbBuUfF")
_NOT_NEWLINE = re.compile(r"[^\n]")


def blank(span: str) -> str:
    """`span` with every character but newlines a space (`_NOT_NEWLINE.sub(" ", span)`, without a regex call per
    character: docstrings are most of the generated text)."""
    if "\n" not in span:
        return " " * len(span)
    return "\n".join([" " * len(line) for line in span.split("\n")])


def _prefix(text: str, quote: int) -> str:
    """The string prefix before the quote at `quote`: the one or two prefix letters there, unless they end a longer
    name (`if"x"`, `or"x"`: a keyword, then a plain string), as the tokenizer reads it."""
    start = quote
    while start > 0 and quote - start < 2 and text[start - 1] in _PREFIX_LETTERS:
        start -= 1
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        return ""
    return text[start:quote]


_MASKS: dict[str, str | None] = {}  # mask's answers: the same generated parts recur in a file and across files


def mask(text: str) -> str | None:
    """`text` with its plain string literals (prefix included) and its comments blanked (every character but
    newlines a space: same length, same lines), f-strings kept (their replacement fields hold code). None when the
    scan cannot vouch for its reading of an f-string (braces that do not balance within the literal it found, as
    Python 3.12's nested quotes would give): the caller then looks at the whole text."""
    known = _MASKS.get(text, _UNKNOWN)
    if known is _UNKNOWN:
        if len(_MASKS) >= 1024:
            _MASKS.clear()
        known = _MASKS[text] = _mask(text)
    return known


_UNKNOWN = object()


def _mask(text: str) -> str | None:
    out: list[str] = []
    last = 0
    for m in STRING_OR_COMMENT.finditer(text):
        start, end = m.span()
        if text[start] != "#":
            prefix = _prefix(text, start)
            if "f" in prefix or "F" in prefix:
                body = m.group()
                if body.count("{") != body.count("}"):
                    return None
                continue  # kept as it is (it is part of the text between blanked spans)
            start -= len(prefix)
        out.append(text[last:start])
        out.append(blank(text[start:end]))
        last = end
    out.append(text[last:])
    return "".join(out)


class CodeWords:
    """The file's TF binding names, found in generated text as code only (not in string literals or comments).

    `search(text)` is `re.search(r"\\b(?:w1|w2|…)\\b", text)` on `masked(text)`; a caller that searches several
    slices of one text masks it once (`masked`, same length and lines) and searches the slices (`search_masked`)."""

    def __init__(self, words, settled=None):
        alternatives = "|".join(re.escape(word) for word in words)
        self.pattern = re.compile(r"\b(?:" + alternatives + r")\b")
        # the pattern without its leading `\b`: a pattern that opens with a branch of literals lets the regex
        # engine skip to the next position holding one of their first letters (~10x faster on generated code);
        # `find` checks the boundary before the word itself
        self._tail = re.compile(r"(?:" + alternatives + r")\b")
        # settled(text): the text names the words only where no later pass changes it (program.Settled)
        self.settled = settled
        # masked's answers (a part is asked about by several passes), and the texts known to name no word at all
        # (masked hands such a text back as it is, so search_masked need not search it again)
        self._masked: dict[str, str] = {}
        self._clean: set[str] = set()

    def settles(self, text: str, masked: str) -> bool:
        """Whether generated `text` (`masked`: self.masked(text)), which names a word in code, may stay text all
        the same."""
        return self.settled is not None and self.settled(text, False, masked)

    def masked(self, text: str) -> str:
        """`mask(text)`, or the text itself where the mask cannot vouch (every word found then counts)."""
        known = self._masked.get(text)
        if known is not None:
            return known
        core = text.rstrip("\n")
        if len(core) != len(text):
            # the text without its trailing newlines, masked, with them (no string literal or comment the scan finds
            # ends in a newline or reaches past the last code): a part is asked about with and without them
            inner = self.masked(core)
            if inner is core:
                known = text
                if core in self._clean:
                    self._clean.add(text)
            else:
                known = inner + text[len(core):]
        elif self.find(text) is None:
            self._clean.add(text)
            known = text  # nothing to hide
        else:
            blanked = mask(text)
            known = text if blanked is None else blanked
        self._masked[text] = known
        return known

    def search_masked(self, masked: str):
        if masked in self._clean:
            return None
        return self.find(masked)

    def find(self, text: str, pos: int = 0):
        """`self.pattern.search(text, pos)`: the first word (the words are identifiers, so the `\b` before one
        says the character before it is no word character)."""
        search = self._tail.search
        m = search(text, pos)
        while m is not None:
            at = m.start()
            if at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_"):
                return m
            m = search(text, at + 1)
        return None

    def search(self, text: str):
        return self.search_masked(self.masked(text))


def code_words(words) -> CodeWords | None:
    """CodeWords of `words` (None for none); CodeWords themselves as they are."""
    if isinstance(words, CodeWords):
        return words
    return CodeWords(words) if words else None
