"""The final check of migrate_source: an output that does not compile — because of what a rule changed — comes back
"failed" with "output does not parse" and the user's bytes, never as "changed".

Each case is a rule result a re-indentation or emit bug could make (a `return` dedented out of its function, a
handler appended after a bare `except:`, an import put before `from __future__`, a generated text block that does
not parse, ...): the rules are replaced by one migration that makes it, on an input that compiles. Most of these
errors are not syntax errors (the parser takes them) but the compiler's (symtable, code generation), and several
exist only through a neighbouring statement the rule did not touch (the future import, a module-level `global`):
a check that compiles less than the whole output must still see them. `test_..._without_the_check` shows that
each case reaches the output when the check is off (each test here can fail).

What makes a top-level statement's compile depend on the others (for a check that would compile fewer of them):
a `from __future__` import is valid only after nothing but the docstring (the first statement, one string) and
other future imports; a module-level `global` (also one nested in a top-level if/for/try) conflicts with a use,
an assignment or an annotation of its name in any earlier module-level statement, and an annotation with an earlier
`global`; `from __future__ import annotations` changes how annotations compile (a `yield` in one is its own error).
An in-source `barry_as_FLUFL` does NOT change how compile() parses the module, but the same feature passed as a
compile flag does (`!=` becomes an error): compiling statements alone "with the module's future flags" would reject
output the whole-module compile accepts (ACCEPTED below). `await` at top level, `nonlocal` at module level,
`__debug__` assignments, `return`/`yield` outside a function are errors of the statement alone."""
from __future__ import annotations

import re

import libcst as cst
import pytest
from tfmigrate import engine, rules
from tfmigrate.engine import Options, migrate_source


def _statements(code: str) -> list:
    return list(cst.parse_module(code).body)


def _insert(code: str, at: int):
    """A rule that inserts `code`'s statements before top-level statement `at` (the others stay the same nodes)."""
    def migration(module, context):
        body = list(module.body)
        return module.with_changes(body=[*body[:at], *_statements(code), *body[at:]])
    return migration


def _dedent_body(module, context):
    """A re-indentation bug: the first compound statement's body is spliced into the module, one level out."""
    body = list(module.body)
    at = next(i for i, s in enumerate(body) if isinstance(s, cst.BaseCompoundStatement))
    return module.with_changes(body=[*body[:at], *body[at].body.body, *body[at + 1:]])


def _drop_async(module, context):
    """An emit bug: a coroutine rewritten as a plain function (its `await` stays)."""
    body = list(module.body)
    return module.with_changes(body=[body[0].with_changes(asynchronous=None), *body[1:]])


def _text_block(text: str, at: int = 1):
    """A generated block swapped in as text after the render (TextBlocks: a placeholder statement, then
    Context.replace_text)."""
    def migration(module, context):
        body = list(module.body)
        context.replace_text("__tfmigrate_text_1__\n", text)
        return module.with_changes(body=[*body[:at], *_statements("__tfmigrate_text_1__\n"), *body[at:]])
    return migration


def _nested_text_block(text: str):
    """A generated block swapped in inside the first function's body (placeholder line at its indentation)."""
    def migration(module, context):
        body = list(module.body)
        fn = body[0]
        context.replace_text("    __tfmigrate_text_1__\n", text)
        new_body = fn.body.with_changes(body=[*fn.body.body, *_statements("__tfmigrate_text_1__\n")])
        return module.with_changes(body=[fn.with_changes(body=new_body), *body[1:]])
    return migration


def _global_before_use(module, context):
    """Inside a function: a generated assignment put before the function's own `global` statement."""
    body = list(module.body)
    fn = body[0]
    new_body = fn.body.with_changes(body=[*_statements("counter = 0\n"), *fn.body.body])
    return module.with_changes(body=[fn.with_changes(body=new_body), *body[1:]])


