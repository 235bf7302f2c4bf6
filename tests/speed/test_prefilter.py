"""The prefilter (the union of the rules' trigger words) never hides a change or a finding.

Over every fixture (original and migrated, the package fixture's files), the generated programs of
tests/generated, and mutated copies of both (TensorFlow under another alias, `from tensorflow import estimator as
E`, star imports, `tf = tf.compat.v1`, the trigger words only in strings and comments, some or all of the words
removed), for inputs that parse:
  P1  prefilter skips  ⇒  the full pipeline (prefilter off) says unchanged, output == input, no finding;
  P2  the results with and without the prefilter are identical (status, with "skipped" read as "unchanged";
      output bytes; every diagnostic) — both stages: the byte scan, and for a file migrated alone the identifier
      check (words only in strings/comments).
Multi-file programs run through migrate_paths (units as a user's run forms them), single files through
migrate_source.
"""
from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from tfmigrate.engine import FileResult, Options, identifiers_skip, migrate_paths, migrate_source, prefilter_skips
from tfmigrate.rules import PREFILTER, PROJECT_WORDS, RULES

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
sys.path.insert(0, str(ROOT / "tests" / "generated"))
from program_gen import render, shapes  # noqa: E402

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

# each trigger word, spelled so that it no longer is one (same length class, still an identifier)
MANGLED = {b"stimator": b"stimat0r", b"RunConfig": b"RunConfg", b"TrainSpec": b"TrainSpc", b"EvalSpec": b"EvalSpc",
           b"train_and_evaluate": b"train_and_evaluat", b"DNNClassifier": b"DNNClassifer",
           b"DNNRegressor": b"DNNRegresor", b"LinearClassifier": b"LinearClassifer",
           b"LinearRegressor": b"LinearRegresor", b"DNNLinearCombined": b"DNNLinearCombind",
           b"contrib.learn": b"contrib.lern", b"learn_runner": b"learn_runnr", b"contrib import learn": b"contrib import lern"}

# Estimator-API constructs that are flagged without a converted Estimator: each must keep its trigger word
FLAGGED = {
    "unresolved_run_config": "import tensorflow as tf\n\nconfig = contrib.RunConfig(model_dir='/tmp/m')\n",
    "unresolved_specs": "import tensorflow as tf\n\nspec = learn.TrainSpec(input_fn=f)\nother = learn.EvalSpec(input_fn=f)\n",
    "unresolved_train_and_evaluate": "import tensorflow as tf\n\nlearn.train_and_evaluate(e, t, v)\n",
    "canned": "import tensorflow as tf\n\nest = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=[])\n",
    "from_estimator": "from tensorflow import estimator as E\n\nspec = E.TrainSpec(input_fn=None)\n",
    "keras_to_estimator": "import tensorflow as tf\n\nest = tf.keras.estimator.model_to_estimator(model)\n",
    "tf_estimator_pkg": "import tensorflow_estimator as tfe\n\ncfg = tfe.estimator.RunConfig()\n",
    "star": "from tensorflow.compat.v1 import *\n\nest = estimator.Estimator(model_fn=f)\n",
    # tf.contrib.learn's Estimators (no `estimator` in the path) and a canned class under an unbound root
    "contrib_learn": "import tensorflow as tf\n\nclf = tf.contrib.learn.DNNClassifier(hidden_units=[4])\n",
    "contrib_learn_from": "from tensorflow.contrib.learn import LinearRegressor\n\nreg = LinearRegressor([])\n",
    "unbound_canned": "clf = tf.contrib.learn.DNNLinearCombinedClassifier(dnn_hidden_units=[4])\n",
    # the rest of tf.contrib.learn, in files that build no Estimator (TFM603)
    "contrib_learn_modekeys": "from tensorflow.contrib.learn import ModeKeys\n\ntraining = ModeKeys.TRAIN\n",
    "contrib_learn_runner": "from tensorflow.contrib.learn.python.learn import learn_runner\n\nlearn_runner.run(f, 'o')\n",
    "contrib_learn_module": "from tensorflow.contrib import learn\n\ndata = learn.datasets.mnist.read_data_sets('d')\n",
    # names that reach tf.estimator only through their bindings (the leftover check follows them)
    "alias_chain": "import tensorflow as tf\nfrom tensorflow import estimator as E\nF = E\n\nkeys = F.ModeKeys\n",
    "local_alias": "import tensorflow as tf\n\n\ndef f():\n    import tensorflow.estimator as G\n    H = G\n    return H.ModeKeys\n",
}


