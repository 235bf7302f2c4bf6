"""Generated code kept as text (edits.TextBlocks) gives the output parsing it would: every fixture, and variants
where it must fall back (2-space indent, CRLF, a model_fn inside a function, another TF alias)."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import tfmigrate.rules.emit.assembly as assembly
import tfmigrate.rules.program as program
from tfmigrate.edits import TextBlocks
from tfmigrate.engine import Options, migrate_source
from tfmigrate.rules.emit.codewords import CodeWords

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "original.py").is_file())


def _both(data: bytes, path: str, options: Options, monkeypatch):
    results = []
    for mode in (True, False):
        monkeypatch.setattr(program, "TEXT_BLOCKS", mode)
        r = migrate_source(data, path, options)
        results.append((r.status, r.output, r.error, [(d.code, d.line, d.col, d.message) for d in r.diagnostics]))
    return results


def _options(name: str) -> Options:
    case = tomllib.loads((FIXTURES / name / "case.toml").read_text())
    return Options(strategy=case.get("strategy", "keep"))


@pytest.mark.parametrize("name", CASES)
def test_text_blocks_match_parsing(name, monkeypatch):
    data = (FIXTURES / name / "original.py").read_bytes()
    with_text, parsed = _both(data, f"{name}/original.py", _options(name), monkeypatch)
    assert with_text == parsed


def _two_space(text: str) -> str:
    return re.sub(r"(?m)^((?:    )+)", lambda m: "  " * (len(m.group(1)) // 4), text)


@pytest.mark.parametrize("name", ["cnn", "canned_wide_deep", "closure_model_fn", "tf1_namespace", "ps_min_max"])
@pytest.mark.parametrize("variant", ["two_space", "crlf", "alias"])
def test_text_blocks_fallbacks_match_parsing(name, variant, monkeypatch):
    text = (FIXTURES / name / "original.py").read_text()
    if variant == "two_space":
        text = _two_space(text)
    elif variant == "crlf":
        text = text.replace("\n", "\r\n")
    else:  # the generated code's TF placeholder is renamed to another alias
        text = re.sub(r"\btf\b", "tf1", text)
    with_text, parsed = _both(text.encode(), f"{name}/original.py", _options(name), monkeypatch)
    assert with_text == parsed
    assert with_text[0] in ("changed", "blocked")


def test_splices_only_text_a_parse_would_render_unchanged():
    assert TextBlocks.splices("x = 1\n\n\nclass A:\n    pass")
    assert not TextBlocks.splices("# a comment opening the text\nx = 1")  # would be the module header
    assert not TextBlocks.splices("x = 1\n# a trailing comment")  # would be the module footer
    assert not TextBlocks.splices("\nx = 1")
    assert not TextBlocks.splices("    x = 1")
    assert not TextBlocks.splices("")


def test_text_blocks_are_used(monkeypatch):
    calls = []
    original = TextBlocks.statement
    monkeypatch.setattr(TextBlocks, "statement", lambda self, *a, **k: calls.append(a) or original(self, *a, **k))
    for name in ("cnn", "canned_wide_deep"):
        result = migrate_source((FIXTURES / name / "original.py").read_bytes(), f"{name}/original.py", _options(name))
        assert result.output == (FIXTURES / name / "migrated.py").read_bytes()
    assert len(calls) >= 2


def test_def_chunks_match_statements_or_give_up():
    import libcst as cst

    text = ('def a():\n    return 1\n\n\nX = 2\n\n\nclass B:\n    """doc"""\n\n    @property\n    def c(self):\n'
            '        def inner():\n            pass\n        return 3\n\n    async def d(self):\n        pass\n')
    body = cst.parse_module(text).body
    chunks = assembly._def_chunks(text, "", body)
    assert [(s.name.value, t.split("\n", 1)[0]) for s, t in chunks] == [("a", "def a():"), ("B", "class B:")]
    assert "X = 2" in chunks[0][1]  # statements between defs count with the def before them
    cls = assembly._def_chunks(text, "", body, "B")
    methods = assembly._def_chunks(cls, "    ", body[2].body.body)
    assert [(s.name.value, t.split("\n", 1)[0]) for s, t in methods] == [("c", "    @property"), ("d", "    async def d(self):")]
    # a docstring line that looks like a def: the texts no longer match the statements one to one
    tricky = 'class B:\n    """doc\n    def fake(self):\n    """\n\n    def c(self):\n        pass\n'
    assert assembly._def_chunks(tricky, "    ", cst.parse_module(tricky).body[0].body.body) is None


def test_hollowed_methods_still_count_for_the_tf_name_check():
    # no `import tensorflow as X`: the generated code needs `tf` free, also inside methods kept as text
    module = __import__("libcst").parse_module("x = 1\n")
    assert program._names_any(module, frozenset({"tf"}), ["    def m(self):\n        return tf\n"])
    assert program._names_any(module, frozenset({"x"}), ["    def m(self):\n        return tf\n"])
    assert not program._names_any(module, frozenset({"tf"}), ["    def m(self):\n        return 'tf'  # tf\n"])


def test_hollow_falls_back_when_a_def_line_sits_in_a_string():
    blocks = TextBlocks(__import__("libcst").parse_module("x = 1\n"), "")
    part = 'class A:\n    """doc\n    def fake(self):\n    """\n\n    def real(self):\n        return 1'
    named = CodeWords(["A"])  # the class names a binding: its methods are looked at one by one
    statements, text = assembly._parse_hollow(part, named, blocks, named.masked(part))
    assert text == named.masked(part) and not blocks.swaps  # parsed whole
    part = 'class A:\n    """doc"""\n\n    def real(self):\n        return 1'
    statements, text = assembly._parse_hollow(part, named, blocks, named.masked(part))
    assert len(blocks.swaps) == 1 and blocks.swaps[0][1] == "    def real(self):\n        return 1\n"
    assert text.startswith("class A:\n" + " " * 13 + "\n\n    __tfmigrate_text_")  # the docstring blanked
