"""tfmigrate.records.record behaves as dataclasses.dataclass for what the hot path's classes use: the generated
__init__ (positional and keyword, defaults, a fresh default per instance from a factory), the repr (cache keys are
built from repr(Options)), equality, hashing (frozen) or none (mutable), frozen assignment refused."""
from __future__ import annotations

import dataclasses

import pytest

from tfmigrate.records import field, record


def _pair(frozen: bool):
    @record(frozen=frozen)
    class Mine:
        code: str
        line: int = 0
        tags: list = field(default_factory=list)
        path: str = ""

        def where(self) -> str:
            return f"{self.path}:{self.line}"

    @dataclasses.dataclass(frozen=frozen)
    class Theirs:
        code: str
        line: int = 0
        tags: list = dataclasses.field(default_factory=list)
        path: str = ""

        def where(self) -> str:
            return f"{self.path}:{self.line}"

    Theirs.__qualname__ = Mine.__qualname__  # compare the reprs' text
    return Mine, Theirs


@pytest.mark.parametrize("frozen", [False, True])
def test_record_behaves_as_dataclass(frozen):
    mine, theirs = _pair(frozen)
    for args, kwargs in [(("A",), {}), (("A", 3), {}), (("A",), {"path": "p.py", "tags": [1]}), ((), {"code": "B"})]:
        a, b = mine(*args, **kwargs), theirs(*args, **kwargs)
        assert repr(a) == repr(b)
        assert a == mine(*args, **kwargs) and (a != mine("other")) and a.where() == b.where()
        assert (a == b) is False  # another class: not equal, as dataclasses
        if frozen:
            with pytest.raises(TypeError):  # a list field: unhashable, as the dataclass
                hash(a)
            assert hash(mine("A", tags=(1,))) == hash(mine("A", tags=(1,))) == hash(theirs("A", tags=(1,)))
            with pytest.raises(AttributeError):
                a.line = 5
        else:
            with pytest.raises(TypeError):
                hash(a)
            a.line = 5
            assert a.line == 5
    assert mine("A").tags is not mine("A").tags  # a fresh default each time
    with pytest.raises(TypeError):
        mine()
    with pytest.raises(TypeError):
        mine("A", 1, [], "p", "extra")


def test_a_field_without_default_after_one_with_is_refused():
    with pytest.raises(TypeError):
        @record
        class Bad:
            a: int = 0
            b: int


def test_hot_path_classes_keep_their_reprs():
    from tfmigrate.diagnostics import Diagnostic, FileResult
    from tfmigrate.engine import Options

    assert repr(Options()) == "Options(target='auto', strategy='keep', style='auto')"  # part of every cache key
    assert repr(Diagnostic("TFM1", "m", 2, 3)) == ("Diagnostic(code='TFM1', message='m', line=2, col=3, "
                                                    "severity='error', path='')")
    assert FileResult("p", "skipped") == FileResult("p", "skipped", b"", b"", [], "", set(), None)


@pytest.mark.parametrize("frozen", [False, True])
def test_replace_copies_like_dataclasses_replace(frozen):
    from tfmigrate.records import replace

    Mine, Theirs = _pair(frozen)
    mine, theirs = Mine("TFM1", 3, ["a"], "x.py"), Theirs("TFM1", 3, ["a"], "x.py")
    assert repr(replace(mine, path="y.py", line=4)).split("(", 1)[1] == \
        repr(dataclasses.replace(theirs, path="y.py", line=4)).split("(", 1)[1]
    assert replace(mine) == mine and replace(mine) is not mine
    with pytest.raises(TypeError, match="no field colour"):
        replace(mine, colour="red")