# files that name scikit-learn's estimators (words in identifiers, no TensorFlow import): skipped after the `ast`
# parse (rules.ROOTS, rules.NAMES), and by the full pipeline left unchanged with no finding
NOT_ESTIMATORS = {
    "sklearn_wrapper": "try:\n    from sklearn.base import BaseEstimator\nexcept ImportError:\n"
                       "    class BaseEstimator:\n        pass\n\nimport keras\n\n\nclass Wrapper(BaseEstimator):\n"
                       "    def fit(self, X, y):\n        self.model_ = keras.Sequential()\n        return self\n",
    "sklearn_fixes": "def validate(estimator, *args):\n    return estimator._validate_data(*args)\n",
    "sklearn_checks": "from sklearn.utils.estimator_checks import check_estimator\n\n\n"
                      "def test_all(estimators):\n    for estimator in estimators:\n        check_estimator(estimator)\n",
}


def _sources() -> dict[str, bytes]:
    found = {}
    for path in sorted(FIXTURES.glob("*/original.py")) + sorted(FIXTURES.glob("*/migrated.py")):
        found[f"{path.parent.name}_{path.stem}.py"] = path.read_bytes()
    for path in sorted(FIXTURES.glob("*/original/**/*.py")) + sorted(FIXTURES.glob("*/migrated/**/*.py")):
        found["_".join(path.relative_to(FIXTURES).parts)] = path.read_bytes()
    for name, text in FLAGGED.items():
        found[f"flagged_{name}.py"] = text.encode()
    for name, text in NOT_ESTIMATORS.items():
        found[f"{name}.py"] = text.encode()
    return found


SOURCES = _sources()


# ---- mutations (bytes → bytes, applied to every file of a program alike) -------------------------------------------

def rename_alias(data: bytes) -> bytes:
    """`import tensorflow as xx` (and xx everywhere tf was)."""
    return re.sub(rb"\btf\b", b"xx", data)


def estimator_from_import(data: bytes) -> bytes:
    """`from tensorflow import estimator as E` at the top, `tf.estimator.X` → `E.X`."""
    out = re.sub(rb"\btf\.(compat\.v1\.)?estimator\.", b"E.", data)
    return _after_imports(out, b"from tensorflow import estimator as E\n")


def star_import(data: bytes) -> bytes:
    """`from tensorflow.compat.v1 import *` instead of the alias: `tf.x` → `x`."""
    out = re.sub(rb"^import tensorflow(\.compat\.v1)? as tf$", b"from tensorflow.compat.v1 import *", data, flags=re.M)
    return re.sub(rb"\btf\.(?:compat\.v1\.)?", b"", out)


def rebind_v1(data: bytes) -> bytes:
    """`tf = tf.compat.v1` right after the imports."""
    return _after_imports(data, b"tf = tf.compat.v1\n")


def words_only_in_strings(data: bytes) -> bytes:
    """Every trigger word removed from the code, then all of them put back in a comment and a string."""
    out = remove_words(data, tuple(MANGLED))
    words = b" ".join(MANGLED)
    return out + b"\n# tf.estimator.Estimator " + words + b"\n_DOC = 'tf.estimator.RunConfig " + words + b"'\n"


def remove_words(data: bytes, words: tuple[bytes, ...], every: int = 1) -> bytes:
    """Mangle the given trigger words: every occurrence (every=1) or every n-th one."""
    for word in words:
        count = 0

        def sub(m, word=word):
            nonlocal count
            count += 1
            return MANGLED[word] if count % every == 0 else m.group(0)

        data = re.sub(re.escape(word), sub, data)
    return data


def _after_imports(data: bytes, line: bytes) -> bytes:
    lines = data.splitlines(keepends=True)
    last = max((i for i, l in enumerate(lines) if re.match(rb"(import|from) \S", l)), default=-1)
    lines.insert(last + 1, line)
    return b"".join(lines)


MUTATIONS = {"none": lambda d: d, "rename_alias": rename_alias, "estimator_from_import": estimator_from_import,
             "star_import": star_import, "rebind_v1": rebind_v1, "words_only_in_strings": words_only_in_strings}


@st.composite
def mutations(draw):
    """A mutation pipeline: one structural change, then optionally trigger words removed (all or some)."""
    name = draw(st.sampled_from(sorted(MUTATIONS)))
    words = tuple(draw(st.lists(st.sampled_from(sorted(MANGLED)), unique=True, max_size=len(MANGLED))))
    every = draw(st.sampled_from([1, 1, 2, 3]))

    def apply(data: bytes) -> bytes:
        return remove_words(MUTATIONS[name](data), words, every)

    apply.describe = f"{name}, removed {[w.decode() for w in words]} every {every}"
    return apply


# ---- the two properties -------------------------------------------------------------------------------------------

