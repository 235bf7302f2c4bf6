"""Note positions computed with the codegen stopped after the last noted node equal a full pass's."""
from __future__ import annotations

from pathlib import Path

import pytest

from tfmigrate import engine

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CASES = sorted(p.name for p in FIXTURES.iterdir() if (p / "original.py").is_file())


@pytest.mark.parametrize("name", CASES)
def test_positions_with_early_stop_match_full_pass(name, monkeypatch):
    full = engine._Positions
    asked = []

    class Checked(full):
        def __call__(self, node):
            got = super().__call__(node)
            assert got == full(self.module)(node)
            asked.append(got)
            return got

    monkeypatch.setattr(engine, "_Positions", Checked)
    engine.migrate_source((FIXTURES / name / "original.py").read_bytes(), f"{name}/original.py", engine.Options())
    if name == "cnn":
        assert asked  # the fixture has notes


def test_stopped_state_has_no_later_tokens():
    import libcst as cst

    module = cst.parse_module("a = 1\nb = 2\nc = 3\n")
    first = module.body[0]
    state = engine._token_positions(module, [first])
    assert "c" not in "".join(state.tokens)
    assert engine._Positions(module, [first])(first) == (1, 0)


def _parents(module):
    from tfmigrate.model import FileIndex

    return FileIndex(module, "m.py", "m", False).parents


def test_statement_positions_equal_full_pass():
    import libcst as cst

    text = "# head\n\nimport os\n\n\ndef f(x):\n    y = g(x,\n          z)\n    return y\n\nif x:\n    h(1); k(2)\n"
    module = cst.parse_module(text)
    call = module.body[1].body.body[0].body[0].value.args[1]
    k = module.body[2].body.body[0].body[1].value
    wanted = [call, k, module.body[0]]
    state = engine._statement_positions(module, wanted, text, _parents(module))
    assert state is not None and len(state.states) == 3
    full = engine._Positions(module)
    assert [state.start(n) for n in wanted] == [full(n) for n in wanted] == [(8, 10), (12, 10), (3, 0)]


def test_statement_positions_refuse_a_statement_whose_text_repeats():
    import libcst as cst

    text = "x = f(1)\nx = f(1)\n"
    module = cst.parse_module(text)
    second = module.body[1].body[0].value
    assert engine._statement_positions(module, [second], text, _parents(module)) is None
    assert engine._Positions(module, [second], text, _parents(module))(second) == (2, 4)