# (case, input that compiles, migration, what the compiler says about the output)
CASES = [
    ("return outside function", "import os\n\n\ndef f(x):\n    return x\n", _dedent_body, "'return' outside function"),
    ("yield outside function", "def gen():\n    yield 1\n", _dedent_body, "'yield' outside function"),
    ("break outside loop", "for i in range(3):\n    break\n", _dedent_body, "'break' outside loop"),
    ("continue outside loop", "while True:\n    continue\n", _dedent_body, "'continue' not properly in loop"),
    ("return in a class body", "class A:\n    def f(self):\n        return 1\n",
     lambda m, c: m.with_changes(body=[m.body[0].with_changes(body=m.body[0].body.with_changes(
         body=list(m.body[0].body.body[0].body.body)))]), "'return' outside function"),
    ("await outside async function", "async def f(g):\n    await g()\n", _drop_async,
     "'await' outside async function"),
    ("await at module level", "async def f(g):\n    await g()\n", _dedent_body, "'await' outside function"),
    ("default except not last", "import os\n",  # (LibCST refuses such a tree: generated text only)
     _text_block("try:\n    import sys\nexcept:\n    pass\nexcept ValueError:\n    pass\n"),
     "default 'except:' must be last"),
    ("starred target alone", "a, *rest = [1, 2, 3]\n", _insert("*rest = [1, 2]\n", 1),
     "starred assignment target must be in a list or tuple"),
    ("two starred targets", "a, *rest = [1, 2, 3]\n", _insert("*a, *rest = [1, 2]\n", 1),
     "multiple starred expressions in assignment"),
    ("assignment to __debug__", "import os\n", _insert("__debug__ = False\n", 1), "cannot assign to __debug__"),
    ("nonlocal at module level", "import os\n", _insert("nonlocal os\n", 1),
     "nonlocal declaration not allowed at module level"),
    ("import * in a function", "def f():\n    pass\n", _insert("def g():\n    from os import *\n", 1),
     "import * only allowed at module level"),
    ("return with a value in an async generator", "import os\n",
     _insert("async def f():\n    yield 1\n    return 2\n", 1), "'return' with value in async generator"),
    ("walrus in a comprehension iterable", "import os\n", _insert("xs = [x for x in (y := [1])]\n", 1),
     "assignment expression cannot be used in a comprehension iterable expression"),
    # neighbours: the statements the rule left alone make the error
    ("future import after inserted code", '"""Doc."""\nfrom __future__ import annotations\nimport os\n',
     _insert("import tensorflow as tf\n", 1), "from __future__ imports must occur at the beginning of the file"),
    ("future import after a second string", '"""Doc."""\nfrom __future__ import annotations\n',
     _insert('"""Not a docstring."""\n', 1), "from __future__ imports must occur at the beginning of the file"),
    ("generated future import after code", "import os\n", _insert("from __future__ import annotations\n", 1),
     "from __future__ imports must occur at the beginning of the file"),
    ("module global after an inserted use", "global counter\ncounter = 0\n", _insert("print(counter)\n", 0),
     "name 'counter' is used prior to global declaration"),
    ("module global after an inserted assignment", "import os\nif os.sep:\n    global counter\n",
     _insert("counter = 1\n", 1), "name 'counter' is assigned to before global declaration"),
    ("inserted global after a module assignment", "counter = 0\n", _insert("global counter\n", 1),
     "name 'counter' is assigned to before global declaration"),
    ("inserted global of an annotated name", "counter: int = 0\n", _insert("global counter\n", 1),
     "annotated name 'counter' can't be global"),
    ("global after use in a function", "def f():\n    global counter\n    counter += 1\n", _global_before_use,
     "name 'counter' is assigned to before global declaration"),
    ("yield in an annotation under the future import", "from __future__ import annotations\nimport os\n",
     _insert("def f(x: (yield)):\n    pass\n", 2), "'yield expression' can not be used within an annotation"),
    # generated code kept as text: never parsed before this check
    ("generated block that does not parse", "import os\n", _text_block("def broken(:\n    pass\n"),
     "invalid syntax"),
    ("generated block with a return", "import os\n", _text_block("x = 1\nreturn x\n"),
     "'return' outside function"),
    ("generated block re-indented wrong", "def f():\n    return 1\n",
     _nested_text_block("    x = 1\n        y = 2\n"), "unexpected indent"),
    ("generated block dedented out of its function", "def f(x):\n    x += 1\n",
     _nested_text_block("    y = x\nreturn y\n"), "'return' outside function"),
    ("generated block with continue outside its loop", "def f(xs):\n    for x in xs:\n        pass\n",
     _nested_text_block("    continue\n"), "'continue' not properly in loop"),
    ("generated block before a future import", "from __future__ import annotations\nimport os\n",
     _text_block("def helper():\n    pass\n", 0), "from __future__ imports must occur at the beginning of the file"),
]