def _parses(data: bytes) -> bool:
    try:
        compile(data, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _view(result: FileResult) -> tuple:
    status = "unchanged" if result.status == "skipped" else result.status
    return status, result.output or result.source, [d.format() for d in result.diagnostics], result.error


def check_file(data: bytes, path: str = "prog.py", options: Options = Options()) -> None:
    full = migrate_source(data, path, options, prefilter=False)
    fast = migrate_source(data, path, options)
    if prefilter_skips(data, path, PREFILTER):
        assert fast.status == "skipped"
        assert full.status == "unchanged" and full.output == data and not full.diagnostics, \
            (path, full.status, [d.format() for d in full.diagnostics], full.error)
    assert _view(fast) == _view(full), path


def check_program(files: dict[str, bytes], options: Options = Options()) -> None:
    with tempfile.TemporaryDirectory(prefix="tfm-prefilter-") as tmp:
        root = Path(tmp)
        paths = []
        for rel, data in files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
            paths.append(p)
        full = migrate_paths(paths, options, jobs=1, prefilter=False)
        fast = migrate_paths(paths, options, jobs=1)
        for path, f, s in zip(paths, full, fast):
            # a file the byte scan would skip is still read when a program file of the run imports it (it joins
            # that unit: a canned estimator's data module); then both runs must have changed it alike
            if prefilter_skips(path.read_bytes(), str(path), PREFILTER) and s.status == "skipped":
                assert f.status == "unchanged" and not f.diagnostics, (path, f.status, [d.format() for d in f.diagnostics])
            assert _view(s) == _view(f), path


# ---- inputs -------------------------------------------------------------------------------------------------------

def test_registry_words():
    """Every rule declares its triggers; PREFILTER is their union; files grouped as units always pass it."""
    assert all(rule.triggers for rule in RULES)
    assert set(PREFILTER) == {w for rule in RULES for w in rule.triggers}
    assert set(PROJECT_WORDS) <= set(PREFILTER)
    assert set(MANGLED) == set(PREFILTER)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_fixture_sources(name):
    check_file(SOURCES[name], name)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_fixture_sources_without_trigger_words(name):
    data = remove_words(SOURCES[name], tuple(MANGLED))
    assert prefilter_skips(data, name, PREFILTER)
    check_file(data, name)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_fixture_sources_with_words_only_in_strings(name):
    """Second stage: the words left only in a comment and a string → skipped after an `ast` parse, and the full
    pipeline agrees (unchanged, no finding)."""
    data = words_only_in_strings(SOURCES[name])
    assert not prefilter_skips(data, name, PREFILTER) and identifiers_skip(data, name, PREFILTER)
    assert migrate_source(data, name, Options()).status == "skipped"
    check_file(data, name)


@pytest.mark.parametrize("name", sorted(FLAGGED))
def test_flagged_constructs_keep_their_word(name):
    """The constructs reported without a converted Estimator are reported, and pass the prefilter."""
    data = FLAGGED[name].encode()
    result = migrate_source(data, "prog.py", Options())
    assert result.status == "blocked" and result.diagnostics, (result.status, result.error)


def test_package_fixture_as_a_run():
    for case in sorted(p for p in FIXTURES.iterdir() if (p / "original").is_dir()):
        for side in ("original", "migrated"):
            files = {str(p.relative_to(case / side)): p.read_bytes() for p in (case / side).rglob("*.py")}
            check_program(files)
            check_program({rel: remove_words(d, tuple(MANGLED)) for rel, d in files.items()})


@SETTINGS
@given(name=st.sampled_from(sorted(SOURCES)), mutate=mutations(),
       options=st.sampled_from([Options(), Options(target="ctl"), Options(strategy="mirrored")]))
def test_mutated_fixtures(name, mutate, options):
    data = mutate(SOURCES[name])
    assume(_parses(data))
    check_file(data, name, options)


@SETTINGS
@given(shape=shapes(), mutate=mutations())
def test_mutated_generated_programs(shape, mutate):
    files = {rel: mutate(text.encode()) for rel, text in render(shape).items()}
    assume(all(_parses(d) for d in files.values()))
    if list(files) == ["program.py"]:
        check_file(files["program.py"])
    else:
        check_program(files)


# ---- what the byte scan must not miss -----------------------------------------------------------------------------

def test_relative_import_inside_an_estimator_package_is_not_skipped(tmp_path):
    """`from . import x` in tensorflow_estimator/ resolves to `estimator.x`: the path has the word, so the file is
    read (and flagged), although its text has none of the words."""
    pkg = tmp_path / "tensorflow_estimator"
    pkg.mkdir()
    (pkg / "__init__.py").write_bytes(b"")
    f = pkg / "helpers.py"
    data = b"import tensorflow as tf\nfrom . import util\n\nutil.run()\n"
    f.write_bytes(data)
    assert not any(w in data for w in PREFILTER)
    assert not prefilter_skips(data, str(f), PREFILTER)
    full = migrate_source(data, str(f), Options(), prefilter=False)
    assert full.status == "blocked"  # what a skip would have hidden
    check_file(data, str(f))
    commented = data + b"# see Estimator\n"  # the second stage checks the path too
    assert not identifiers_skip(commented, str(f), PREFILTER)
    check_file(commented, str(f))
    plain = tmp_path / "plain" / "helpers.py"
    plain.parent.mkdir()
    assert prefilter_skips(data, str(plain), PREFILTER)


def test_coding_cookie_that_hides_words_from_the_bytes_is_not_skipped():
    """utf-7 spells `s` as `+AHM-`: the bytes lack the word, the text has it."""
    text = "# -*- coding: utf-7 -*-\nimport tensorflow as tf\n\nx = tf.estimator.DNNClassifier(hidden_units=[1])\n"
    data = text.encode("utf-7").replace(b"stimator", b"+AHM-timator")
    assert b"stimator" not in data and data.decode("utf-7") == text
    assert not prefilter_skips(data, "prog.py", PREFILTER)
    assert migrate_source(data, "prog.py", Options(), prefilter=False).status == "blocked"
    check_file(data)
    latin = "# -*- coding: latin-1 -*-\nimport tensorflow as tf\nx = 'é'\n".encode("latin-1")
    assert prefilter_skips(latin, "prog.py", PREFILTER)
    check_file(latin)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.binary(max_size=40) | st.lists(st.sampled_from([b"from", b" ", b".", b"\\", b"\n", b"x", b"_", b"\xff",
                                                         b"\t", b"import"]), max_size=12).map(b"".join))
