"""The output check compiles support code that is the same in every file once per process (engine._swap,
engine._check_compiles): it must reject exactly what compiling the whole output rejects."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfmigrate import engine

PIECE = "class Support:\n    def value(self):\n        return 1\n"


def check(rest: str, piece: str = PIECE, name: str = "__p1__") -> None:
    """`rest` with the placeholder line `name` standing for `piece` (a standalone swap), checked as the engine does."""
    whole, pieces = engine._swap(rest, [(f"{name}\n", piece, True)])
    assert pieces is not None
    engine._check_compiles(whole, pieces, "f.py")


def whole_compiles(rest: str, piece: str = PIECE, name: str = "__p1__") -> bool:
    try:
        compile(rest.replace(f"{name}\n", piece), "f.py", "exec", dont_inherit=True)
    except SyntaxError:
        return False
    return True


CASES = [
    "import os\n__p1__\nx = Support()\n",  # fine
    "x = 1\n__p1__\nglobal Support\n",  # the piece binds Support before a module-level global declaration
    "global Support\n__p1__\n",  # declared first: fine
    "if True:\n    global keras\n__p1__\n",
    "__p1__\nfrom __future__ import annotations\n",  # a __future__ import after code
    "from __future__ import annotations\n__p1__\n",
    "def f():\n__p1__\n",  # the placeholder where a block must be
    "def f():\n    return 1\n__p1__\n    y = 2\n",  # a line indented under the piece's last block
    "x = (\n__p1__\n)\n",  # in brackets: not a statement
    's = """\n__p1__\n"""\n',  # in a string
    "x = 1\n__p1__\nreturn x\n",  # an error in the rest
    "global x, w, y\n__p1__\n",  # module-scope globals the pieces below bind
    "__p1__\nglobal x\n",
    "__p1__\nglobal w\n",
    "__p1__\nglobal y\n",
    "y = 0\n__p1__\n",
]
PIECES = [
    PIECE,
    "class Broken:\n    def f(self):\n        nonlocal q\n",  # does not compile alone
    "x: int = 1\n",  # an annotated module-scope name (`global x` elsewhere is an error)
    "global y\ny = 2\n",  # its own module-scope global
    "def g():\n    return [z := 1 for _ in ()]\n",
    "[w := 1 for _ in ()]\n",  # a walrus in a module-level comprehension binds w at module scope
]


@pytest.mark.parametrize("rest", CASES)
@pytest.mark.parametrize("piece", PIECES)
def test_same_verdict_as_compiling_the_whole(rest: str, piece: str) -> None:
    for _ in range(2):  # the second time the piece's compile is cached
        if whole_compiles(rest, piece):
            check(rest, piece)
        else:
            with pytest.raises(SyntaxError):
                check(rest, piece)


def test_pieces_and_sequential_replace_agree() -> None:
    text = "a\n__p1__\nb TF c\n__p2__\n"
    replacements = [("__p1__\n", "class A(TF.X):\n    pass\n", True), ("__p2__\n", "y = TF\n", False),
                    ("TF", "tf", False)]
    whole, pieces = engine._swap(text, replacements)
    expected = text
    for old, new, _ in replacements:
        expected = expected.replace(old, new)
    assert whole == expected == "".join(piece for piece, _ in pieces)
    assert [p for p, name in pieces if name] == ["class A(tf.X):\n    pass\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "ab", "__p1__\n", "__p2__\n", "\n", "TF"]),
                          st.sampled_from(["", "x", "TF", "a\n", "__p2__\n", "b\nb"]), st.booleans()),
                max_size=5),
       st.text(alphabet="ab\nTF_p12", max_size=40))
def test_swap_is_sequential_replace(replacements, text) -> None:
    whole, pieces = engine._swap(text, replacements)
    expected = text
    for old, new, _ in replacements:
        expected = expected.replace(old, new)
    assert whole == expected
    if pieces is not None:
        assert "".join(piece for piece, _ in pieces) == whole


def test_migrated_output_uses_it() -> None:
    """A converted fixture: its support code is standalone, and compiled once for two files."""
    from pathlib import Path

    from tfmigrate.engine import Options, migrate_source

    data = (Path(__file__).resolve().parents[2] / "fixtures" / "cnn" / "original.py").read_bytes()
    engine._STANDALONE_COMPILED.clear()
    first = migrate_source(data, "a/cnn.py", Options())
    compiled = set(engine._STANDALONE_COMPILED)
    assert first.status == "changed" and compiled
    second = migrate_source(data, "b/cnn.py", Options())
    assert second.output == first.output and engine._STANDALONE_COMPILED == compiled
