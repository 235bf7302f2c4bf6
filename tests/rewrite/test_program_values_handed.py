"""Issue #28 (the official wide & deep layout): values followed through a run loop called from several places, a
parameter every caller passes the same def, and modules reached by namespace-package names."""
from __future__ import annotations

import textwrap

import libcst as cst

from tfmigrate.files import namespace_names
from tfmigrate.model import FileIndex, Program, Value, code


def _program(sources: dict[str, tuple[str, str]]) -> tuple[Program, dict]:
    files = {path: FileIndex(cst.parse_module(textwrap.dedent(src)), path, name)
             for path, (name, src) in sources.items()}
    return Program(list(files.values())), files


LOOP = '''
    def run_loop(name, model_column_fn, build_estimator_fn):
        model = build_estimator_fn(model_dir=name, model_column_fn=model_column_fn)
        return model
    '''


def _main(cols: str) -> str:
    return f'''
        from farm import loop

        def {cols}():
            return ["{cols}_wide"], ["{cols}_deep"]

        def build_estimator(model_dir, model_column_fn):
            wide, deep = model_column_fn()
            use(wide, deep)

        def main():
            loop.run_loop("x", model_column_fn={cols}, build_estimator_fn=build_estimator)
        '''


def _use_args(program, index):
    use = next(c for c in index.calls if code(c.func) == "use")
    return [code(program.resolve(Value(a.value, index)).node) for a in use.args]


def test_each_builder_handed_to_a_loop_of_several_callers_reads_its_own_callers_arguments():
    program, files = _program({"farm/loop.py": ("farm.loop", LOOP), "farm/a.py": ("farm.a", _main("crops_cols")),
                               "farm/b.py": ("farm.b", _main("herd_cols"))})
    # before: the loop's `model_column_fn` had two callers and was not followed ("not a list ... at run time")
    assert _use_args(program, files["farm/a.py"]) == ['["crops_cols_wide"]', '["crops_cols_deep"]']
    assert _use_args(program, files["farm/b.py"]) == ['["herd_cols_wide"]', '["herd_cols_deep"]']
    build = files["farm/a.py"].top_level("build_estimator").node
    [(call, where)] = program.call_sites(build)
    assert where is files["farm/loop.py"] and code(call.func) == "build_estimator_fn"


def test_a_parameter_every_call_site_passes_the_same_def_is_that_def():
    program, files = _program({"m.py": ("m", '''
        def cols():
            return ["w"], ["d"]

        def build(model_column_fn):
            wide, deep = model_column_fn()
            use(wide, deep)

        def main():
            build(cols)

        def test():
            build(model_column_fn=cols)
        '''), "n.py": ("n", '''
        def cols():
            return ["w"], ["d"]

        def other():
            return ["x"], ["y"]

        def build(model_column_fn):
            wide, deep = model_column_fn()
            use(wide, deep)

        def main():
            build(cols)

        def test():
            build(other)
        '''), "c.py": ("c", '''
        def make_cols(key):
            def cols():
                return [key], [key]
            return cols

        def build(model_column_fn):
            wide, deep = model_column_fn()
            use(wide, deep)

        def main():
            build(make_cols("a"))

        def test():
            build(make_cols("b"))
        ''')})
    assert _use_args(program, files["m.py"]) == ['["w"]', '["d"]']
    assert _use_args(program, files["c.py"]) == ["wide", "deep"]
    # two defs, or one closure over different values: what the parameter holds depends on the caller
    assert _use_args(program, files["n.py"]) == ["wide", "deep"]


def test_a_module_outside_any_package_is_reached_by_its_namespace_package_names():
    assert namespace_names("official/wide_deep/census_main.py", "census_main") == [
        "official.wide_deep.census_main", "wide_deep.census_main"]
    # in a package: by the directories above its top package (PEP 420), longer names only
    assert namespace_names("official/wide_deep/census_main.py", "wide_deep.census_main") == [
        "official.wide_deep.census_main"]
    program, files = _program({
        "official/wide_deep/run_loop.py": ("run_loop", "def run_loop(fn):\n    return fn()\n"),
        "official/wide_deep/main.py": ("main", '''
            from official.wide_deep import run_loop

            def cols():
                return ["w"]

            use(run_loop.run_loop(cols))
            ''')})
    assert _use_args(program, files["official/wide_deep/main.py"]) == ['["w"]']