def test_relative_import_scan_matches_its_regex(data):
    from tfmigrate.engine import _RELATIVE_IMPORT, _has_relative_import

    assert _has_relative_import(data) == bool(_RELATIVE_IMPORT.search(data))


# ---- units whose program files import no TensorFlow ---------------------------------------------------------------

def _programs() -> dict[str, dict[str, bytes]]:
    """Multi-file runs for the unit split (engine.migrate_paths with the prefilter: a unit none of whose program
    files imports rules.ROOTS is migrated file by file): scikit-learn wrappers importing a TF library package, and
    a real Estimator program that builds its Estimator in a helper module its driver imports."""
    lib = {"pkg/__init__.py": "from pkg import models\n",
           "pkg/models.py": "import tensorflow as tf\n\n\nclass Model(tf.keras.Model):\n    pass\n",
           "pkg/fixes.py": NOT_ESTIMATORS["sklearn_fixes"],
           "pkg/wrappers.py": "from sklearn.base import BaseEstimator\n\nfrom pkg import models\n"
                              "from pkg.fixes import validate\n\n\nclass Wrapper(BaseEstimator):\n"
                              "    def fit(self, X, y):\n        validate(self, X)\n        self.model_ = models.Model()\n"
                              "        return self\n",
           "pkg/wrappers_test.py": "from pkg.wrappers import Wrapper\n" + NOT_ESTIMATORS["sklearn_checks"]}
    head, _ = SOURCES["regression_adagrad_original.py"].decode().split("def main():")
    helpers = (head + "def make_estimator(model_dir):\n    config = tf.estimator.RunConfig(model_dir=model_dir)\n"
               "    return tf.estimator.Estimator(model_fn=model_fn, config=config,\n"
               '                                  params={"learning_rate": 0.05, "hidden_units": 8})\n')
    driver = ("import helpers\n\n\ndef main():\n    est = helpers.make_estimator('/tmp/tfm-prefilter/m')\n"
              "    est.train(input_fn=helpers.train_input_fn, max_steps=20)\n"
              "    print(est.evaluate(input_fn=helpers.eval_input_fn))\n\n\nmain()\n")
    tf_test = {**lib, "pkg/wrappers_test.py": "import tensorflow as tf\n" + lib["pkg/wrappers_test.py"]}
    return {"sklearn_library": {k: v.encode() for k, v in lib.items()},
            "sklearn_library_tf_test": {k: v.encode() for k, v in tf_test.items()},  # one program file imports TF
            "helper_estimator": {"helpers.py": helpers.encode(), "main.py": driver.encode()},
            "helper_estimator_tf_driver": {"helpers.py": helpers.encode(),
                                           "main.py": ("import tensorflow as tf\n" + driver).encode()}}


PROGRAMS = _programs()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_units_without_tensorflow_as_a_run(name):
    check_program(PROGRAMS[name])


@SETTINGS
@given(name=st.sampled_from(sorted(PROGRAMS)), mutate=mutations())
def test_mutated_units_without_tensorflow(name, mutate):
    files = {rel: mutate(data) for rel, data in PROGRAMS[name].items()}
    assume(all(_parses(d) for d in files.values()))
    check_program(files)
