"""rules/emit/codewords.py: `mask` blanks exactly what Python's tokenizer reads as plain string literals and comments
(checked against `tokenize` on every fixture file, the sources and hand shapes: the words left are the names and
numbers outside them, and the f-strings' words), keeping the text's length and lines; `CodeWords` finds a word only
where it is code."""
from __future__ import annotations

import collections
import io
import re
import tokenize
from pathlib import Path

import pytest

from tfmigrate.rules.emit.codewords import CodeWords, code_words, mask

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted([*ROOT.glob("fixtures/*/original.py"), *ROOT.glob("fixtures/*/migrated.py"),
                *ROOT.glob("rules/*.py"), *ROOT.glob("migrator/*.py")])

SHAPES = [
    'x = "tf"  # tf here\ny = tf.x\n',
    "s = 'it''s'\nt = tf\n",
    's = "a \\" tf \\" b"\nu = 1\n',
    's = "a \\\\"\nv = tf\n',
    'def f():\n    """Doc with "quotes" and \'tf\' and a # sign."""\n    return tf.reduce_sum(1)\n',
    "d = '''tf\n''' + r'\\'tf' + rb'x' + Rb\"tf\" + u'tf' + B'tf'\n",
    'x = f"{tf.a}" + F\'{b["k"]}\' + rf"{c:{w}}" + "tf"\n',
    '# a comment with "quote\nx = 1  # another \'one\n',
    's = "#not a comment"; tf.x = 2\n',
    'x = """a\\"""tf"""\ny = 1\n',
    'def g():\n    return (\n        "tf"  # tf\n        "tf"\n    )\n',
]
KEYWORD_TAIL = "if'x' in y:\n    pass\nelif\"z\":\n    pass\n"


def _words(text: str) -> collections.Counter:
    """The words (\\w+ runs) a `\\bword\\b` search can find in code: names and numbers, and inside f-strings."""
    found = collections.Counter()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.NAME, tokenize.NUMBER):
            found.update(re.findall(r"\w+", tok.string))
        elif tok.type == tokenize.STRING:
            prefix = tok.string[:len(tok.string) - len(tok.string.lstrip("rRbBuUfF"))]
            if "f" in prefix.lower():
                found.update(re.findall(r"\w+", tok.string))
    return found


def _check(text: str, exact: bool = True) -> None:
    masked = mask(text)
    assert masked is not None
    assert len(masked) == len(text) and [i for i, c in enumerate(masked) if c == "\n"] == \
        [i for i, c in enumerate(text) if c == "\n"]
    left, code = collections.Counter(re.findall(r"\w+", masked)), _words(text)
    assert left >= code and (left == code or not exact)


@pytest.mark.parametrize("text", SHAPES)
def test_mask_matches_tokenize_on_shapes(text):
    _check(text)


def test_mask_reads_a_keyword_ending_in_a_prefix_letter_as_a_name():
    _check(KEYWORD_TAIL)  # `if"x"`: NAME if, STRING "x" (no f-string)
    assert "x" not in mask(KEYWORD_TAIL) and mask('x = rb"tf" + bur"tf"\n').split() == ["x", "=", "+", "bur"]


def test_mask_matches_tokenize_on_files():
    checked = 0
    for path in FILES:
        text = path.read_text()
        if mask(text) is None:  # an f-string the scan does not vouch for: the caller searches everything
            continue
        _check(text)
        checked += 1
    assert checked > 100


def test_unbalanced_f_string_is_not_vouched_for():
    assert mask('x = f"{{" + tf.y\n') is None
    # Python 3.12's nested quotes: the scan would end the f-string early, so it says it cannot tell
    assert mask('x = f"{g("a", tf.y)}"\n') is None
    assert CodeWords(["tf"]).search('x = f"{g("a", tf.y)}"\n')
    assert mask('x = "{" + f"{{"\n') is None and mask('if"{"in x: pass\n') is not None


def test_code_words():
    words = CodeWords(["tf", "Estimator"])
    assert not words.search('def f():\n    """tf.estimator.Estimator"""\n    return 1  # tf\n')
    assert words.search('def f():\n    """doc"""\n    return tf.constant(1)\n')
    assert words.search("x = f'{tf.x}'\n")
    assert not words.search("x = self.tfx + Estimators\n")
    assert words.search("x = self.tf\n")  # an attribute is a Name node too: kept as code
    text = 'a = "tf"\nb = tf\n'
    masked = words.masked(text)
    assert not words.search_masked(masked[:9]) and words.search_masked(masked[9:])
    assert code_words(()) is None