def _migrate(monkeypatch, source: str, migration):
    monkeypatch.setattr(rules, "MIGRATIONS", [migration])
    return migrate_source(source.encode(), "t.py", Options(), prefilter=False)


@pytest.mark.parametrize("source, migration, says", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_output_that_does_not_compile_fails(monkeypatch, source, migration, says):
    compile(source, "t.py", "exec", dont_inherit=True)  # the input compiles: the error is the rule's
    result = _migrate(monkeypatch, source, migration)
    assert result.status == "failed"
    assert result.error.startswith("internal error: output does not parse (")
    assert says in result.error
    assert result.output == result.source == source.encode()


@pytest.mark.parametrize("source, migration, says", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_case_reaches_the_output_without_the_check(monkeypatch, source, migration, says):
    monkeypatch.setattr(engine, "compile", lambda *args, **kwargs: None, raising=False)
    result = _migrate(monkeypatch, source, migration)
    assert result.status == "changed"
    with pytest.raises(SyntaxError, match=re.escape(says)):
        compile(result.output, "t.py", "exec", dont_inherit=True)


# outputs the whole-module compile accepts: a cheaper check must accept them too
ACCEPTED = [
    # an in-source barry_as_FLUFL does not change how compile() parses the module (only the compile flag does)
    ("`!=` under an in-source barry_as_FLUFL", "from __future__ import barry_as_FLUFL\nimport os\n",
     _insert("x = 1 != 2\n", 2)),
    ("a global statement inside a function", "import os\n", _insert("def f():\n    global os\n    os = 1\n", 1)),
    ("module global before its use", "import os\n", _insert("global counter\ncounter = 0\n", 1)),
    ("future import after the docstring and other future imports",
     '"""Doc."""\nfrom __future__ import division\nimport os\n', _insert("from __future__ import annotations\n", 2)),
    ("yield in an annotation without the future import", "import os\n",
     _insert("def f():\n    def g(x: (yield)):\n        pass\n", 1)),
    ("generated block", "import os\n", _text_block("def helper():\n    return 1\n")),
]


@pytest.mark.parametrize("source, migration", [c[1:] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_output_that_compiles_is_changed(monkeypatch, source, migration):
    result = _migrate(monkeypatch, source, migration)
    assert result.status == "changed", result.error
    compile(result.output, "t.py", "exec", dont_inherit=True)


def test_an_input_that_never_compiled_is_named_as_the_users_code(monkeypatch):
    """LibCST parses code Python rejects (`return` at module level): the output fails the check for the user's own
    statement, so the message says so and where, instead of blaming tfmigrate; the file is kept."""
    source = "import os\n\nreturn 3\n"
    result = _migrate(monkeypatch, source, _insert("x = 1\n", 1))
    assert result.status == "failed"
    assert result.error.startswith("the file does not compile as it is: 'return' outside function")
    assert result.error_at == (3, 0)
    assert result.output == result.source == source.encode()
