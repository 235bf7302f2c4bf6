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
