"""rules/emit.py: `code_only` drops exactly what Python's tokenizer reads as plain string literals and comments
(checked token by token against `tokenize` on every fixture file and on hand shapes), and `CodeWords` finds a
word only where it is code."""
from __future__ import annotations

import io
import tokenize
from pathlib import Path

import pytest

from tfmigrate.rules.emit import CodeWords, code_only, code_words

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
    "if'x' in y:\n    pass\nelif\"z\":\n    pass\n",
]


def _expected(text: str) -> list[tuple[int, str]]:
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE, tokenize.ENDMARKER):
            continue
        if tok.type == tokenize.STRING:
            prefix = tok.string[:len(tok.string) - len(tok.string.lstrip("rRbBuUfF"))]
            out.append((tok.type, tok.string if "f" in prefix.lower() else '""'))
        else:
            out.append((tok.type, tok.string))
    return out


def _tokens(text: str) -> list[tuple[int, str]]:
    return [(tok.type, tok.string) for tok in tokenize.generate_tokens(io.StringIO(text).readline)
            if tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE, tokenize.ENDMARKER)]


@pytest.mark.parametrize("text", SHAPES)
def test_code_only_matches_tokenize_on_shapes(text):
    assert _tokens(code_only(text)) == _expected(text)


def test_code_only_matches_tokenize_on_files():
    checked = 0
    for path in FILES:
        text = path.read_text()
        masked = code_only(text)
        if masked is None:  # an f-string the scan does not vouch for: the caller searches everything
            continue
        assert _tokens(masked) == _expected(text), path
        checked += 1
    assert checked > 100


def test_unbalanced_f_string_is_not_vouched_for():
    assert code_only('x = f"{{" + tf.y\n') is None
    # Python 3.12's nested quotes: the scan would end the f-string early, so it says it cannot tell
    assert code_only('x = f"{g("a", tf.y)}"\n') is None
    assert CodeWords(["tf"]).search('x = f"{g("a", tf.y)}"\n')


def test_code_words():
    words = CodeWords(["tf", "Estimator"])
    assert not words.search('def f():\n    """tf.estimator.Estimator"""\n    return 1  # tf\n')
    assert words.search('def f():\n    """doc"""\n    return tf.constant(1)\n')
    assert words.search("x = f'{tf.x}'\n")
    assert not words.search("x = self.tfx + Estimators\n")
    assert words.search("x = self.tf\n")  # an attribute is a Name node too: kept as code
    assert code_words(()) is None
