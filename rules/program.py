"""The Estimator-program migration: the one pass the engine runs, composed from the rule modules.

Order: resolve TF names once (import/alias table) → find every Estimator and what drives it (TFM601/TFM701) →
pick the target per model_fn → convert each model_fn (TFM501 with TFM101/201/301/401) → render the generated
code from jinja2 templates; parse back only what later passes must see (code naming the file's TF bindings, the
spliced forward pass), the rest stays text (edits.TextBlocks) → splice → fix imports and leftover TF1 names (TFM001).
All analysis happens before any edit, so a Blocked anywhere leaves the file untouched.

Graph-mode switches: `tf.compat.v1.disable_eager_execution()` / `disable_v2_behavior()` (and the enable_* twins)
written as statements of a file that converts are dropped with a TFM001 note: the Estimator built and ran its graphs
itself whatever the setting, and the migrated TF2 program runs eagerly with its step in a tf.function
(fixtures/static_config calls disable_v2_behavior at import time: 200/200 steps equivalent). A call whose result is
used stays and blocks as a leftover TF1 name.

TFM604 (unresolved Estimator name): a dotted name with an Estimator word in it (`x.estimator.Estimator`,
`tf.keras.estimator.model_to_estimator`, ...) whose root is bound nowhere in the file (TensorFlow reached through
code tfmigrate cannot see, a name injected at run time) is reported as an error rather than passed over: the file
may drive an Estimator the tool cannot resolve. Import TensorFlow explicitly and re-run. The canned class names
(`DNNClassifier`, `LinearRegressor`, ...) count as Estimator words here (`tf.contrib.learn.DNNClassifier` in a notebook
cell that never imports TensorFlow).

A file that imports TensorFlow but converts no Estimator is also reported (TFM601) where it drives one tfmigrate
cannot follow: `x.train/evaluate/predict/export_saved_model(...)` on the result of an estimator-named function that
is not a def of the run (`est = build_estimator()` imported from a module not passed), or train/evaluate/export on a
parameter named for an Estimator that nothing in the run calls (`def fit(estimator, ...)`); and once, at the class,
an Estimator subclass nothing in the run builds (instead of every Estimator name its model_fn uses). Names of
scikit-learn and boosting-library estimators are not taken for Estimators.

What a model_fn is follows from what is passed to an Estimator (`model_fn=`, the first positional argument, a
subclass' `super().__init__`: driver.Analysis.model_fn_defs), never from parameter names: a def a model_fn of another
module calls with its mode, a flag computed from it, or that builds layers (`nets.build_layers(features, mode)`) is
that model_fn's helper and gets its own TFM501 at its def, naming the call and what converts (a network helper moved
into the model_fn's module), beside the model_fn's finding at the call. Only for an Estimator built outside the run
is a def nothing in the run calls, that returns an EstimatorSpec and takes `features`, reported as a model_fn (TFM601).

Star imports: a model_fn name bound nowhere in a module that has `from X import *` of a module other than
TensorFlow is that import's (a module global): the converted model, written into the same module, reads it as the
model_fn did (`_star_imported`). A driver that imports no TensorFlow but star-imports a module of the run that does
(`from shop.net import *`, fixtures/star_import_package) reads `tf` through it (`_star_tf`), and the builder
generated next to a star-imported model_fn reaches it the same way, unless a later star import may rebind the name.
A model_fn a factory of the run returns (`def model_fn_builder(...): ...; return model_fn`) whose Estimator is not
converted names the factory's call and that file's first blocker (`_factory_model_fn`).

Why exact: the pass only composes the rules' conversions, each exact on its own; it edits nothing until every rule
has planned, and an output that does not parse is never written (the engine compiles it first).

Example: a file that imports only `from tensorflow.keras import Sequential` and calls
`tf.keras.estimator.model_to_estimator(model)` → `error TFM604`, the file is left unchanged.
"""
from __future__ import annotations

import dataclasses
import re

import libcst as cst
from libcst.helpers import get_full_name_for_node

from tfmigrate.visitors import Transformer, Visitor, render

from tfmigrate.diagnostics import Blocked
from tfmigrate.edits import Edits, TextBlocks, shared
from tfmigrate.model import FunctionRef, Value
from tfmigrate.names import ImportTable, build_import_table

from .facts.words import CANNED_NAMES, ESTIMATOR_NAMES, ROOTS
from .planners import (canned, driver, hooks, imports, keras_estimator, layers, model_fn, numpy_inputs, partitioners, shim,
                       strategy, variables)
from .planners import iterators, optimizer_helpers, private_keras
from .planners import mode_keys
from .planners import dense_features, keras2_program
from .planners import direct_model_fn
from .planners import dead_mode_keys
from .planners import assign_step
from .planners.generated_names import Settled, ast_read, compat_names
from .emit import codewords
from .emit.assembly import FORWARD_PASS, emit_parts, free_name, quiet_generated, support, template_env
from .facts.reading import export_kinds, module_level_names, reading_sites
from .facts import contrib_learn, estimator
from .facts.calls import TF, code
from .emit.wrap import generated, wrap_call
from .facts.tfnames import TFNames

TF_ROOTS = ROOTS  # (rules/__init__.py: the engine reads them too)
TEXT_BLOCKS = True  # generated module-level code stays text (edits.TextBlocks); tests compare it with parsing all


def _star_imported(fn, program) -> frozenset[str]:
    """The model_fn's names bound nowhere in its module when the module has `from X import *` of a module that is
    not TensorFlow: they come from that import, module globals the generated code (written into the same module)
    reads as the model_fn did. Empty without such an import (an unbound name stays an error)."""
    stars = [small for stmt in fn.file.module.body if isinstance(stmt, cst.SimpleStatementLine)
             for small in stmt.body if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar)
             and (small.relative or small.module is None
                  or code(small.module).split(".")[0] not in ("tensorflow", "tensorflow_estimator"))]
    if not stars:
        return frozenset()
    free = model_fn.free_name_nodes(fn.node.body)
    return frozenset(n.value for n in free if not program.lookup(n.value, n, fn.file)) - model_fn.BUILTINS


class _ReplacePlaceholder(Transformer):
    """Splices the forward pass where the template put its placeholder statement (statement blocks only)."""

    _BLOCKS = (cst.Module, cst.BaseCompoundStatement, cst.BaseSuite, cst.Else, cst.ExceptHandler, cst.Finally)

    def __init__(self, statements):
        self.statements = statements
        self.count = 0  # placeholders replaced

    def on_visit(self, node) -> bool:
        return isinstance(node, self._BLOCKS) and super().on_visit(node)

    def leave_IndentedBlock(self, original, updated):
        body = []
        for stmt in updated.body:
            if (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
                    and isinstance(stmt.body[0].value, cst.Name) and stmt.body[0].value.value == "__tfmigrate_forward_pass__"):
                body.extend(self.statements)
                self.count += 1
            else:
                body.append(stmt)
        return updated.with_changes(body=body)


def _render_model(plan: model_fn.ModelPlan, target: str, builder: str, leading,
                  parameter_server: bool, quiet: dict | None = None, words=(), predicting: bool = False,
                  exporting: frozenset[str] = frozenset(), warm_starting: bool = False,
                  resuming: bool = False, restoring: bool = False,
                  blocks: TextBlocks | None = None, until_end: bool = False,
                  global_step_class: bool = True, callbacks: bool = False,
                  support_done: set[str] | None = None, checkpoints: bool = False,
                  step_counter: bool = False, saver: bool = False, indent: str = "",
                  early_stopping: bool = False, predicate_stop: bool = False) -> list[cst.BaseStatement]:
    """... `indent`: the absolute indentation of the block the model goes in (a model_fn nested in a function)."""
    env = template_env()
    docstring = plan.docstring or f'"""Keras model converted from {plan.fn_name}."""'
    if target == "keras":
        # an Estimator's evaluate() always reports global_step; Model.evaluate reports the compiled metrics
        # (the custom loop's evaluate adds it itself)
        plan = dataclasses.replace(plan, metrics=[*plan.metrics, "GlobalStep(lambda: model.optimizer.iterations)"])
    # long generated calls go one argument per line; the templates indent the continuation lines
    plan = dataclasses.replace(
        plan,
        layers=[(attr, wrap_call(ctor, width=80)) for attr, ctor in plan.layers],
        optimizer=dataclasses.replace(plan.optimizer, ctor=wrap_call(plan.optimizer.ctor, width=76)),
        metrics=[_wrap_list(plan.metrics, width=70)] if plan.metrics else [],
    )
    parts = []
    if plan.partitioner is not None and (parameter_server or plan.mod_rows):
        # the comment goes in `leading`: a comment opening the parsed text would become the module header
        leading = [*leading, cst.EmptyLine(comment=cst.Comment(f"# TF1: {plan.partitioner.tf1}"))]
        parts.append(f"VARIABLE_PARTITIONER = {wrap_call(plan.partitioner.tf2, width=96)}")
    if plan.mod_rows:
        parts.append(shared(generated(partitioners.TF1_MOD_ROWS)).strip("\n"))
    if plan.optimizer.support_code:
        parts.append(plan.optimizer.support_code.strip("\n"))
    at = len(parts)  # the model class and the module-level code only it needs, each a part (support: compiled once)
    parts.extend(plan.support)
    if resuming or restoring:
        parts.append(support("estimator_restore.py.j2", part="slots", canned=None))
    parts.append(env.get_template("model_class.py.j2").render(plan=plan, docstring=docstring,
                                                                   keras_target=target == "keras",
                                                                   predicting=predicting, exporting=exporting,
                                                                   warm_starting=warm_starting, resuming=resuming,
                                                                   restoring=restoring))
    if uses_tf1_batch_norm(plan) and (support_done is None or layers.TF1_BATCH_NORM not in support_done):
        # generated once per file (a canned DNN's batch_norm uses it too)
        parts.insert(at, support("canned_head.py.j2", part=layers.TF1_BATCH_NORM))
        at += 1
        if support_done is not None:
            support_done.add(layers.TF1_BATCH_NORM)
    if target == "keras":
        if global_step_class:
            parts.insert(at, support("canned_head.py.j2", part="GlobalStep"))
        parts.append(env.get_template("keras_build.py.j2").render(plan=plan, build_fn=builder))
        if checkpoints:
            parts.append(support("estimator_checkpoints.py.j2").strip("\n"))
    else:
        parts.append(env.get_template("ctl_trainer.py.j2").render(plan=plan, trainer=builder,
                                                                  parameter_server=parameter_server,
                                                                  predicting=predicting, warm_starting=warm_starting,
                                                                  resuming=resuming, until_end=until_end,
                                                                  callbacks=callbacks, saver=saver))
    if getattr(plan, "logged", None):  # LoggingTensorHooks (rules/planners/hooks.py)
        parts.append(support("tensor_logger.py.j2"))
    if any("TF1Mean(" in m or "TF1RootMean(" in m for m in getattr(plan, "metrics", ())):  # planners/metrics.py (wrapped list)
        parts.append(support("tf1_mean.py.j2"))
    if any("TF1MetricValues." in m for m in getattr(plan, "metrics", ())):  # rules/planners/metric_expressions.py
        parts.append(support("tf1_metric_values.py.j2"))
    if getattr(plan, "stops", None):  # StopAtStepHooks in training_hooks (rules/planners/hooks.py)
        parts.append(support("stop_at_step.py.j2"))
    if step_counter:  # StepCounterHooks on training (rules/planners/hooks.py)
        parts.append(support("step_counter.py.j2"))
    if early_stopping:  # early-stopping hooks on training (rules/planners/hooks.py)
        parts.append(support("early_stopping.py.j2"))
    if predicate_stop:  # make_early_stopping_hook on training (rules/planners/driver/_predicate_stop.py)
        parts.append(support("predicate_stop.py.j2"))
    if parameter_server:
        parts.append(support("ps_strategy.py.j2"))
    named = codewords.code_words(words)  # the words in code, not in docstrings or comments
    if indent:  # nested in a function: the generated docstrings' lines follow the block's indentation
        parts = [_indent_docstrings(part, indent, plan.docstring) for part in parts]
    if blocks is not None and not indent:
        parts = [_spliced_text(part, plan.call_body, named, blocks) if FORWARD_PASS in part else part
                 for part in parts]
    splice = _ReplacePlaceholder(plan.call_body)
    body, spliced, kinds, texts = [], set(), [], []
    for i, (stmt, kind, part) in enumerate(emit_parts(parts, blocks, named, indent)):
        before = splice.count
        body.append(stmt.visit(splice) if kind != "text" else stmt)
        if splice.count > before:
            spliced.add(i)
        kinds.append(kind)
        texts.append(part)
    body[0] = body[0].with_changes(leading_lines=[*leading, *body[0].leading_lines])
    # blank separator lines carry no indentation (placed in a function body they would get its indent)
    body = [stmt.with_changes(leading_lines=[line.with_changes(indent=False) if line.comment is None else line
                                             for line in stmt.leading_lines]) for stmt in body]
    if quiet is not None and words:
        # generated statements that name none of the file's TF bindings: the leftover-name pass has nothing to do
        # there (the one holding the spliced forward pass is left to it: those are the user's statements)
        quiet.update((id(stmt), stmt) for i, stmt in enumerate(body)
                     if kinds[i] == "parsed" and i not in spliced and not named.search(render(_EMPTY_MODULE, stmt)))
        quiet_generated(list(zip(body, kinds, texts)), named, quiet, {id(stmt) for stmt in plan.call_body})
    return body


def _indent_docstrings(text: str, indent: str, keep: str | None = None) -> str:
    """`text` (generated module-level code) with `indent` added to the continuation lines of its multi-line
    docstrings (the blank ones stay empty): placed in a nested block, LibCST indents every line but those inside a
    string, so a docstring would keep the template's indentation. `keep`: a docstring copied from the user's
    code (already indented as written there), left as it is. Text `ast` does not read is returned unchanged."""
    import ast

    if '"""' not in text:
        return text
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    lines = text.split("\n")
    extra: list[int] = []  # 0-based indices of the continuation lines to indent
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str) and first.end_lineno > first.lineno
                    and (keep is None or ast.get_source_segment(text, first.value) != keep)):
                extra.extend(range(first.lineno, first.end_lineno))
    for i in extra:
        if lines[i].strip():
            lines[i] = indent + lines[i]
    return "\n".join(lines)


_FORWARD_PASS_LINE = "        __tfmigrate_forward_pass__\n"  # (model_class.py.j2: in `call`, a method of a class)


def _spliced_text(part: str, statements, named: codewords.CodeWords | None, blocks: TextBlocks) -> str:
    """`part` with the forward pass (`statements`, the user's) written in for its placeholder line as the final
    render writes them there, when all of the part may then stay text: it names none of the file's TF bindings in
    code, or only where the import fix-up changes nothing (`named.settles`); else `part` as it is (parsed, the
    statements spliced in as nodes: a blocker in them points at the user's code)."""
    # (the whole line: the shim's placeholder, one block deeper, ends with this one's text)
    if not statements or part.count(FORWARD_PASS) != 1 or "\n" + _FORWARD_PASS_LINE not in part:
        return part
    block = cst.IndentedBlock(list(statements), indent=_FORWARD_PASS_LINE[:-len(FORWARD_PASS) - 1])
    code = _EMPTY_MODULE.code_for_node(cst.If(cst.Name("_"), block))
    if not code.startswith("if _:\n") or "\r" in code or blocks.prefix in code:
        return part  # (a text block's placeholder in it would be swapped before the part's)
    text = part.replace("\n" + _FORWARD_PASS_LINE, "\n" + code[len("if _:\n"):])
    if named is None:
        return text
    masked = named.masked(text)
    return text if named.search_masked(masked) is None or named.settles(text, masked) else part


def _block_indent(module: cst.Module, node: cst.CSTNode, parent_of) -> str | None:
    """The absolute indentation of the block holding the statement `node` (the index's parent links lead to it;
    the walk enters only statements and their blocks), or None where it is not found."""
    path, up = set(), parent_of(node)
    while up is not None:
        path.add(id(up))
        up = parent_of(up)
    default = module.default_indent

    def walk(block, indent: str):
        for child in block.children:
            if child is node:
                return indent
            if isinstance(child, cst.IndentedBlock):
                found = walk(child, indent + (default if child.indent is None else child.indent))
            elif id(child) in path or isinstance(child, (cst.Else, cst.ExceptHandler, cst.Finally, cst.If,
                                                         cst.BaseSuite)):
                found = walk(child, indent)
            else:
                continue
            if found is not None:
                return found
        return None

    return walk(module, "")


def uses_tf1_batch_norm(plan: model_fn.ModelPlan) -> bool:
    """The model's layers include a tf.compat.v1 batch_normalization (the generated TF1BatchNormalization)."""
    return isinstance(plan, model_fn.ModelPlan) and any(f"{layers.TF1_BATCH_NORM}(" in text for _, text in plan.layers)


_EMPTY_MODULE = cst.Module(body=[])


def _wrap_list(items: list[str], width: int) -> str:
    """Items joined for a list display: one line if short, else one per line (the template adds brackets)."""
    one = ", ".join(items)
    if len(one) <= width:
        return one
    return "\n" + "".join(f"    {item},\n" for item in items)


def analysis_for(context) -> driver.Analysis:
    """The program-wide analysis (every Estimator, its config, specs and uses), computed once per program."""
    program = context.program
    key = ("driver-analysis", context.options)
    cache = program.cache
    if key not in cache:
        names = {}

        def names_for(file):
            if id(file) not in names:
                names[id(file)] = TFNames(program=program, file=file)
            return names[id(file)]

        cache[key] = driver.Analysis(program, names_for, context.options).run()
    return cache[key]


def migrate(module: cst.Module, context) -> cst.Module:
    """The one migration the engine runs on each file of a unit: the program-wide facts (`analysis_for`), which
    Estimator sites concern this file, a plan per model_fn, then the file emitted (or every blocker raised)."""
    table = build_import_table(module, TF_ROOTS)
    file = context.index()
    analysis = analysis_for(context)
    program = analysis.program
    _star_tf(module, table, file, program)
    inputs = {id(s): _input_files(s, program) for s in analysis.sites}
    mine = [s for s in analysis.sites if s.file is file or s.model_fn.file is file
            or any(u.file is file for u in s.uses) or any(r.file is file for r in s.receivers.values())
            or any(c.file is file for c in s.callback_plans.values())
            or id(file) in {id(f) for f in inputs[id(s)]}
            or getattr(analysis.handed.get(id(s.call)), "file", None) is file]  # hands a run loop the model_fn
    if not mine and not table.bindings and not _imports_tf_anywhere(file):
        # no TensorFlow import at all (a notebook cell, a star import from outside the run): an Estimator-looking
        # name rooted in nothing bound is still reported (TFM604), never passed over. A file that drives an
        # Estimator of another file (`est = helpers.make_estimator(); est.train(...)`) or feeds one is in `mine`:
        # converted with it like any driver file, TensorFlow import or not
        _refuse_leftover_estimator(module, TFNames(program=program, file=file), file, program, drives=False,
                                   analysis=analysis)
        return module
    group = {id(file)} | {id(f) for s in mine for f in (s.file, s.model_fn.file, *(u.file for u in s.uses),
                                                          *(r.file for r in s.receivers.values()),
                                                          *(c.file for c in s.callback_plans.values()), *inputs[id(s)],
                                                          *(h.file for h in [analysis.handed.get(id(s.call))] if h))}
    context.link(*(f.path for f in program.files if id(f) in group and f is not file))
    errors = [e for e in analysis.errors if id(program.file_of(e.node) or file) in group]
    errors += [e for s in mine for e in s.errors]  # its RunConfig's, wherever that is built
    if not mine:
        return _migrate_without_sites(module, table, file, program, analysis, errors, inputs, context)
    names = TFNames(program=program, file=file)
    by_fn, made = _plan_model_fns(mine, module, table, file, context, errors)
    plans, notes = made.plans, made.notes
    edits = Edits()
    seed_drops, seed_errors = _random_seeds(names, file, mine, analysis)
    iterator_notes, iterator_errors = iterators.plan(file, analysis, names, edits)
    errors += iterator_errors
    # a helper the model_fn inlines: its seed is the model_fn rule's blocker already (one finding, once)
    named = {id(x.node) for e in errors for x in e.errors if x.node is not None}
    errors += [e for e in seed_errors if not file.inside(e.node, named)]
    errors += _inlined_helpers(plans, by_fn, file, program, edits)
    if errors:
        errors += _unconverted_model_fn_blockers(analysis, by_fn, file, context)
        errors += _unused_helper_blockers(module, table, file, program, analysis, errors)
        _raise(errors, file, program, analysis)
    for line, note in seed_drops:
        edits.delete(line)
        notes.append(note)
    notes.extend(iterator_notes)
    return _emit_file(module, table, file, analysis, context, names, edits, by_fn, made)


def _migrate_without_sites(module: cst.Module, table: ImportTable, file, program, analysis, errors: list, inputs,
                           context) -> cst.Module:
    """A file of the unit where no Estimator of the program is built, configured or driven: its blockers, the
    Estimator API left in it (TFM604/TFM601), or, imported by the program or importing it, its TF1 names
    converted with the unit."""
    if errors:
        errors += _unconverted_model_fn_blockers(analysis, {}, file, context)
        errors += _unused_helper_blockers(module, table, file, program, analysis, errors)
        _raise(errors, file, program)
    helpers = _foreign_model_fn_helpers(file, analysis)
    if helpers:  # each helper's own finding stands for what is inside it; other Estimator API is reported too
        inside = {id(h.helper) for h in helpers}
        try:
            _refuse_leftover_estimator(module, TFNames(program=program, file=file), file, program,
                                       analysis=analysis)
        except Blocked as found:
            helpers += [e for e in found.errors if e.node is None or not file.inside(e.node, inside)]
        raise Blocked.many(helpers)
    # mode keys no converted Estimator reaches are the strings they always were (planners/mode_keys)
    unit = _unit_files(analysis, inputs)
    keys = mode_keys.unreached(file, TFNames(program=program, file=file), program, analysis.sites, unit,
                               _unit_importer(file, analysis, program, unit), _line_of)
    try:
        _refuse_leftover_estimator(module, TFNames(program=program, file=file), file, program, analysis=analysis,
                                   constants=keys)
    except Blocked:
        # an Estimator of another file of the unit that reads this one (its input functions) is blocked
        # itself: say that file blocked, as for any file of a unit left unchanged
        if analysis.errors:
            _raise(analysis.errors, file, program)
        # a module the converted program imports (its data) that cannot run on TF2 blocks the unit with it, never
        # left behind half-migrated (tf.contrib.learn.datasets in a data module)
        context.link(*(f.path for f in _unit_importers(file, analysis, program, inputs)))
        raise
    importers = _unit_importers(file, analysis, program, inputs)
    blocked_imported = [e for e in analysis.errors if (program.file_of(e.node) or file) is not file
                        and _imports_module(file, program.file_of(e.node).module_name, program)]
    if blocked_imported and table.bindings:
        # the entry point of an Estimator program left for manual work (`from . import model` whose
        # Estimator is blocked) stays unchanged with it, said so
        _raise(blocked_imported, file, program)
    if not (importers or keys) or not table.bindings:
        return module
    # a module the migrated program imports (its data, its hooks), or that imports it (its entry point), runs on
    # TF2 with it: its TF1 names are converted like the program's, and one TF2 lacks blocks the whole unit
    # (linked), never left to fail at import
    context.link(*(f.path for f in importers))
    # its seed calls too: a `set_seeds()` helper the driver calls is dropped, one the model_fn calls blocks
    # (only in a unit's module: a file no Estimator reaches keeps its seeds and iterators as the TF-names rule has them)
    seed_drops, seed_errors = (_random_seeds(TFNames(program=program, file=file), file, [], analysis) if importers
                               else ([], []))
    edits = Edits()
    iterator_notes, iterator_errors = (iterators.plan(file, analysis, TFNames(program=program, file=file), edits)
                                       if importers else ([], []))
    if seed_errors or iterator_errors:
        _raise(seed_errors + iterator_errors, file, program)
    new_module = module
    for node, text in keys.values():
        if text is not None:
            edits.replace(node, text)
    if seed_drops or iterator_notes or keys:
        for line, _ in seed_drops:
            edits.delete(line)
        new_module = edits.apply(module, file.parent)
    if any(text is None for _, text in keys.values()):
        # `TRAIN = tf.estimator.ModeKeys.TRAIN` holds a string now, no TF name: the bindings of the edited module
        module = new_module
        table = build_import_table(module, TF_ROOTS)
    alias, imported = _tf2_alias(module, table)
    leftover_notes = []
    new_module, tf_name = _fix_imports(new_module, table, alias, imported, "", file, notes=leftover_notes)
    context.replace_text(TF, tf_name)
    for note in [*(note for _, note in seed_drops), *iterator_notes, *leftover_notes,
                 *([mode_keys.note(keys)] if keys else [])]:
        context.note(*note)
    return new_module


@dataclasses.dataclass
class _FilePlans:
    """What `_plan_model_fns` decided for the model_fns of one file's Estimators (keyed by model_fn node id)."""
    plans: dict = dataclasses.field(default_factory=dict)
    builders: dict = dataclasses.field(default_factory=dict)
    targets: dict = dataclasses.field(default_factory=dict)
    parameter_server: set = dataclasses.field(default_factory=set)
    notes: list = dataclasses.field(default_factory=list)


def _plan_model_fns(mine: list, module: cst.Module, table: ImportTable, file, context, errors: list):
    """One target and plan per model_fn of the sites in this file (the model_fn may live in another file of the
    program); a model_fn that cannot be planned, or whose plan collides with this module, adds to `errors`."""
    by_fn: dict[int, list[driver.Site]] = {}
    for site in mine:
        by_fn.setdefault(id(site.model_fn.node), []).append(site)
    made = _FilePlans()
    plans, builders, targets, parameter_server, notes = (made.plans, made.builders, made.targets,
                                                        made.parameter_server, made.notes)
    for key, sites in by_fn.items():
        try:
            plan, target, builder, ps, fn_notes = _model_plan(sites, context)
        except Blocked as blocked:
            errors.append(blocked)
            continue
        predicts, exports = reading_sites(sites)
        broken = getattr(plan, "predict_blocked", None)  # model_fn plans: PREDICT's return raised in TF1
        if broken is not None and (predicts or exports):
            from tfmigrate.engine import position_in

            first = (predicts or exports)[0]
            where = f"{first.file.path.rpartition('/')[2]}:{position_in(first.file.module, first.call)[0]}"
            errors.append(Blocked(broken.code, f"{broken.message}; this return runs in PREDICT mode, which the "
                                               f"{'predict' if predicts else 'export'}() at {where} runs",
                                  broken.node))
            continue
        if broken is not None:
            fn_notes = [*fn_notes, (broken.code, f"{broken.message.partition(':')[0]}: TF1 raised a TypeError when "
                                                 "this PREDICT-mode return ran, which this program never does (it "
                                                 "neither predicts nor exports); the converted model has no "
                                                 "predictions", broken.node)]
        if plan.predictions is None and (predicts or exports):
            first = (predicts or exports)[0]
            errors.append(Blocked(estimator.CODE, f"{'predict' if predicts else 'export'}() of an Estimator whose "
                                                  f"model_fn `{sites[0].model_fn.node.name.value}` returns no "
                                                  "predictions (the Estimator would raise)", first.call))
            continue
        if getattr(plan, "export_blocked", None) is not None:  # model_fn plans (a Keras model has no export_outputs)
            if exports or predicts:  # an export's signatures come from them; predict validated them (TF1 raised)
                errors.append(plan.export_blocked)
                continue
            fn_notes = [*fn_notes, (plan.export_blocked.code, "export_outputs dropped (nothing exports the model; "
                                    f"converting them would block: {plan.export_blocked.message})",
                                    plan.export_blocked.node)]
        if (target == "keras" and not canned.is_canned(sites[0]) and not keras_estimator.is_keras(sites[0])
                and sites[0].model_fn.file is file
                and "GlobalStep" in module_level_names(module, table)):
            errors.append(Blocked(model_fn.CODE, "`GlobalStep` is taken in this module; the generated evaluate() "
                                                 "metric global_step needs the name", sites[0].model_fn.node))
            continue
        if (uses_tf1_batch_norm(plan) and sites[0].model_fn.file is file
                and layers.TF1_BATCH_NORM in module_level_names(module, table)):
            errors.append(Blocked(layers.CODE, f"`{layers.TF1_BATCH_NORM}` is taken in this module; the converted "
                                               "batch_normalization needs the name", sites[0].model_fn.node))
            continue
        if ps and (getattr(plan, "loggers", None) or getattr(plan, "chief_loggers", None)):
            # the scheduled loop calls no callbacks: the model_fn's LoggingTensorHooks / StepCounterHooks only log
            fn_notes = [(code, hooks.PS_LOGGING_NOTE, node) if code == hooks.CODE and message.startswith(
                ("LoggingTensorHook (EstimatorSpec", "StepCounterHook converted")) else (code, message, node)
                for code, message, node in fn_notes]
        nan = getattr(plan, "nan_check", None)  # model_fn plans: a NanTensorHook(loss) in training_hooks
        if nan is not None and ps:
            errors.append(Blocked(hooks.CODE, "NanTensorHook under parameter servers is not converted: the migrated "
                                              "chief reads the workers' losses only every log or checkpoint step, "
                                              "not after each step as each TF1 worker's hook did", nan))
            continue
        if getattr(plan, "stops", None) and ps:
            errors.append(Blocked(hooks.CODE, "StopAtStepHook in EstimatorSpec(training_hooks=...) under parameter "
                                              "servers is not converted: the coordinator's scheduled loop calls no "
                                              "callbacks (each TF1 worker's hook stopped it on its own)",
                                  sites[0].model_fn.node))
            continue
        taken = [name for name, used in (("StopAtStep", getattr(plan, "stops", None)),
                                          ("TF1Mean", any(m.startswith(("TF1Mean(", "TF1RootMean(")) for m in getattr(plan, "metrics", ()))),
                                          ("TF1MetricValues", any("TF1MetricValues." in m for m in getattr(plan, "metrics", ()))),
                                          ("TF1RootMean", any("TF1RootMean(" in m for m in getattr(plan, "metrics", ()))),
                                          ("TensorLogger", getattr(plan, "logged", None)),
                                          ("StepCounter", any(s.counters for s in sites)
                                           or getattr(plan, "counters", False))) if used]
        if sites[0].model_fn.file is file and set(taken) & module_level_names(module, table):
            errors.append(Blocked(hooks.CODE, f"`{sorted(set(taken) & module_level_names(module, table))[0]}` is taken in "
                                              "this module; the converted hook needs the name", sites[0].model_fn.node))
            continue
        trains = [u.call for s in sites for u in s.uses if u.file is file and u.train]
        if target == "keras" and trains and "NanLossCheck" in module_level_names(module, table):
            errors.append(Blocked(hooks.CODE, "`NanLossCheck` is taken in this module; the Estimator's own NaN loss "
                                              "check (NanTensorHook(loss), added to every training) needs the name",
                                  trains[0]))
            continue
        plans[key], targets[key], builders[key] = plan, target, builder
        if ps:
            parameter_server.add(key)
        if sites[0].model_fn.file is file:
            notes.extend(fn_notes)
        if ps:  # the Estimator's own NaN loss check: not reproduced by the scheduled loop (rules/planners/hooks.py)
            notes.extend((hooks.CODE, hooks.PS_NAN_NOTE, s.call) for s in sites if s.file is file)
    return by_fn, made


def _emit_file(module: cst.Module, table: ImportTable, file, analysis, context, names: TFNames, edits: Edits,
               by_fn: dict, made: _FilePlans) -> cst.Module:
    """The converted file: the driver's edits, the canned and model_fn models rendered where they stand, mode
    keys and graph-mode switches, then the imports fixed and the notes reported."""
    program = analysis.program
    plans, builders, targets, parameter_server, notes = (made.plans, made.builders, made.targets,
                                                        made.parameter_server, made.notes)
    quiet: dict = {}  # generated statements no TF binding of this file appears in (kept alive: keyed by id)
    blocks = TextBlocks(module, context.text) if TEXT_BLOCKS else None
    if blocks is not None and not blocks.usable:
        blocks = None
    named = codewords.code_words(table.bindings)  # the file's TF bindings, in generated code
    settled = None
    if blocks is not None and named is not None:
        # generated code that names them where the import fix-up changes nothing stays text too
        settled = named.settled = Settled(table, named, module)
    if blocks is not None:
        # the driver's generated statements and expressions that name no TF binding of the file stay text too (the
        # leftover-name pass and the import count would find nothing in them)
        edits.blocks, edits.plain = blocks, (lambda text, expression=False: True) if named is None else \
            (lambda text, expression=False: _plain(named, settled, text, expression))
    driver.Emitter(analysis, file, builders, plans).edits(edits)
    top = {id(stmt) for stmt in module.body}  # generated code stays text only at module level
    support_done: set[str] = set()  # support code is generated once per file (canned models and model_fns)
    _render_canned(by_fn, plans, builders, targets, file, edits, blocks, top, named or (), quiet, support_done)
    global_step_done = False  # the GlobalStep metric class is generated once per file
    nested: dict = {}  # a model_fn in a function: the indentation of its block (its model is emitted there)
    for key, sites in by_fn.items():
        fn = sites[0].model_fn
        if canned.is_canned(sites[0]) or keras_estimator.is_keras(sites[0]):
            continue
        if fn.file is file and sites[0].factory is not None and sites[0].factory[1] is not None:
            edits.replace(sites[0].factory[1].value, builders[key])  # `return model_fn` → the builder
        # a factory's model_fn (`model_fn_builder`): its model is generated inside the factory, where the driver
        # cannot reach EstimatorCheckpoints: the driver writes that class at module level (driver local_support)
        writes = any(map(driver.writes_checkpoints, sites))
        outside = writes and targets[key] == "keras" and sites[0].factory is not None \
            and sites[0].factory[1] is not None and id(sites[0].factory[0]) in top
        if isinstance(plans[key], assign_step.AssignPlan):  # (rules/planners/assign_step.py)
            if fn.file is file:
                edits.replace_statement(fn.node, assign_step.render(plans[key], builders[key], fn.node.leading_lines,
                                                                    export_kinds(reading_sites(sites)[1]),
                                                                    any(s.warm_start for s in sites)))
            continue
        if fn.file is file:
            predicts, exports = reading_sites(sites)
            edits.replace_statement(fn.node, _render_model(plans[key], targets[key], builders[key], fn.node.leading_lines,
                                                           key in parameter_server, quiet, named or (),
                                                           bool(predicts), export_kinds(exports),
                                                           any(s.warm_start for s in sites),
                                                           key not in parameter_server and any(map(driver.resumes, sites)),
                                                           any(u.restore for s in sites for u in s.uses),
                                                           blocks if id(fn.node) in top
                                                           or nested.setdefault(key, _block_indent(module, fn.node, file.parent))
                                                           else None,
                                                           driver.until_end_of_input(sites),
                                                           global_step_class=not global_step_done,
                                                           callbacks=any(s.callback_plans or s.loggers or s.counters
                                                                         for s in sites)
                                                           or bool(getattr(plans[key], "loggers", None))
                                                           or bool(getattr(plans[key], "chief_loggers", None))
                                                           or bool(getattr(plans[key], "stops", None)),
                                                           support_done=support_done,
                                                           checkpoints=writes and not outside,
                                                           step_counter=any(s.counters for s in sites)
                                                           or getattr(plans[key], "counters", False),
                                                           saver=any("checkpoint" in u.train for s in sites
                                                                     for u in s.uses),
                                                           indent=nested.get(key) or "",
                                                           early_stopping=any(e[0] is s and e[5] != hooks.PREDICATE
                                                                              for s in sites for e in
                                                                              analysis.early_stops.values()),
                                                           predicate_stop=any(e[0] is s and e[5] == hooks.PREDICATE
                                                                              for s in sites for e in
                                                                              analysis.early_stops.values())))
            global_step_done = global_step_done or targets[key] == "keras"
    _mode_keys(module, names, edits, [sites[0].model_fn.node for sites in by_fn.values()
                                      if sites[0].model_fn.file is file], file)
    notes.extend(_graph_mode_switches(names, edits, file))
    notes.extend(private_keras.check_imports(file, program))
    # the file's own Keras code on tf_keras when it names Keras 2 APIs Keras 3 lacks (DenseFeatures moves with it)
    keras2 = keras2_program.plan(file, program, [sites[0].model_fn.node for sites in by_fn.values()
                                                 if sites[0].model_fn.file is file],
                                 {*edits.expressions, *edits.statements, *edits.deleted})
    dense_targets, dense_notes = dense_features.plan(file, program, [sites[0].model_fn.node for sites in by_fn.values()
                                                                     if sites[0].model_fn.file is file]) \
        if keras2 is None else ([], [keras2.note])
    notes.extend(dense_notes)
    learn = contrib_learn.first_mode_key(file, program)
    if learn is not None:  # (every key of the file is read so: one note)
        notes.append((imports.CODE, "tf.contrib.learn.ModeKeys (TF 1.x, removed in TF 2) read as tf.estimator.ModeKeys, "
                                    f"the same strings (INFER is PREDICT): here {learn[1]}", learn[0]))
    dense_features.rename(edits, dense_targets)
    if keras2 is not None:
        keras2_program.rename(edits, keras2)
    new_module = edits.apply(module, file.parent)
    alias, imported = _tf2_alias(module, table)
    new_module, tf_name = _fix_imports(new_module, table, alias, imported,
                                       _shim_keras(module) if any(isinstance(p, shim.ShimPlan) for p in plans.values())
                                       else _KERAS_TF_KERAS if parameter_server else _KERAS, file, quiet,
                                       blocks.texts() if blocks is not None else (), settled, notes,
                                       frozenset().union(*(p.shim_helpers for p in plans.values()
                                                           if isinstance(p, shim.ShimPlan))))
    new_module = private_keras.rename(new_module)  # (after the clean-up of the imports as written)
    if dense_targets or keras2 is not None:
        new_module = dense_features.add_import(new_module)
    if keras2 is not None:  # generated code reading what the move changed would mix tf_keras and Keras 3 objects
        keras2_program.check(new_module, module, blocks.texts() if blocks is not None else (), keras2)
    for i, (placeholder, text) in enumerate(blocks.swaps if blocks is not None else ()):
        # before TF's swap: the text names TF through its placeholder
        context.replace_text(placeholder, text, i in blocks.standalone)
    # the placeholder is unique, so a textual swap on the rendered output is exact (it also reaches generated
    # docstrings and comments); done once by the engine, no re-parse
    context.replace_text(TF, tf_name)
    # a LoggingTensorHook dropped once its names were looked up (_logged_names) has that note, not "converted"
    dropped = {h for s in analysis.sites for h in s.dropped_loggers}
    for rule, message, node in [*notes, *(n for n in analysis.notes if (program.file_of(n[2]) or file) is file
                                          and not (id(n[2]) in dropped and n[0] == hooks.CODE
                                                   and n[1] == hooks.logging_note("train hooks")))]:
        context.note(rule, message, node)
    return new_module


def _plain(named: codewords.CodeWords, settled: Settled | None, text: str, expression: bool) -> bool:
    """Generated `text` (statements, or with `expression` an expression) may stay text: it names no binding of the
    file in code, or only where the import fix-up changes nothing (`settled`)."""
    masked = named.masked(text)
    return named.search_masked(masked) is None or settled is not None and settled(text, expression, masked)


_MODE_KEYS = driver.MODE_KEYS


def _mode_keys(module: cst.Module, names: TFNames, edits: Edits, skip: list, file=None) -> None:
    """`tf.estimator.ModeKeys.TRAIN` outside the converted model_fns (input_fns test the mode) → the string it
    always was ("train", "eval", "infer"): exact, and TF2 has no tf.estimator.

    With `file` (the module's program-model index), only subtrees holding a TRAIN/EVAL/PREDICT name are entered
    (import statements, whose names the index does not walk, always are)."""
    skipped = {id(n) for n in skip}
    wanted: set[int] | None = None
    if file is not None:
        wanted = set()
        for attr in {path.rsplit(".", 1)[1] for path in _MODE_KEYS} | {"INFER"}:  # (contrib.learn's PREDICT)
            for node in file.names.get(attr, ()):
                key = id(node)
                while key not in wanted:
                    wanted.add(key)
                    parent = file.parents.get(key) or file.owners.get(key)
                    if parent is None:
                        break
                    key = id(parent)

    module.visit(_ModeKeysFind(wanted, file, skipped, names, edits))


class _ModeKeysFind(Visitor):
    """_mode_keys' walk (one class for every call: a class made per call costs its creation and dispatch cache)."""

    def __init__(self, wanted, file, skipped, names, edits):
        self.wanted, self.file, self.skipped, self.names, self.edits = wanted, file, skipped, names, edits

    def on_visit(self, node) -> bool:
        if (self.wanted is not None and id(node) not in self.wanted and id(node) in self.file.orders
                and not isinstance(node, (cst.Import, cst.ImportFrom))):
            return False
        return super().on_visit(node)

    def visit_FunctionDef(self, node) -> bool:
        return id(node) not in self.skipped

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        path = self.names.of(node)
        if path in _MODE_KEYS:
            self.edits.replace(node, _MODE_KEYS[path])
            return False
        return True


_GRAPH_MODE_SWITCHES = ("disable_eager_execution", "disable_v2_behavior", "enable_eager_execution",
                        "enable_v2_behavior", "reset_default_graph")


def _graph_mode_switches(names: TFNames, edits: Edits, file) -> list:
    """`tf.compat.v1.disable_eager_execution()` / `disable_v2_behavior()` (and their enable_* twins), and
    `reset_default_graph()`, as statements of an Estimator program that converts: dropped with a note. The Estimator built and ran its graphs itself, in graph
    mode either way; the migrated program is TF2 code, which runs eagerly (tf.function inside Keras / the custom
    loop). Only the statement form goes (a call whose result is used stays, and blocks as a leftover TF1 name)."""
    found = []
    for word in _GRAPH_MODE_SWITCHES:
        for name in file.names.get(word, ()):
            attr = file.parents.get(id(name))
            if not (isinstance(attr, cst.Attribute) and attr.attr is name):
                attr = name  # `disable_eager_execution()` imported by name
            call = file.parents.get(id(attr))
            expr = file.parents.get(id(call)) if isinstance(call, cst.Call) and call.func is attr else None
            line = file.parents.get(id(expr)) if isinstance(expr, cst.Expr) else None
            if (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and not call.args
                    and names.of(call) == word):
                edits.delete(line)
                why = ("the Estimator built each of its graphs anew, whatever the default graph held"
                       if word == "reset_default_graph" else "the Estimator ran its graphs itself whatever the setting")
                found.append((imports.CODE, f"tf.compat.v1.{word}() dropped: {why}; the migrated TF2 program runs "
                                            "eagerly (its training step is a tf.function)", call))
    return found


_SEED_SETTERS = ("set_random_seed", "random.set_random_seed", "random.set_seed")


def _random_seeds(names: TFNames, file, mine, analysis) -> tuple[list, list]:
    """`tf.compat.v1.set_random_seed(s)` statements of a file whose Estimator converts → ([(line, note)] to drop,
    [blockers]). The Estimator built each of its graphs anew with the graph seed RunConfig(tf_random_seed) (None by
    default), so a call in the code that builds and drives it never reached its model or input pipeline (TF 2.15,
    measured: the initial weights differ from run to run): dropped with a note, never turned into tf.random.set_seed,
    which would seed the migrated model. Where a call can run is found from the program's calls (_SeedReach): only
    from driver code (module level, `main` run by app.run, the functions that build the Estimator or call
    train/evaluate, and what only they call) → dropped; from a function the Estimator runs in its graph (an input_fn,
    or a helper it calls, in any file) → reported, the seed belongs in RunConfig; from both, or from callers the tool
    cannot follow → reported with the two cases and why. In the model_fn itself the model_fn rule reports it
    (rules/planners/model_fn.py)."""
    drops, errors = [], []
    model_fns = {id(site.model_fn.node) for site in mine}
    reach = None
    for word in ("set_random_seed", "set_seed"):
        for name in file.names.get(word, ()):
            attr = file.parents.get(id(name))
            if not (isinstance(attr, cst.Attribute) and attr.attr is name):
                attr = name
            call = file.parents.get(id(attr))
            if not (isinstance(call, cst.Call) and call.func is attr and names.of(call) in _SEED_SETTERS):
                continue
            fn = file.enclosing_function(call)
            outer, inside_model_fn = fn, False
            while outer is not None:
                inside_model_fn = inside_model_fn or id(outer) in model_fns
                outer = file.enclosing_function(file.parents.get(id(outer)))
            if inside_model_fn:
                continue
            text = code(call).strip()
            expr = file.parents.get(id(call))
            line = file.parents.get(id(expr)) if isinstance(expr, cst.Expr) else None
            statement = isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1
            reach = reach or _SeedReach(analysis)
            runs = reach.runs(call, file)
            kinds = {kind for kind, _ in runs}
            if statement and kinds == {"driver"}:
                drops.append((line, (imports.CODE, f"{text} dropped: called outside the model_fn and input_fns, it "
                                                   "never reached the Estimator, which built each of its graphs with "
                                                   "RunConfig(tf_random_seed=...) as their seed, None unless given "
                                                   "(TF 2.15: the weights differed from run to run with this call); "
                                                   "the migrated program is seeded by that RunConfig's seed "
                                                   "(keras.utils.set_random_seed), as the Estimator was; random ops "
                                                   "this code runs itself, outside the Estimator (data drawn with "
                                                   "tf.random, say), lose this seed: if it has any, seed them there "
                                                   "with tf.random.set_seed", call)))
                continue
            where = f"in `{fn.name.value}`" if fn is not None else "here"
            used = "" if statement else " (its value is used here)"
            inside = [why for kind, why in runs if kind == "estimator"]
            if kinds == {"estimator"}:
                errors.append(Blocked(imports.CODE, f"{text} {where} runs inside the Estimator ({'; '.join(inside)}): "
                                                    "it seeded the Estimator's graph from that point on and is not "
                                                    "converted: move the seed to RunConfig(tf_random_seed=...), "
                                                    "converted to keras.utils.set_random_seed, and delete this call"
                                                    + used, call))
                continue
            if "estimator" in kinds and "driver" in kinds:
                outside = [why for kind, why in runs if kind == "driver"]
                why = f"it runs both outside the Estimator ({'; '.join(outside)}) and inside it ({'; '.join(inside)})"
            else:
                why = "; ".join(dict.fromkeys(why for kind, why in runs if kind == "unknown"))
            name_of = fn.name.value if fn is not None else "it"
            errors.append(Blocked(imports.CODE, f"{text} {where} is not converted ({why}): if `{name_of}` runs inside "
                                                "the Estimator (an input_fn, a function the model_fn calls), it seeded "
                                                "the Estimator's graph from that point on: move the seed to "
                                                "RunConfig(tf_random_seed=...), converted to keras.utils.set_random_seed, "
                                                "and delete this call; if it runs outside the Estimator, it never "
                                                "reached its graphs: delete it" + used, call))
    return drops, errors


class _SeedReach:
    """Where a call can run, from the program's calls: ("driver", how) for code that builds and drives the Estimator,
    ("estimator", which function) for code the Estimator runs in its graphs, ("unknown", why) otherwise."""

    _DEPTH = 12

    def __init__(self, analysis):
        self.program = program = analysis.program
        self.inside: dict[int, str] = {}  # functions the Estimator runs (model_fns, input_fns, receivers) → label
        self.drivers: set[int] = set()  # functions that build an Estimator or call its train/evaluate/...
        for site in analysis.sites:
            self.inside[id(site.model_fn.node)] = "the model_fn"
            self.drivers.add(id(self._enclosing(site.call, site.file)))
            for use in site.uses:
                self.drivers.add(id(self._enclosing(use.call, use.file)))
                for args in (use.train, use.evaluate, use.predict):
                    value = args.get("input_fn")
                    fn = program.function_of(value) if value is not None else None
                    if fn is not None:
                        self.inside.setdefault(id(fn.node), "an input_fn")
            for receiver in site.receivers.values():
                self.inside.setdefault(id(receiver.fn.node), "a serving_input_receiver_fn")
        self.drivers.discard(id(None))

    def runs(self, call: cst.Call, file) -> list[tuple[str, str]]:
        return self._runs(self._enclosing(call, file), file, call, frozenset())

    @staticmethod
    def _enclosing(node, file):
        """The def or lambda whose body holds `node` (None at module level)."""
        node = file.parents.get(id(node))
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda)):
            node = file.parents.get(id(node))
        return node

    def _label(self, fn, file) -> str:
        return f"`{fn.name.value}`" if isinstance(fn, cst.FunctionDef) else \
            f"a lambda ({self._at(fn, file)})"

    def _runs(self, fn, file, via, seen: frozenset) -> list[tuple[str, str]]:
        at = self._at(via, file)
        if fn is None:
            return [("driver", f"module level {at}")]
        if id(fn) in self.inside:
            return [("estimator", f"{self.inside[id(fn)]} {self._label(fn, file)} {at}")]
        if id(fn) in self.drivers:
            return [("driver", f"{self._label(fn, file)} {at}")]
        if id(fn) in seen:
            return []  # a recursive call: the other callers decide
        if len(seen) >= self._DEPTH or isinstance(fn, cst.Lambda):
            return [("unknown", f"it is called from {self._label(fn, file)}, whose callers are not followed")]
        seen = seen | {id(fn)}
        found, hop = [], f" → {self._label(fn, file)} {at}"
        for call, where in self.program.call_sites(fn):
            found += self._runs(self._enclosing(call, where), where, call, seen)
        for ref, where in self._references(fn, file):
            run = self._app_run(ref, where)
            if run is not None:
                found += self._runs(self._enclosing(run, where), where, run, seen)
            else:
                found.append(("unknown", f"`{fn.name.value}` is passed as a value at {self._at(ref, where)}"))
        if not found and fn.name.value == "main" and self._enclosing(fn, file) is None:
            runs = [c for c in file.calls if not c.args and self._is_app_run(c, file)]
            for run in runs:  # `tf.compat.v1.app.run()` runs the module's main
                found += self._runs(self._enclosing(run, file), file, run, seen)
        found = [(kind, why + hop if kind != "unknown" else why) for kind, why in found]
        return found or [("unknown", f"`{fn.name.value}` is not called in the files rewritten")]

    def _at(self, node, where) -> str:
        """`line N` (`task.py line N` when the run has several files)."""
        from tfmigrate.engine import position_in

        short = f"{where.path.rsplit('/', 1)[-1]} " if len(self.program.files) > 1 else ""
        return f"{short}line {position_in(where.module, node)[0]}"

    def _references(self, fn, file) -> list:
        """`fn` read as a value (not called): `app.run(main)`, `run_with(set_seeds)`, across the program's files."""
        found = []
        for where in self.program.files:
            loads = {id(n) for n in where.loads.get(fn.name.value, ())}
            for name in where.names.get(fn.name.value, ()):
                if name is fn.name:
                    continue
                expr, parent = name, where.parents.get(id(name))
                if isinstance(parent, cst.Attribute) and parent.attr is name:
                    expr, parent = parent, where.parents.get(id(parent))
                elif id(name) not in loads:
                    continue
                if isinstance(parent, cst.Call) and parent.func is expr or isinstance(parent, cst.Attribute) or \
                        isinstance(parent, (cst.ImportAlias, cst.ImportFrom)):
                    continue
                target = self.program.function_of(Value(expr, where))
                if target is not None and target.node is fn:
                    found.append((expr, where))
        return found

    def _app_run(self, ref, where):
        """The `app.run(main)` / `app.run(main=main)` call `ref` is the main of, or None."""
        arg = where.parents.get(id(ref))
        call = where.parents.get(id(arg))
        if isinstance(arg, cst.Arg) and isinstance(call, cst.Call) and self._is_app_run(call, where) \
                and (arg.keyword is None and call.args[0] is arg or arg.keyword is not None
                     and arg.keyword.value == "main"):
            return call
        return None

    def _is_app_run(self, call, where) -> bool:
        name = self.program.qualified(call.func, where) or ""
        return name in ("absl.app.run", "tensorflow.app.run", "tensorflow.compat.v1.app.run")


def _star_imports(module: cst.Module) -> list[str]:
    """`from x import *` statements of a module (as written), in order."""
    found = []
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar):
                    found.append(f"from {'.' * len(small.relative)}{code(small.module) if small.module else ''} "
                                 "import *")
    return found


def _raise(errors: list, file, program, analysis=None) -> None:
    """This file's own blockers; a blocker in another file of the unit leaves this one unchanged too. A helper here
    that a model_fn of another file calls with its mode (a module holding the unit's input functions too) gets its
    own finding at its def, as in a module outside the unit, rather than the unit's TFM600 alone."""
    own = [e for e in errors if (program.file_of(e.node) or file) is file]
    if own:
        raise Blocked.many(own)
    helpers = _foreign_model_fn_helpers(file, analysis) if analysis is not None else []
    if helpers:
        raise Blocked.many(helpers)
    others = sorted({program.file_of(e.node).path for e in errors})
    raise Blocked("TFM600", f"left unchanged: migrated as one unit with {', '.join(others)}, which needs manual work"
                            + _first_blocker(errors, program))


def _first_blocker(errors: list, program) -> str:
    """`: path:line CODE message` of the unit's first blocker in another file (and how many more), so every file
    left unchanged names the construct that blocks it and where, not only the file."""
    from tfmigrate.engine import position_in

    found = [x for e in errors for x in e.errors if x.node is not None and program.file_of(x.node) is not None]
    if not found:
        return ""
    first = found[0]
    where = program.file_of(first.node)
    more = len({(x.code, x.message) for x in found}) - 1
    return (f": {where.path}:{position_in(where.module, first.node)[0]} {first.code} {first.message}"
            + (f" (and {more} more there)" if more else ""))


def _unconverted_model_fn_blockers(analysis, by_fn: dict, file, context) -> list:
    """The blockers of this file's model_fns that only an Estimator not converted uses (an unknown keyword, a warm
    start, params it cannot render): the model_fn's interpretation reads none of those, so its own blockers are
    reported with the Estimator's instead of one re-run later. A TPUEstimator's (its use_tpu decides which path of
    the model_fn runs) and canned or model_to_estimator models are left out."""
    found, seen = [], set(by_fn)
    for site in analysis._site_by_call.values():
        fn = site.model_fn
        if not site.unconverted or site.tpu is not None or not isinstance(getattr(fn, "node", None), cst.FunctionDef) \
                or site.model_fn_failed or fn.file is not file or id(fn.node) in seen:
            continue
        seen.add(id(fn.node))
        try:
            _model_plan([site], context)
        except Blocked as blocked:
            found.append(blocked)
    return found


def _unused_helper_blockers(module: cst.Module, table: ImportTable, file, program, analysis, errors: list) -> list:
    """The TF1 names with no TF2 meaning in this file's module-level functions that nothing in the run refers to
    (an `old_config()` left beside `main`): the conversion leaves those functions as written, so what the
    leftover-name pass reports in them once the file converts does not depend on its other blockers. Reported with
    them, each at its place (a user fixing the model_fn would otherwise meet these one re-run later)."""
    found = [x.node for e in errors for x in e.errors if x.node is not None]
    found += [n for s in [*analysis.sites, *analysis._site_by_call.values()] for n in
              (s.call, getattr(s.model_fn, "node", None), *(u.call for u in s.uses)) if n is not None]
    mine = [n for n in found if (program.file_of(n) or file) is file]
    unused = []
    for stmt in module.body:
        if not isinstance(stmt, cst.FunctionDef) or stmt.decorators or stmt.name.value == "main":
            continue  # (a `main` runs through `app.run()` without being named)
        if sum(len(f.names.get(stmt.name.value, ())) for f in program.files) != 1:
            continue  # named somewhere besides its def: it may run, converted with what calls it
        if _unbuilt_model_fn(stmt, TFNames(program=program, file=file), file, program, analysis):
            continue  # a model_fn: its Estimator's error (or the model_fn rule) says why nothing uses it
        if not any(file.inside(n, {id(stmt)}) or n is stmt for n in mine):
            unused.append(stmt)
    if not unused:
        return []
    kept, v1_bindings = compat_names(table)
    statements = {id(b.statement) for bs in table.bindings.values() for b in bs}
    kept_aliases = {id(b.statement) for n in kept for b in table.bindings[n] if b.kind == "alias"}
    leftover = imports.LeftoverNames(table, v1_bindings, _tf2_alias(module, table)[0], statements - kept_aliases,
                                     kept, file)
    return dead_mode_keys.without_keys([b for fn in unused for b in leftover.blockers(fn)], file,
                                       TFNames(program=program, file=file))


def _unit_files(analysis, inputs) -> dict:
    """id(file) → the (first) Estimator Site whose unit holds it (driver, model_fn, specs, input functions)."""
    out = {}
    for s in analysis.sites:
        for f in (s.file, s.model_fn.file, *(u.file for u in s.uses), *(r.file for r in s.receivers.values()),
                  *inputs[id(s)]):
            if f is not None:
                out.setdefault(id(f), s)
    return out


def _line_of(node, file) -> int:
    from tfmigrate.engine import position_in

    return position_in(file.module, node)[0]


def _unit_importer(file, analysis, program, unit: dict):
    """(Site, file) of a unit file importing `file` (its module-level code runs with that Estimator), or None."""
    files = {id(f): f for f in program.files}
    for key, site in unit.items():
        if key in files and files[key] is not file and _imports_module(files[key], file.module_name, program):
            return site, files[key]
    return None


def _unit_importers(file, analysis, program, inputs) -> list:
    """Files of a converted Estimator's unit (driver, model_fn, specs, input functions) that import `file`, or that
    `file` imports (the entry point that runs the unit's driver: `from . import model; model.train_and_evaluate()`)."""
    unit = {}
    for s in analysis.sites:
        for f in (s.file, s.model_fn.file, *(u.file for u in s.uses), *(r.file for r in s.receivers.values()),
                  *inputs[id(s)]):
            if f is not None and f is not file:
                unit[id(f)] = f
    return [f for f in unit.values()
            if _imports_module(f, file.module_name, program) or _imports_module(file, f.module_name, program)]


def _imports_module(importer, module: str | None, program) -> bool:
    """`importer` imports `module` (or a name from it), at module level or in a function; a module outside any
    package also by the namespace-package names its path gives (`from official.wide_deep import census_main`)."""
    from tfmigrate.files import namespace_names

    index = program.by_module.get(module) if module else None
    names = [module, *(namespace_names(index.path, module) if index is not None else ())]
    return bool(module) and any(
        b.kind in ("import", "from") and any(_names_module(program.absolute(b.target, importer), m) for m in names)
        for scope in [importer.top, *importer.function_scopes.values()]
        for bindings in scope.bindings.values() for b in bindings)


def _names_module(target: str, module: str) -> bool:
    """`import pkg.data` / `from pkg import data` (target pkg.data) / `from pkg.data import x` all load pkg.data."""
    return target == module or target.startswith(module + ".")


def _imports_tf_anywhere(file) -> bool:
    """`import tensorflow` inside a function, or TF reached through a star import, still counts."""
    for scope in [file.top, *file.function_scopes.values()]:
        for bindings in scope.bindings.values():
            if any(b.kind in ("import", "from") and b.target.split(".")[0] in TF_ROOTS for b in bindings):
                return True
    return bool(file.star_imports)


def _render_canned(by_fn, plans, builders, targets, file, edits, blocks=None, top=frozenset(), words=(),
                   quiet=None, done: set[str] | None = None) -> None:
    """Canned estimators' models (rules/planners/canned.py) go above the module-level statement that builds them."""
    groups: dict[int, tuple] = {}
    for key, sites in by_fn.items():
        model = sites[0].model_fn
        if canned.is_canned(sites[0]) and model.file is file:
            plan = dataclasses.replace(plans[key], until_end=driver.until_end_of_input(sites),
                                       # Keras restores model_dir before fit; the custom loop's _build before evaluate too
                                       resuming=any(driver.resumes(s) and (targets[key] != "keras" or any(
                                           u.train for u in s.uses)) for s in sites),
                                       restoring=any(u.restore for s in sites for u in s.uses))
            groups.setdefault(id(model.anchor), (model.anchor, []))[1].append((plan, builders[key], targets[key]))
    done = set() if done is None else done  # support code is generated once per file, above the first user
    if any(p.model.head == "regression" and p.model.units > 1 for _, items in groups.values() for p, _, _ in items):
        done.add(canned.LABEL_DIMENSION)  # HeadMetric, emitted once for the file, takes [batch, label_dimension] labels
    for anchor, items in sorted(groups.values(), key=lambda group: file.orders.get(id(group[0]), 0)):
        edits.insert_statements_above(anchor, canned.render(items, done, blocks if id(anchor) in top else None,
                                                            words, quiet))


def _input_files(site, program) -> list:
    """Files holding the site's input functions (or the numpy_input_fn objects it consumes): their ModeKeys and
    numpy inputs are converted with the Estimator, all or none (a canned estimator's data module has no model_fn)."""
    out = [b.scope.file for b in site.consumed]
    for use in site.uses:
        for args in (use.train, use.evaluate, use.predict):
            value = args.get("input_fn")
            if value is None:
                continue
            fn = program.function_of(value)
            if fn is not None:
                out.append(fn.file)
                inner = _lambda_callee(fn, program)
                if inner is not None:  # `lambda: inputs.input_fn(...)`: the module that builds the data too
                    out.append(inner.file)
    return [f for f in out if f is not None]


def _lambda_callee(fn, program):
    """The function a `lambda: f(...)` input_fn calls (f in this file or another module of the run), or None."""
    body = fn.node.body if isinstance(fn.node, cst.Lambda) else None
    if not isinstance(body, cst.Call):
        return None
    return program.function_of(Value(body.func, fn.file))


def _model_plan(sites: list, context):
    """(plan, target, builder name, parameter server?, notes) of the model_fn the sites share."""
    if canned.is_canned(sites[0]):
        return canned.model_plan(sites, context)
    if keras_estimator.is_keras(sites[0]):
        return keras_estimator.model_plan(sites, context)
    fn = sites[0].model_fn
    added = tuple(f for f, _ in sites[0].added_metrics)  # tf.estimator.add_metrics' metric_fn (its own model)
    if any(tuple(f for f, _ in s.added_metrics) != added for s in sites):
        raise Blocked(estimator.CODE, f"{fn.node.name.value} is used by Estimators with and without the same "
                                      "tf.estimator.add_metrics; not converted", fn.node)
    key = ("model-plan", id(fn.node), context.options, tuple(id(f) for f in added))
    cache = context.program.cache
    if key in cache:
        return cache[key]
    fn_targets = {s.target for s in sites}
    if len(fn_targets) > 1:
        raise Blocked(estimator.CODE, f"{fn.node.name.value} is driven with different targets "
                                      f"({', '.join(sorted(fn_targets))})", fn.node)
    module = fn.file.module
    table = build_import_table(module, TF_ROOTS)
    module_names = module_level_names(module, table) | _star_imported(fn, context.program)
    if sites[0].factory is not None:  # a closure: the factory's parameters and locals are visible to it
        factory_scope = fn.file.function_scopes[id(sites[0].factory[0])]
        module_names = module_names | frozenset(factory_scope.bindings) - {fn.node.name.value}
    names = TFNames(program=context.program, file=fn.file)
    if assign_step.applies(fn.node, names):  # trains by assignment: its own plan kind (rules/planners/assign_step.py)
        cache[key] = _assign_plan(sites, context, fn, names, module_names)
        return cache[key]
    tf1_kinds = _union(site.original_kinds for site in sites)
    ps = any(site.strategy.parameter_server for site in sites)
    if ps and "parameter_server_strategy" in module_names:
        raise Blocked(strategy.CODE, "`parameter_server_strategy` is taken in this module; the generated "
                                     "strategy bootstrap needs the name", fn.node)
    _refuse_foreign_network_helpers(fn, context.program)
    tpu = [site.tpu for site in sites if getattr(site, "tpu", None) is not None]
    if tpu and len(tpu) != len(sites):
        raise Blocked(estimator.CODE, f"{fn.node.name.value} is used by a TPUEstimator and by another Estimator; "
                                      "not converted", fn.node)
    def interpret(node, visible, profile="tf_keras" if ps else "keras3"):
        return model_fn.interpret(node, names, visible, strategy.tf1_partitions(tf1_kinds), profile, module,
                                  strategy.tf1_strategy(tf1_kinds), _module_functions(fn.file),
                                  _input_layer_verdict(fn, sites, names, context),
                                  frozenset().union(*(t.false_tests for t in tpu)) if tpu else None, added)

    plan = _forward_plan(sites, context, fn, names, module_names, interpret, ps or bool(tpu))
    fn_targets = {s.target for s in sites}
    if not isinstance(plan, shim.ShimPlan):  # (a shim plan keeps its helpers as written, on purpose)
        _refuse_uninlined_helpers(plan, fn, context.program)
    plan = _logged_names(plan, sites)
    if plan.partitioner is not None and ps and "VARIABLE_PARTITIONER" in module_names:
        raise Blocked(partitioners.CODE, "`VARIABLE_PARTITIONER` is taken in this module; the generated "
                                         "partitioner needs the name", fn.node)
    # the module's text: for the file being migrated, the source it was parsed from (LibCST renders it unchanged)
    source = (lambda: context.text) if module is context.module else (lambda: code_of(module))
    fn_notes = list(_strategy_notes(plan, sites, tf1_kinds, ps, source, fn.node)) + list(plan.notes)
    target = fn_targets.pop()
    if ps:  # the parameter-server loop schedules steps on the workers: not written
        fn_notes += [(model_fn.CODE, f'summary "{tag}" dropped: summaries do not change training. '
                                     f"{model_fn.SUMMARY_WHY} (the parameter-server loop does not write it)", call)
                     for tag, _, call in plan.summaries]
        fn_notes = [(c, hooks.summary_dropped("the parameter-server loop does not write summaries"), node)
                    if c == hooks.CODE and message.startswith("SummarySaverHook (") else (c, message, node)
                    for c, message, node in fn_notes]
    taken = set(module_names) | {plan.class_name}
    stem = plan.class_name[:-len("Model")] if plan.class_name.endswith("Model") else plan.class_name
    builder = free_name(f"build_{_snake(plan.class_name)}" if target == "keras" else f"{stem or 'Model'}Trainer", taken)
    cache[key] = (plan, target, builder, ps, fn_notes)
    return cache[key]


def _assign_plan(sites, context, fn, names, module_names):
    """(plan, target, builder, parameter server?, notes) of a model_fn that trains by assignment: a tf.Module and its
    trainer, which the custom-loop driver calls (what --target auto picks for it; --target keras blocks)."""
    plan = assign_step.plan(sites, fn, names, module_names, _module_functions(fn.file))
    exports = export_kinds(reading_sites(sites)[1])
    if exports - {"raw"} or (exports and not plan.export_outputs):
        raise Blocked(assign_step.CODE, "export_saved_model of a model_fn that trains by assignment is converted for "
                                        "build_raw_serving_input_receiver_fn and export_outputs of PredictOutput only",
                                        fn.node)
    if any(site.target == "keras" for site in sites):
        if context.options.target == "keras":
            raise Blocked(assign_step.CODE, "a model_fn that trains by assignment has no Model.fit form (no loss "
                                            "gradient): use --target ctl (what --target auto picks for it)", fn.node)
        for site in sites:
            site.target = "ctl"
    stem = plan.class_name[:-len("Module")] or "ModelFn"
    builder = free_name(f"{stem}Trainer", set(module_names) | {plan.class_name})
    return plan, "ctl", builder, False, list(plan.notes)


def _forward_plan(sites, context, fn, names, module_names, interpret, not_shim: bool):
    """The model plan under `--style` (rules/planners/shim.py): native Keras layers, the forward pass as written under
    TF's model-mapping shim, or (auto) native where the interpreter understands the whole forward pass, else the shim
    for the native blockers its fixtures verify."""
    style = context.options.style
    shim_plan = lambda native: shim.plan(native, fn.node, names, module_names, _module_functions(fn.file),  # noqa: E731
                                         lambda node, visible: interpret(node, visible, "tf_keras"))
    if style == "shim":
        if not_shim:
            raise Blocked(shim.CODE, "--style shim: parameter-server and TPU training are not converted under the "
                                     "model-mapping shim; use --style native", fn.node)
        plan = shim_plan(None)
        _shim_target(sites, context, fn.node)
        return plan
    try:
        return interpret(fn.node, module_names)
    except Blocked as native:
        if not_shim or not shim.applies(native, fn.node, names, _module_functions(fn.file)):  # (the shim is tried for the blockers its fixtures verify)
            raise
        try:
            plan = shim_plan(native)
            _shim_target(sites, context, fn.node)
        except Blocked as refused:  # the shim cannot make it exact either: the native blockers, and a note why not
            raise shim.refused(native, refused) from None
        if style == "native":  # the native blockers stand; say the shim would convert
            raise shim.would_convert(native) from None
        return plan


def forward_pass(site, context) -> dict | None:
    """`--explain`: how a model_fn's forward pass converts: natively (Keras layers), under the model-mapping shim
    with what the native path stopped at, or not at all (the blockers); None for canned and Keras Estimators."""
    if canned.is_canned(site) or keras_estimator.is_keras(site) or not isinstance(site.model_fn.node, cst.FunctionDef):
        return None
    try:
        plan = _model_plan([site], context)[0]
    except Blocked as blocked:
        return {"style": "blocked", "why": [f"{e.code} {e.message}" for e in blocked.errors]}
    if isinstance(plan, shim.ShimPlan):
        return {"style": "shim", "why": plan.shim_why, "helpers kept as written": sorted(plan.shim_helpers)}
    if isinstance(plan, assign_step.AssignPlan):  # no forward pass to convert: the model_fn is kept as a method
        return {"style": "assign_step", "why": "its train_op only assigns (no loss gradient): a tf.Module holding "
                                               f"{len(plan.variables) + 1} variables by TF1 name and its trainer"}
    return {"style": "native"}


def _shim_target(sites: list, context, node) -> None:
    """A shim model trains in the custom loop (its Keras is tf_keras; the fit target is generated for Keras 3):
    what --target auto picks for it, and --target keras blocks. Warm start is not generated for it."""
    warm = next((site for site in sites if site.warm_start), None)
    if warm is not None:  # warm_start_from_tf1 reads Keras 3 weight paths; not checked on the shim's names
        raise Blocked(shim.CODE, "the forward pass could run under the model-mapping shim (tf_keras), but "
                                 "warm_start_from is not converted for it yet", warm.call)
    if any(site.target == "keras" for site in sites):
        if context.options.target == "keras":
            raise Blocked(shim.CODE, "the model-mapping shim runs on tf_keras, and the Keras fit target is generated "
                                     "for Keras 3: use --target ctl (what --target auto picks for it)", node)
        for site in sites:
            site.target = "ctl"


def _logged_names(plan: model_fn.ModelPlan, sites: list) -> model_fn.ModelPlan:
    """The plan with the values the train hooks' LoggingTensorHooks name added to what the step records (its
    logged_tensors); a hook naming a tensor tfmigrate cannot supply is dropped with a note (rules/planners/hooks.py)."""
    logged = dict(plan.logged)
    notes = list(plan.notes)
    for site in sites:
        for hook_id, (named, _) in list(site.loggers.items()):
            keys = [(model_fn.logged_name_key(name, plan.named_tensors), name, node) for _, name, node in named]
            missing = next(((name, node) for key, name, node in keys if key is None), None)
            if missing is not None:  # it only logs: dropped, the note at the hook's line names the tensor
                site.loggers.pop(hook_id)
                site.dropped_loggers.add(hook_id)
                notes.append((hooks.CODE, hooks.logging_name_dropped(missing[0]),
                              site.logger_calls.get(hook_id, missing[1])))
                continue
            for key, _, _ in keys:
                logged.setdefault(*key)
    if len(logged) == len(plan.logged) and len(notes) == len(plan.notes):
        return plan
    return dataclasses.replace(plan, logged=list(logged.items()), notes=notes)


def _input_layer_verdict(fn, sites: list, names: TFNames, context):
    """`tf.compat.v1.feature_column.input_layer(features, columns)` in the model_fn: True when the program model reads
    every column, for every Estimator using this model_fn, as a numeric_column (no variables: model_fn.py converts
    the call), the list of the other columns when it reads them all as columns the canned conversion computes
    (embedding, indicator, bucketized: model_fn/_input_layer_columns.py), else the Blocked saying which column is
    not; False when the model_fn has no input_layer call.
    The columns are followed through the model_fn's own names, `params["key"]` (the Estimator's params dict at each
    site) and the program model (module constants, helpers, lists built by loops, keys known at run time)."""
    from tfmigrate.model import Value

    calls = model_fn.input_layer_calls(fn.node, names)
    if not calls:
        return False
    params_name = model_fn.params_name(fn.node)
    assigned: dict[str, list] = {}
    for stmt in fn.node.body.body:  # the model_fn's own names, assigned at its top level
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        if isinstance(small, cst.Assign):
            for t in small.targets:
                if isinstance(t.target, cst.Name):
                    assigned.setdefault(t.target.value, []).append(small.value)
    analysis = analysis_for(context)
    others = []  # columns with embeddings or one-hots
    try:
        for call in calls:
            args = model_fn.bind(call, model_fn.INPUT_LAYER_ARGS, "input_layer", variables.CODE)
            for extra in ("cols_to_vars", "cols_to_output_tensors"):
                if extra in args and not model_fn.is_literal(args[extra], None):
                    raise Blocked(variables.CODE, f"input_layer({extra}=...) is not converted", args[extra])
            if "feature_columns" not in args or "features" not in args:
                raise Blocked(variables.CODE, "input_layer needs features and feature_columns", call)
            node, seen = args["feature_columns"], set()
            while isinstance(node, cst.Name) and len(assigned.get(node.value, ())) == 1 and node.value not in seen:
                seen.add(node.value)
                node = assigned[node.value][0]
            for site in sites:
                value = Value(node, fn.file)
                if (params_name and isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name)
                        and node.value.value == params_name and len(node.slice) == 1
                        and isinstance(node.slice[0].slice, cst.Index)
                        and isinstance(node.slice[0].slice.value, cst.SimpleString)):
                    key = node.slice[0].slice.value.evaluated_value
                    value = _params_entry(site, key, analysis, node)
                reader = canned.Reader(analysis, site.call, site.file)
                for column in reader.columns(value):
                    if (column.boundaries is not None or column.vocabulary is not None or column.categorical is not None
                            or column.embedding is not None):
                        if column.categorical is not None and "vocabulary_file" in column.categorical.parts:
                            raise Blocked(variables.CODE, f"input_layer over the column '{column.name}' (over "
                                                          "categorical_column_with_vocabulary_file) is not converted "
                                                          "in a model_fn: use a vocabulary_list", call)
                        others.append(column)  # the generated TF1InputLayer reads it (model_fn/_input_layer_columns)
        embedded = next((c for c in others if c.embedding is not None), None)
        if embedded is not None and any(site.strategy.kinds != {"default"} for site in sites):
            # the words "other columns are not converted in a model_fn yet" let auto try the shim (shim._FOR)
            raise Blocked(variables.CODE, f"input_layer over the embedding column '{embedded.name}' under a "
                                          "distribution strategy: its sparse gradients across replicas are verified "
                                          "for canned estimators only; other columns are not converted in a model_fn "
                                          "yet under a strategy", calls[0])
    except Blocked as blocked:
        return blocked
    return others or True


def _params_entry(site, key: str, analysis, shown):
    """`params["key"]` in a model_fn: the value the Estimator's params dict gives it at this site."""
    from tfmigrate.model import Value

    if site.params_value is None:
        raise Blocked(variables.CODE, f"params[{key!r}]: the Estimator gets no params", shown)
    r = analysis.program.resolve(site.params_value)
    if r.ambiguous or not isinstance(r.node, cst.Dict):
        raise Blocked(variables.CODE, f"params[{key!r}]: the Estimator's params are not a dict tfmigrate can read "
                                      "(write params={...} with the columns)", shown)
    for element in r.node.elements:
        if (isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString)
                and element.key.evaluated_value == key):
            return Value(element.value, r.value.file, r.value.env)
    raise Blocked(variables.CODE, f"params[{key!r}]: not a key of the Estimator's params dict", shown)


def _module_functions(file) -> dict[str, cst.FunctionDef]:
    """The module's own top-level functions, each bound once (a name bound twice could be either)."""
    out = {}
    for name, bindings in file.top.bindings.items():
        if len(bindings) == 1 and bindings[0].kind == "def" and isinstance(bindings[0].node, cst.FunctionDef):
            out[name] = bindings[0].node
    return out


def _line(file, node) -> int:
    from tfmigrate.engine import position_in

    return position_in(file.module, node)[0]


def _refuse_foreign_network_helpers(fn, program) -> None:
    """A model_fn calling a function of another module that builds layers or variables: its statements would run
    in the Keras model's call() with their TF1 layers (new, untracked variables per call). Helpers of the model_fn's
    own module are inlined (model_fn.py); another module's are blocked, named, never passed over."""
    from tfmigrate.model import Value

    for call in model_fn.calls_in(fn.node):
        if not isinstance(call.func, (cst.Name, cst.Attribute)):  # `tower(x)`, `nets.tower(x)`
            continue
        ref = program.callee(Value(call.func, fn.file), 0)
        if ref is None or ref.file is fn.file or not isinstance(ref.node, cst.FunctionDef):
            continue
        training_op = optimizer_helpers.foreign_training_op(call, ref, program, _line)  # (BERT's create_optimizer)
        if training_op is not None:
            raise training_op
        if model_fn.builds_layers(ref, program):
            flags = _flag_arguments(call, fn.node, ref.params)
            raise Blocked(model_fn.CODE, f"{code(call.func)}() builds layers or variables in another module "
                                         f"({ref.file.path}): a network helper is converted when it is defined "
                                         "in the model_fn's own module; move it there"
                          + (f" (it is given {flags}: a helper there taking mode or the training flag is inlined "
                             "with it as Keras' training flag), or build its layers in the model_fn, passing "
                             "`training=` to the Keras layers that take it" if flags else ""), call)


def _refuse_uninlined_helpers(plan, fn, program) -> None:
    """A call left in the converted forward pass to a function of the model_fn's own module that builds layers or
    variables (called inside an expression, so not inlined): in the Keras model's call() its get_variable or TF1
    layers would make new variables on every call that the model does not track, never trained. Blocked, named."""
    defs = _module_functions(fn.file)
    for stmt in plan.call_body:
        for call in model_fn.calls_in(stmt):
            name = call.func.value if isinstance(call.func, cst.Name) else None
            if name in defs and model_fn.builds_layers(FunctionRef(defs[name], fn.file), program):
                at = next((c for c in model_fn.calls_in(fn.node)
                           if isinstance(c.func, cst.Name) and c.func.value == name), fn.node)
                raise Blocked(model_fn.CODE, f"{name}() builds layers or variables and is called inside an "
                                             "expression here, where it is not converted (in the Keras model's "
                                             "call() it would make new, untracked variables on every call); call "
                                             f"it as a statement of its own (`h = {name}(...)`), which inlines its "
                                             "layers into the model", at)


def _flag_arguments(call: cst.Call, fn: cst.FunctionDef, params: list[str]) -> str:
    """The arguments of a model_fn's `call` carrying its mode or a flag computed from it, said for a message
    ("`is_training` (computed from mode) as its parameter `training`"); "" for none."""
    carried = _mode_names(fn)
    return ", ".join(
        f"`{a.value.value}`{'' if a.value.value == 'mode' else ' (computed from mode)'} as its "
        + (f"parameter `{a.keyword.value if a.keyword else params[i]}`" if a.keyword or i < len(params)
           else f"argument {i + 1}")
        for i, a in enumerate(call.args) if isinstance(a.value, cst.Name) and a.value.value in carried and not a.star)


def _mode_names(fn: cst.FunctionDef) -> set[str]:
    """The model_fn's `mode` parameter (the Estimator passes it by name) and the names its body assigns from an
    expression reading mode (`is_training = mode == tf.estimator.ModeKeys.TRAIN`), transitively."""
    if "mode" not in {p.name.value for p in fn.params.params}:
        return set()
    names, assigns = {"mode"}, []

    class _V(Visitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            targets = [t.target.value for t in node.targets if isinstance(t.target, cst.Name)]
            if targets:
                assigns.append((targets, {n.value for n in model_fn.free_name_nodes(node.value)}))

        def visit_FunctionDef(self, node) -> bool:
            return node is fn

    fn.visit(_V())
    grown = True
    while grown:
        grown = False
        for targets, read in assigns:
            if read & names and not set(targets) <= names:
                names.update(targets)
                grown = True
    return names


def _foreign_model_fn_helpers(file, analysis) -> list[Blocked]:
    """Functions of `file` (a module in no Estimator's unit) that a model_fn of another module calls with its mode
    (or a flag computed from it), or that build layers or variables. The model_fn is blocked at that call (the
    model_fn rule); this module gets the same cause at the helper's def: what a function is follows from the
    Estimator it serves (a `def f(features, mode)` here is such a helper, not a model_fn of its own)."""
    program, out = analysis.program, []
    for name, helper in _module_functions(file).items():
        for call, where in program.call_sites(helper):
            scope, fn = where.scope_of(call), None
            while scope is not None:  # the outermost model_fn holding the call
                fn = scope.node if id(scope.node) in analysis.model_fn_defs else fn
                scope = scope.parent
            if fn is None or where is file:
                continue
            ref = analysis.model_fn_defs[id(fn)]
            what = _flag_arguments(call, fn, FunctionRef(helper, file).params)
            builds = model_fn.builds_layers(FunctionRef(helper, file), program)
            training_op = optimizer_helpers.foreign_training_op(call, FunctionRef(helper, file), program, _line)
            if not what and not builds and not training_op:
                continue
            at = f"{where.path}:{analysis.line(call, where)}"
            if training_op:
                out.append(Blocked(optimizer_helpers.CODE, f"`{name}` builds the training op of the model_fn "
                                                    f"`{fn.name.value}` ({at} calls it), which is not converted: see "
                                                    f"the finding at {at}", helper.name))
                out[-1].helper = helper
                break
            head = (f"`{name}` is a helper of the model_fn `{fn.name.value}` ({at} calls it"
                    + (f", passing it {what}" if what else "; it builds layers or variables") + "), not a model_fn; ")
            out.append(Blocked(model_fn.CODE, head + (
                "tfmigrate converts such a helper (a network helper, inlined into the Keras model) only when it is "
                f"defined in the model_fn's own module: move `{name}` into {ref.file.path} and call it there as "
                f"`y = {name}(...)`" if builds else
                "it builds no layers, and a function computing with mode or the training flag is not converted, "
                "wherever it is defined: give the flag to the model_fn's Keras layers as `training=` instead "
                f"(the finding at {at})"), helper.name))
            out[-1].helper = helper
            break
    return out




def _inlined_helpers(plans: dict, by_fn: dict, file, program, edits: Edits) -> list[Blocked]:
    """A network helper inlined into the converted model goes with its model_fn, when nothing else calls it; a
    helper still used elsewhere would keep its TF1 layers: that use blocks, named."""
    errors = []
    inside = {id(sites[0].model_fn.node) for key, sites in by_fn.items() if key in plans}
    helpers = {id(h): h for key in plans for h in getattr(plans[key], "helpers", ())  # canned plans have none
               if by_fn[key][0].model_fn.file is file}
    inside |= set(helpers)  # a helper calling another inlined helper
    for helper in helpers.values():
        binding = file.top.bindings[helper.name.value][0]
        stray = [n for n in file.loads_of(program, binding) if not file.inside(n, inside)]
        if stray:
            errors.append(Blocked(estimator.CODE, f"`{helper.name.value}` builds layers and is inlined into the "
                                                  "converted model, but is also used here, which is not converted",
                                  stray[0]))
        else:
            edits.delete(helper)
    return errors


def code_of(module: cst.Module) -> str:
    return render(module)


_KERAS = "import keras\n"
_KERAS_TF_KERAS_COMMENT = "# Keras 2: Keras 3 has no ParameterServerStrategy support (keras-team/keras#18624)"
_KERAS_TF_KERAS = f"{_KERAS_TF_KERAS_COMMENT}\nimport tf_keras as keras\n"
# a model under the model-mapping shim (rules/planners/shim.py): tf_keras, chosen before TensorFlow is imported
_SHIM_KERAS = ("import os\n\n# Keras 2 (tf_keras): the model-mapping shim and tf.compat.v1.layers are not in Keras 3\n"
               'os.environ["TF_USE_LEGACY_KERAS"] = "1"\n')
# (the file imports os already; a comment opening the parsed header would become the module's header and be lost)
_SHIM_KERAS_OS = 'os.environ["TF_USE_LEGACY_KERAS"] = "1"  # Keras 2 (tf_keras): the model-mapping shim is not in Keras 3\n'


def _shim_keras(module: cst.Module) -> str:
    """The shim's header lines; without `import os` where the file imports os (plainly) before TensorFlow."""
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], (cst.Import, cst.ImportFrom)):
            if _binds_os(stmt.body[0]):
                return _SHIM_KERAS_OS
            if "tensorflow" in _EMPTY_MODULE.code_for_node(stmt):
                break
    return _SHIM_KERAS


def _binds_os(node) -> bool:
    return isinstance(node, cst.Import) and any(
        isinstance(a.name, cst.Name) and a.name.value == "os" and a.asname is None for a in node.names)


def _union(kind_sets) -> set[str] | None:
    out: set[str] = set()
    for kinds in kind_sets:
        if kinds is None:
            return None
        out |= kinds
    return out


def _strategy_notes(plan, sites, tf1_kinds, ps: bool, source, fn: cst.FunctionDef) -> list:
    """What the strategy choice means for partitioners and for an implicit async parameter-server job (`source()`:
    the module's text, rendered only when asked)."""
    notes = []
    if plan.partitioner is not None and not ps:
        why = ("TF1 ignored it too under this strategy" if strategy.tf1_partitions(tf1_kinds) is False
               else "TF1 sharded only where variables lived (no numerical effect)")
        notes.append((partitioners.CODE, f"partitioner {plan.partitioner.tf1} dropped: TF2 shards variables only "
                                         f"under ParameterServerStrategy; {why}", fn))
    if not ps and tf1_kinds == {"default"} and (plan.partitioner is not None or "TF_CONFIG" in source()):
        notes.append((strategy.CODE, "an Estimator without train_distribute trained asynchronously on parameter "
                                     "servers when TF_CONFIG listed ps tasks; if this job did, rewrite with "
                                     "--strategy parameter-server", sites[0].call))
    return notes


def _snake(name: str) -> str:
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i:
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


_ESTIMATOR_WORDS = set(ESTIMATOR_NAMES)  # (defined in rules/__init__.py: the engine's second stage reads them)
# canned Estimator class names without an `estimator` part when spelled through tf.contrib.learn (or an unbound root)
_CANNED_WORDS = set(CANNED_NAMES)
# tf.contrib.learn's Estimator API (TF 1.x, removed in TF 2, not tf.estimator): classes a program builds
_CONTRIB_LEARN = _CANNED_WORDS | {"Estimator", "SKCompat", "Experiment", "KMeansClustering", "LogisticRegressor",
                                  "SVM", "DynamicRnnEstimator", "StateSavingRnnEstimator"}


# tf.contrib.learn's other names: what each became in tf.estimator (the user ports, then tfmigrate converts)
_CONTRIB_LEARN_PORTS = {
    # (its keys, tf.contrib.learn.ModeKeys.TRAIN/EVAL/INFER, are read as tf.estimator's: facts/contrib_learn)
    "ModeKeys": "tf.estimator.ModeKeys (its INFER is PREDICT there; tfmigrate converts the keys spelled "
                "tf.contrib.learn.ModeKeys.TRAIN/EVAL/INFER, not the class itself held in a name or imported)",
    "make_export_strategy": "an exporter (tf.estimator.LatestExporter / FinalExporter) in the EvalSpec",
    "InputFnOps": "tf.estimator.export.ServingInputReceiver",
    "learn_runner": "tf.estimator.train_and_evaluate(estimator, TrainSpec, EvalSpec) in place of learn_runner.run",
    "Experiment": "tf.estimator.train_and_evaluate with a TrainSpec and an EvalSpec",
    "MetricSpec": "eval_metric_ops of an EstimatorSpec (tf.compat.v1.metrics)",
    "RunConfig": "tf.estimator.RunConfig",
    "datasets": "tf.keras.datasets or tf.data",
    "ModelFnOps": "tf.estimator.EstimatorSpec",
}


def _contrib_learn_message(path: str) -> str | None:
    """The TFM603 message for a tf.contrib.learn name (its Estimators, ModeKeys, learn_runner, Experiment...), None
    for any other path: TF 2 has no contrib, so such a file can never run as it is."""
    parts = path.split(".") if path else []
    if parts[:2] != ["contrib", "learn"] or len(parts) < 3:
        return None
    name = parts[-1]
    if name in _CONTRIB_LEARN:
        port = (f"tf.estimator.{name} (fit(x, y) → train(input_fn), predict(x) → predict(input_fn))"
                if name in _CANNED_WORDS | {"Estimator"} else "tf.estimator")
        return (f"tf.{path} is TF 1.x's contrib.learn Estimator API (removed in TF 2; not tf.estimator), which "
                f"tfmigrate does not convert: port the program to {port}, then re-run tfmigrate")
    known = next((_CONTRIB_LEARN_PORTS[p] for p in reversed(parts[2:]) if p in _CONTRIB_LEARN_PORTS), None)
    return (f"tf.{path} is TF 1.x's contrib.learn API (removed in TF 2), which tfmigrate does not convert: "
            f"port it to {known or 'tf.estimator / tf.data'}, then re-run tfmigrate")


def _as_written(node, path: str, names: TFNames) -> str:
    """`tf.<path>`; for a tf.contrib.learn mode key (read as tf.estimator's, facts/contrib_learn) its spelling too."""
    written = names.table.resolve(node) or ""
    if ".contrib.learn." in written:
        return f"tf.contrib.{written.partition('.contrib.')[2]} (tf.{path})"
    return f"tf.{path}"


# Estimators over a head with no canned twin; DNN / Linear / DNNLinearCombined Estimators convert as the canned class
# that builds the same head (rules/planners/canned/_head_estimator.py), or block where they are built
_HEAD_ESTIMATORS = ("BoostedTreesEstimator",)


def _head_estimator(path: str | None) -> str | None:
    """What to say where a head estimator (`tf.estimator.BoostedTreesEstimator(head=...)`) is built or named, or None."""
    last = (path or "").rpartition(".")[2]
    if last not in _HEAD_ESTIMATORS or not (path or "").startswith(("estimator.", "compat.v1.estimator.",
                                                                       "tensorflow.estimator.", "tensorflow_estimator.")):
        return None
    return f"tf.estimator.{last} (an Estimator over a head) is not converted yet: write a model_fn"


def _named_blocker(path: str | None, node: cst.CSTNode) -> Blocked | None:
    """A TF name left in a file with what to do about that very name: contrib.learn, pandas_input_fn (converted
    with no Estimator: what to write instead), an Estimator over a head."""
    learn = _contrib_learn_message(path)
    if learn:
        return Blocked(driver.CODE_KIND, learn, node)
    if path == numpy_inputs.PANDAS:
        return Blocked(numpy_inputs.CODE, f"tf.{path} {numpy_inputs.PANDAS_TODO}", node)
    head = _head_estimator(path)
    return Blocked(estimator.CODE, head, node) if head else None


def _estimator_api(path: str | None) -> bool:
    if not path:
        return False
    parts = path.split(".")
    return parts[0] == "estimator" or "estimator" in parts or any(p.endswith(("Estimator", "EstimatorSpec"))
                                                                  for p in parts)


def _leftover_relevant(file, program) -> set[int]:
    """ids of the file's original nodes whose subtree holds a name `_refuse_leftover_estimator` can react to.

    A reported path's parts are the node's own names plus what its root name is bound to (an import target, made
    absolute for relative imports, or an alias followed to its root): so a name with `stimator` in it, one of
    `_ESTIMATOR_WORDS` (TFM604), or a name bound (in any scope) to a target with `stimator` in it or to an alias
    of such a name. Every other subtree is skipped without a lookup."""
    words = _ESTIMATOR_WORDS | _CANNED_WORDS
    bindings = [b for scope in {*file.scopes.values(), file.top} for bs in scope.bindings.values() for b in bs]
    roots: set[str] = set()
    changed = True
    while changed:
        changed = False
        for b in bindings:
            if b.name in roots:
                continue
            if b.kind in ("import", "from"):
                target = program.absolute(b.target, file) if program is not None else b.target
                hit = "stimator" in target or "contrib.learn" in target
            elif b.kind == "assign" and b.value is not None:
                value = b.value.func if isinstance(b.value, cst.Call) else b.value
                full = get_full_name_for_node(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
                hit = bool(full) and any("stimator" in part or part in roots for part in full.split("."))
            else:
                hit = False
            if hit:
                roots.add(b.name)
                changed = True
    relevant: set[int] = set()
    for value, nodes in file.names.items():
        if "stimator" in value or value in words or value in roots or value in ("learn", "learn_runner"):
            for node in nodes:
                key = id(node)
                while key not in relevant:
                    relevant.add(key)
                    parent = file.parents.get(key) or file.owners.get(key)
                    if parent is None:
                        break
                    key = id(parent)
    return relevant


_DRIVER_METHODS = {"train", "evaluate", "predict", "export_saved_model", "export_savedmodel",
                   "experimental_export_all_saved_models"}
_NOT_TF_ESTIMATORS = ("sklearn", "xgboost", "lightgbm", "catboost")


def _looked_up_at_run_time(callee, file, program) -> str | None:
    """The code of a `getattr(...)` / `importlib.import_module(...)` / `__import__(...)` call a called name is bound
    to (`build = getattr(importlib.import_module(path), "build_estimator")`), else None."""
    if not isinstance(callee, cst.Name):
        return None
    for b in program.lookup(callee.value, callee, file):
        value = b.value if b.kind == "assign" and not b.unpack else None
        while isinstance(value, cst.Call):
            name = get_full_name_for_node(value.func) if isinstance(value.func, (cst.Name, cst.Attribute)) else None
            if name in ("getattr", "importlib.import_module", "__import__", "import_module"):
                text = code(b.value)
                return text if len(text) <= 60 else text[:57] + "..."
            value = value.args[0].value if value.args else None
    return None


def _driven_estimator(call: cst.Call, file, program) -> str | None:
    """Why `x.train(...)` (evaluate, predict, export) drives an Estimator tfmigrate could not follow, or None: the
    receiver is a parameter named for an Estimator (`def run(estimator)`) of a function nothing in the run calls,
    or the result of a call to an estimator-named function (`build_estimator()`, `lib.get_estimator(...)`) that is
    not a def of the migrated files (those the analysis followed).
    Estimators of scikit-learn and the boosting libraries are not Estimators here."""
    from tfmigrate.model import Value

    from .planners.library_estimators import built_library_estimator, described

    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in _DRIVER_METHODS:
        return None
    receiver, method = func.value, func.attr.value

    def factory(value) -> str | None:
        callee = value.func if isinstance(value, cst.Call) else None
        full = get_full_name_for_node(callee) if isinstance(callee, (cst.Name, cst.Attribute)) else None
        if not full:
            return None
        qualified = program.qualified(callee, file) or ""
        if "stimator" not in full.lower() and "stimator" not in qualified.rpartition(".")[2].lower():
            return None  # (`from nets import make_estimator as make`: the name it was imported by says it)
        if qualified.startswith(_NOT_TF_ESTIMATORS) or _contrib_learn_message(qualified.partition(".")[2]) \
                or _head_estimator(qualified):
            return None  # not a TF Estimator, or a contrib.learn / head one reported where it is built
        # a def of the migrated files: the analysis followed it (a migrated `build_estimator` returns a Keras model)
        return None if program.callee(Value(callee, file), 0) is not None else full

    made = factory(receiver)
    if made:
        return f"`{made}(...).{method}(...)`: tfmigrate cannot follow `{made}` to the Estimator it returns"
    if not isinstance(receiver, (cst.Name, cst.Attribute)):
        return None
    full = get_full_name_for_node(receiver)
    if not full:
        return None
    root = full.split(".")[0]
    bindings = program.lookup(root, receiver, file)
    if any(b.kind in ("import", "from") and program.absolute(b.target, file).startswith(_NOT_TF_ESTIMATORS)
           for b in bindings):
        return None
    if isinstance(receiver, cst.Name):
        input_fn = any(a.keyword is not None and a.keyword.value == "input_fn" for a in call.args)
        for b in bindings:
            made = factory(b.value) if b.kind == "assign" and b.value is not None and not b.unpack else None
            if not made and input_fn and b.kind == "assign" and isinstance(b.value, cst.Call) and not b.unpack \
                    and _looked_up_at_run_time(b.value.func, file, program):
                made = get_full_name_for_node(b.value.func)  # `x.train(input_fn=...)` on what such a builder made
            library = built_library_estimator(b.value, file, program) if made else None
            if library is not None:  # `est = builder.estimator(...)` returning `adanet.Estimator(...)`: named
                return (f"`{full}.{method}(...)`: `{full}` is the result of `{made}(...)`, which returns "
                        f"{described(library, _line_of)}")
            if made:
                lookup = _looked_up_at_run_time(b.value.func, file, program)
                if lookup:  # `build = getattr(importlib.import_module(name), "build_estimator")`: no file to pass
                    return (f"`{full}.{method}(...)`: `{full}` is the result of `{made}(...)`, and `{made}` is "
                            f"looked up at run time (`{lookup}`), which tfmigrate cannot follow to an Estimator; "
                            f"import the builder by name (`from <module> import {made}`), pass its file too, and "
                            "re-run")
                return (f"`{full}.{method}(...)`: `{full}` is the result of `{made}(...)`, which tfmigrate cannot "
                        "follow to an Estimator")
    # by its name alone only a parameter (`def run(estimator): estimator.train(...)`), and not for predict, which
    # scikit-learn's estimators have too: an assigned name or an attribute holds whatever was assigned to it
    if isinstance(receiver, cst.Name) and "stimator" in full.lower() and method != "predict" and bindings \
            and all(b.kind == "param" and not program.call_sites(b.scope.node) for b in bindings):
        return (f"`{full}.{method}(...)`: `{full}` is a parameter, and no caller in the migrated files passes it "
                "an Estimator tfmigrate can follow")
    return None


def _refuse_leftover_estimator(module: cst.Module, names: TFNames, file=None, program=None,
                               drives: bool = True, analysis=None, constants: dict | None = None) -> None:
    """A file that uses an Estimator API without an Estimator we convert is reported, never passed over: a TF API
    under tf.estimator (or contrib/keras estimators), an Estimator-looking name rooted in nothing this file
    binds (TensorFlow reached through a module tfmigrate cannot see), or, in a file that imports TensorFlow
    (`drives`), an Estimator method called on a value only its name says is an Estimator (`_driven_estimator`)."""
    errors, generic, subclasses = [], [], []
    holders: dict[int, str | None] = {}  # id(generic finding) → the module-level function it is in
    model_fns: dict[int, tuple[cst.FunctionDef, list]] = {}  # model_fn-shaped defs → the generic findings inside
    relevant = _leftover_relevant(file, program) if file is not None and file.module is module else None

    class _Find(Visitor):
        def __init__(self):
            self.defs: list[cst.FunctionDef] = []

        def on_visit(self, node) -> bool:
            if relevant is not None and id(node) in file.orders and id(node) not in relevant:
                return False  # no name in this subtree can spell or reach an Estimator API
            return super().on_visit(node)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            self.defs.append(node)
            return True

        def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
            if self.defs and self.defs[-1] is node:  # (a def on_visit skipped was never entered)
                self.defs.pop()

        def _generic(self, finding) -> None:
            generic.append(finding)
            errors.append(finding)
            holders[id(finding)] = self.defs[0].name.value if self.defs else None
            for fn in self.defs:  # the outermost model_fn holds it
                if _unbuilt_model_fn(fn, names, file, program, analysis):
                    model_fns.setdefault(id(fn), (fn, []))[1].append(finding)
                    break

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            # an Estimator subclass (its __init__ passes a model_fn to super()) converts where it is built; one
            # nothing in the run builds is the one cause of every Estimator name its model_fn uses
            for base in node.bases:
                path = names.of(base.value)
                if base.keyword is None and _estimator_api(path) and path.split(".")[-1].endswith("Estimator"):
                    name = node.name.value
                    subclasses.append(Blocked(
                        estimator.CODE, f"class {name}(tf.{path}) is an Estimator that nothing in the migrated files "
                        f"builds: run tfmigrate on this file together with the files that build and drive "
                        f"{name}(...), or build it here", node.name))
            return True

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            if constants and id(node) in constants:
                return False  # a mode key written as its string (planners/mode_keys)
            path = names.of(node)
            named = _named_blocker(path, node)
            if named:
                errors.append(named)
                return False
            if _estimator_api(path):
                self._generic(Blocked(estimator.CODE, f"{_as_written(node, path, names)} is used but no "
                                                      "Estimator(model_fn=...) this file builds converts; migrate it "
                                                      "together with the files that build and drive the Estimator", node))
                return False
            unbound = _unbound_root(node, file, program) if path is None and program is not None else None
            if unbound is not None:
                errors.append(unbound)
                return False
            return True

        def visit_Name(self, node: cst.Name) -> None:
            if constants and id(node) in constants:
                return  # a name holding a mode key, which is written as its string (planners/mode_keys)
            path = names.of(node)
            named = _named_blocker(path, node)
            if named:
                errors.append(named)
            elif _estimator_api(path) and path != "estimator":
                self._generic(Blocked(estimator.CODE, f"{_as_written(node, path, names)} is used but no "
                                                      "Estimator(model_fn=...) this file builds converts", node))

        def visit_Call(self, node: cst.Call) -> bool:
            why = _driven_estimator(node, file, program) if drives and program is not None else None
            if why and why.endswith("re-run"):
                errors.append(Blocked(estimator.CODE, why, node))
            elif why:
                errors.append(Blocked(estimator.CODE, why + " (built outside the migrated files); pass the files that "
                                      "build it too, or build it in this file with tf.estimator.Estimator(model_fn=...), "
                                      "and re-run", node))
            return True

        def visit_Import(self, node) -> bool:
            return False

        def visit_ImportFrom(self, node) -> bool:
            return False

    module.visit(_Find())
    if file is not None and not any("contrib.learn" in e.message for e in errors):
        # an import of tf.contrib.learn fails on TF 2 even when nothing uses it (reported unless a use is)
        learn = [b for scope in {*file.scopes.values(), file.top} for bs in scope.bindings.values() for b in bs
                 if b.kind in ("import", "from") and b.target.startswith("tensorflow.contrib.learn")]
        if learn:
            errors.append(Blocked(driver.CODE_KIND, f"`{learn[0].target}` is imported from TF 1.x's tf.contrib.learn "
                                                    "(removed in TF 2: this import fails there), which tfmigrate does "
                                                    "not convert: port its use to tf.estimator / tf.data, then re-run "
                                                    "tfmigrate", learn[0].node))
    if subclasses:
        errors = subclasses + [e for e in errors if all(e is not g for g in generic)]
    elif model_fns:
        # a model_fn no Estimator of the run is built with: every Estimator name in it has that one cause
        inside = {id(e) for _, found in model_fns.values() for e in found}
        errors = [Blocked(estimator.CODE, direct_model_fn.called_by_hand(fn, file, names)
                          or _factory_model_fn(fn, file, program, analysis) or f"`{fn.name.value}("
                          f"{_signature(fn)})` is a model_fn no Estimator in the migrated files is built with: run "
                          "tfmigrate on this file together with the files that build and drive the Estimator", fn.name)
                  for fn, _ in model_fns.values()] + [e for e in errors if id(e) not in inside]
    if not subclasses and file is not None and program is not None:
        errors = _helper_findings(errors, generic, holders, file, program, analysis)
    if errors:
        raise Blocked.many(errors[:20])


def _factory_model_fn(fn: cst.FunctionDef, file, program, analysis) -> str | None:
    """For a model_fn a factory of the run returns (`def model_fn_builder(...): def model_fn(...): ...; return
    model_fn`, called in another file or this one): where the factory is called and, when that file is blocked, its
    first blocker (file:line), instead of "no Estimator in the migrated files is built with it". None otherwise."""
    if file is None or program is None:
        return None
    outer = file.enclosing_function(fn)
    scope = file.function_scopes.get(id(outer)) if outer is not None else None
    if scope is None or not any(isinstance(r.value, cst.Name) and r.value.value == fn.name.value
                                for r in scope.returns):
        return None
    calls = program.call_sites(outer)
    if not calls:
        return None
    from tfmigrate.engine import position_in

    call, where = calls[0]
    head = (f"`{fn.name.value}({_signature(fn)})` is the model_fn `{outer.name.value}` returns, called at "
            f"{where.path}:{position_in(where.module, call)[0]}")
    blocked = [e for e in (analysis.errors if analysis is not None else ()) if program.file_of(e.node) is where]
    if blocked:
        first = blocked[0]
        return (f"{head}: it converts with the Estimator built from that value, which is blocked there: "
                f"{where.path}:{position_in(where.module, first.node)[0]} {first.code} {first.message}")
    return (f"{head}, whose value reaches no tf.estimator Estimator tfmigrate converts (see the findings of "
            f"{where.path}): it converts with that Estimator once it does")


def _unbound_root(node: cst.Attribute, file, program) -> Blocked | None:
    """TFM604 for a dotted name with an Estimator word under a root this file binds nowhere (`x.estimator.Estimator`
    reached through a star import or code tfmigrate cannot see), else None."""
    full = get_full_name_for_node(node)
    parts = full.split(".") if full else []
    if not (len(parts) > 1 and (_ESTIMATOR_WORDS | _CANNED_WORDS) & set(parts[1:])
            and not program.lookup(parts[0], node, file) and program.star_member(parts[0], file) is None):
        return None
    stars = _star_imports(file.module)
    how = (f"`{stars[0]}` may bind it, a star import of a module outside the migrated files"
           if len(stars) == 1 else f"one of the star imports {', '.join(f'`{s}`' for s in stars)} may "
           "bind it, of modules outside the migrated files" if stars else
           "imported through code tfmigrate cannot see")
    return Blocked("TFM604", f"`{full}` looks like an Estimator API, but `{parts[0]}` is not "
                             f"bound in this file ({how}); import TensorFlow explicitly and re-run", node)


def _helper_findings(errors: list, generic: list, holders: dict, file, program, analysis=None) -> list:
    """Estimator API in functions of a file that builds no Estimator (`make_train_spec()`, `get_run_config()`):
    helpers of an Estimator built elsewhere. Each finding says so and where the run reaches it from (the Estimator
    built in the run that reaches it, the helper's caller, or nobody: planners/mode_keys.helper_message)."""
    helpers = sorted({holders[id(e)] for e in generic if holders.get(id(e))})
    module_keys = {id(e) for e in generic if not holders.get(id(e)) and "ModeKeys." in e.message.split(" is used", 1)[0]}
    if not helpers and not module_keys:
        return errors
    users = [f.path for f in program.files if f is not file and _imports_module(f, file.module_name, program)]
    sites = analysis.sites if analysis is not None else []
    unit = _unit_files(analysis, {id(s): _input_files(s, program) for s in sites}) if analysis is not None else {}
    importer = _unit_importer(file, analysis, program, unit)
    out = []
    for e in errors:
        holder = holders.get(id(e)) if any(e is g for g in generic) else None
        if holder is None and id(e) in module_keys and importer is not None:  # run when a unit file imports this one
            out.append(Blocked(e.code, mode_keys.module_message(e.message.split(" is used", 1)[0], importer,
                                                                _line_of), e.node))
            continue
        if holder is None:
            out.append(e)
            continue
        what = e.message.split(" is used but", 1)[0]
        parent = file.parent(e.node)
        if isinstance(parent, cst.Assign) and parent.value is e.node and len(parent.targets) == 1 \
                and isinstance(parent.targets[0].target, cst.Attribute) and "ModeKeys." not in what:  # (a string)
            # `self.model_cls = tf.estimator.LinearClassifier`, called later as `self.model_cls(...)`
            target = code(parent.targets[0].target)
            out.append(Blocked(e.code, f"{what} (the class) is stored in the attribute `{target}` in `{holder}`: "
                                       "tfmigrate converts an Estimator where its class is called, directly or through "
                                       f"a local name, not through an object's attribute; call {what}(...) where the "
                                       "Estimator is built", e.node))
            continue
        out.append(Blocked(e.code, mode_keys.helper_message(what, holder, file, e.node, program, sites, unit,
                                                            importer, users, _line_of), e.node))
    return out


def _unbuilt_model_fn(fn: cst.FunctionDef, names: TFNames, file, program, analysis) -> bool:
    """Whether `fn`, holding Estimator API in a file no Estimator of the run converts, is a model_fn: one an
    Estimator of the run is built with (`model_fn=`, first positional, a subclass' `super().__init__`), or, for an
    Estimator built outside the run, a def nothing in the run calls that returns an EstimatorSpec and can take
    `features` (the Estimator calls `model_fn(features=features, ...)` and raises ValueError for a model_fn
    without it). A function the run calls is a helper of its caller (`def build_layers(features, mode)`), and one
    returning a spec without `features` builds specs for a model_fn (`def spec(mode, loss)`)."""
    if analysis is not None and id(fn) in analysis.model_fn_defs:
        return True
    if program is not None and program.call_sites(fn):
        return False
    p = fn.params
    if p.star_kwarg is None and "features" not in {x.name.value for x in [*p.params, *p.kwonly_params]}:
        return False
    scope = file.function_scopes.get(id(fn)) if file is not None else None
    if scope is None:
        return False

    def spec(value) -> bool:
        if isinstance(value, cst.Name):  # `spec = tf.estimator.EstimatorSpec(...)`; `return spec`
            return any(b.kind == "assign" and not b.unpack and spec(b.value) for b in scope.bindings.get(value.value, [])
                       if not isinstance(b.value, cst.Name))
        return isinstance(value, cst.Call) and (names.of(value.func) or "").endswith("EstimatorSpec")

    return any(spec(r.value) for r in scope.returns)


def _signature(fn: cst.FunctionDef) -> str:
    """The def's parameters as written, without defaults and annotations (`features, labels, mode, params`)."""
    p = fn.params
    star = [f"*{p.star_arg.name.value}"] if isinstance(p.star_arg, cst.Param) else (["*"] if p.kwonly_params else [])
    kwargs = [f"**{p.star_kwarg.name.value}"] if p.star_kwarg is not None else []
    return ", ".join([*(x.name.value for x in [*p.posonly_params, *p.params]), *star,
                      *(x.name.value for x in p.kwonly_params), *kwargs])



def _star_tf(module: cst.Module, table: ImportTable, file, program) -> None:
    """`tf` bound only by `from model import *` of a file of the run that has `import tensorflow as tf`: recorded
    in the file's table (kind "star", the star import's line) so the leftover-name pass reads `tf.X` here as the
    program does; the TF2 header then imports `tensorflow as tf` above that line (the same module object)."""
    for stmt in module.body:
        if not (isinstance(stmt, cst.SimpleStatementLine) and any(
                isinstance(s, cst.ImportFrom) and isinstance(s.names, cst.ImportStar) for s in stmt.body)):
            continue
        for small in stmt.body:
            base = (f"{'.' * len(small.relative)}{code(small.module) if small.module else ''}"
                    if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar) else None)
            other = program.by_module.get(program.absolute(base, file)) if base is not None else None
            for name, bs in (build_import_table(other.module, TF_ROOTS).bindings.items() if other else ()):
                found = program.star_member(name, file)
                if name not in table.bindings and not file.top.bindings.get(name) and found is not None \
                        and found[1] is other and bs[-1].kind == "import" and bs[-1].target == "tensorflow":
                    table.bindings[name] = [dataclasses.replace(bs[-1], statement=stmt, kind="star")]


def _tf2_alias(module: cst.Module, table: ImportTable) -> tuple[str, bool]:
    """(name the migrated file uses for TensorFlow, whether an existing import provides it).

    The first `import tensorflow[.compat.v1] as X` (preferring `tf`) keeps its name; generated code, written with
    `tf`, is renamed to it. Without one, `import tensorflow as tf` is added, so `tf` must be free.
    """
    candidates = [n for n, bs in table.bindings.items()
                  if bs[0].kind == "import" and bs[0].target in ("tensorflow", "tensorflow.compat.v1", "tensorflow.compat.v2")]
    alias = "tf" if "tf" in candidates else (candidates[0] if candidates else "tf")
    return alias, bool(candidates)


class _Found(Exception):
    """A wanted name was found: the walk stops."""


def _names_any(module: cst.Module, words: frozenset[str], texts=(), imports: bool = True) -> bool:
    """Whether one of `words` is a Name of the module, or of the generated code kept as text (a Name: what LibCST
    parses as one, its spelling in code, never in a string or comment); `imports=False`: not counting the names
    of import statements (the names the code reads or binds otherwise).

    The texts go first, shortest first, each looked at only when a word is spelled in it (as a word) and read with
    `ast` (a C parse, ~4× LibCST's, and `_ast_names` gives the same names LibCST's Names would); the module walk
    stops at the first hit."""
    pattern = re.compile("|".join(rf"\b{re.escape(w)}\b" for w in sorted(words)))
    texts = [t for t in texts if pattern.search(t)]
    if any(_used_in_code(t, words) for t in texts):
        return True
    for text in sorted(texts, key=len):
        found = _ast_names(text, imports)
        if found is None:  # what `ast` does not read (never generated): LibCST as before
            found = _cst_names(text, imports)
        if words & found:
            return True

    class _V(Visitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value in words:
                raise _Found

        def visit_Import(self, node) -> bool:
            return imports

        def visit_ImportFrom(self, node) -> bool:
            return imports

    try:
        module.visit(_V())
    except _Found:
        return True
    return False


def _used_in_code(text: str, words: frozenset[str]) -> bool:
    """A proof, without a parse, that one of `words` is a Name of `text` outside import statements: the word followed
    by a dot (`keras.layers`) in the text with every string literal (f-strings too) and comment blanked
    (emit's scan), on a line with no `import` that continues no line. False says nothing (`_names_any` parses)."""
    found = re.compile("|".join(rf"\b{re.escape(w)}\s*\." for w in sorted(words)))
    if found.search(text) is None:
        return False
    blanked = codewords.STRING_OR_COMMENT.sub(_blank_match, text)
    for m in found.finditer(blanked):
        start = blanked.rfind("\n", 0, m.start()) + 1
        end = blanked.find("\n", m.end())
        line = blanked[start:end if end >= 0 else len(blanked)]
        if _IMPORT_WORD.search(line) is None and not (start >= 2 and blanked[start - 2] == "\\"):
            return True
    return False


def _blank_match(m: re.Match) -> str:
    return codewords.blank(m.group())


_IMPORT_WORD = re.compile(r"\bimport\b")


def _cst_names(text: str, imports: bool) -> set[str]:
    """The Names LibCST parses in `text` (a method kept as text, indented, is parsed inside a class)."""
    found: set[str] = set()

    class _V(Visitor):
        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

        def visit_Import(self, node) -> bool:
            return imports

        def visit_ImportFrom(self, node) -> bool:
            return imports

    if text.startswith(" "):  # a method kept as text (_parse_hollow): parsed inside a class again
        for stmt in cst.parse_module("class _:\n" + text).body[0].body.body:
            stmt.visit(_V())
    else:
        cst.parse_module(text).visit(_V())
    return found


def _ast_names(text: str, imports: bool) -> set[str] | None:
    """`_cst_names(text, imports)` read with `ast` (None when `ast` does not parse the text): the identifiers
    LibCST holds as Name nodes — names, attribute names, def/class/parameter/keyword names, global/nonlocal
    names, `except ... as` names, match-pattern names and, with `imports`, every dotted part of imported modules
    and names and their `as` names. (LibCST also holds True/False/None as Names: `ast` has them as constants.)
    tests/rewrite/test_names_text.py compares both on every generated text of the fixtures."""
    read = ast_read(text)
    if read is None:
        return None
    return read.uses | read.attributes | read.imported if imports else read.uses | read.attributes


def _fix_imports(module: cst.Module, table: ImportTable, tf_name: str, imported: bool, keras_import: str,
                 index=None, quiet: dict | None = None, texts=(), settled: Settled | None = None,
                 notes: list | None = None, shim_helpers: frozenset[str] = frozenset()) -> cst.Module:
    alias = tf_name if imported else None
    free = tf_name
    star = [b.kind for b in table.bindings.get(tf_name, ())] == ["star"]  # `tf` from a run module's star import
    if not imported and not star and _names_any(module, frozenset({tf_name}), texts):
        # asked before the TF2 header and the leftover names add their own `tf`: a `tf` here is the program's (a
        # variable, or TensorFlow imported inside a function): the generated code takes a free name instead
        bound = index is not None and any(scope.bindings.get(tf_name) for scope in (
            index.top, *index.function_scopes.values(), *index.class_scopes.values()))
        if not bound:  # read but bound nowhere in the file (a star import, a missing import): what it is is unknown
            raise Blocked(imports.CODE, f"`{tf_name}` is read in this file but bound nowhere in it; the generated code "
                                        f"needs it for TensorFlow (import tensorflow as {tf_name})")
        free = next((n for n in _FREE_TF if not _names_any(module, frozenset({n}), texts)), None)
        if free is None:
            raise Blocked(imports.CODE, f"`{tf_name}` and {', '.join(_FREE_TF)} already mean something else in this "
                                        "file; the generated code needs one of them for TensorFlow (rename one)")
        if notes is not None and module.body:
            notes.append((imports.CODE, f"`{tf_name}` means something else at this file's top level (or only inside "
                                        f"a function); the generated code imports TensorFlow as `{free}`",
                          module.body[0]))
    if not _names_any(module, frozenset({"keras"}), texts, imports=False):
        keras_import = ""  # only a file whose converted code reads `keras` imports it (a unit's input module may not)
    kept, v1_bindings = compat_names(table)
    rebinding: set[int] = set()
    header = None
    if alias is not None:
        header = table.bindings[alias][0].statement
        rebinding = {id(later.statement) for later in table.bindings[alias][1:]}  # `tf = tf.compat.v1` idiom
    else:
        alias = free
    # phase 1 (before any visit, so statement identity still holds): the TF2 header and the rebinding idiom
    body = []
    moved: dict[int, cst.BaseStatement] = {}
    for stmt in imports.remove_statements(module.body, rebinding):
        if header is not None and stmt is header:
            body.extend(_header(_other_imports(stmt, alias), alias, keras_import, stmt.leading_lines))
        elif header is None and _binds(stmt, table):
            body.extend(_header("", alias, keras_import, stmt.leading_lines))
            body.append(stmt.with_changes(leading_lines=[]))
            header = moved[id(stmt)] = body[-1]  # a copy: phases 2 and 3 find the binding statement by identity
        else:
            body.append(stmt)
    if header is None and (keras_import or _names_any(module, frozenset({TF}), texts)):
        # no TF import of its own (a driver training another file's Estimator: `import helpers`), but the generated
        # code reads tf / keras (NanLossCheck, ...): the header goes above the first statement after the docstring
        # and `from __future__` imports
        at = 0
        while at < len(body) and ((at == 0 and _docstring(body[at])) or _future_import(body[at])):
            at += 1
        if at < len(body):
            body[at:at + 1] = [*_header("", alias, keras_import, body[at].leading_lines),
                               body[at].with_changes(leading_lines=[])]
        else:
            body.extend(_header("", alias, keras_import, ()))
    module = module.with_changes(body=body)
    # phase 2: leftover TF1 names (binding statements are skipped, so they keep their identity)
    def now(b) -> cst.BaseStatement:  # the binding's statement in the module as phase 1 left it
        return moved.get(id(b.statement), b.statement)

    statements = {id(now(b)): now(b) for bs in table.bindings.values() for b in bs}
    kept_aliases = {id(now(b)) for n in kept for b in table.bindings[n] if b.kind == "alias"}
    leftover = imports.LeftoverNames(table, v1_bindings, alias, set(statements) - kept_aliases, kept, index, quiet,
                                     notes, shim_helpers)  # (tf_upgrade_v2's warnings on the calls it renames: notes)
    module = leftover.apply(module)
    # phase 3: drop TF import/alias statements whose every name the migration left unused
    bound_by: dict[int, set[str]] = {}
    for name, bindings in table.bindings.items():
        for b in bindings:
            bound_by.setdefault(id(now(b)), set()).add(name)
    uses = imports.name_uses(module, set(statements), leftover.boring)  # only the table's names are asked about
    if settled is not None:  # and the generated code kept as text that names them
        uses.update(settled.uses(texts))
    unused = {key for key, names_ in bound_by.items()
              if key not in rebinding and alias not in names_ and _single_statement(statements[key])
              and all(uses[n] == 0 for n in names_)}
    body = [_prune_from_import(s, uses, statements) for s in imports.remove_statements(module.body, unused)]
    module = module.with_changes(body=body)
    # the placeholder is unique, so a textual swap is exact (and also reaches generated docstrings/comments)
    return module, alias


_FREE_TF = ("tf2", "tensorflow2")  # TensorFlow's name in generated code where the file's `tf` is something else


def _docstring(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def _future_import(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.ImportFrom) and isinstance(stmt.body[0].module, cst.Name)
            and stmt.body[0].module.value == "__future__")


def _header(other: str, alias: str, keras_import: str, leading) -> list[cst.BaseStatement]:
    """The TF2 header `{other}import tensorflow as {alias}\n{keras_import}` as the statements its parse gives, the
    first with `leading` as its leading lines; built without the parser where it is the usual lines (no `other`
    imports kept from the user's line) — tests/rewrite/test_settled_text.py compares them with the parse."""
    text = f"{other}import tensorflow as {alias}\n{keras_import}"
    if keras_import in (_SHIM_KERAS, _SHIM_KERAS_OS):  # the variable is read when TensorFlow is imported
        text = f"{keras_import}{other}import tensorflow as {alias}\nimport tf_keras as keras\n"
    if other or keras_import not in ("", _KERAS, _KERAS_TF_KERAS):
        new = list(cst.parse_module(text).body)
        new[0] = new[0].with_changes(leading_lines=leading)
        return new
    out = [_import_line("tensorflow", alias, leading)]
    if keras_import == _KERAS:
        out.append(_import_line("keras", None))
    elif keras_import:
        out.append(_import_line("tf_keras", "keras", [cst.EmptyLine(comment=cst.Comment(_KERAS_TF_KERAS_COMMENT))]))
    return out


def _import_line(name: str, alias: str | None, leading=()) -> cst.SimpleStatementLine:
    """`import name[ as alias]` (a plain name) as its parse."""
    return cst.SimpleStatementLine([cst.Import([cst.ImportAlias(cst.Name(name), cst.AsName(cst.Name(alias))
                                                                if alias is not None else None)])], leading)


def _binds(stmt, table: ImportTable) -> bool:
    return any(stmt is b.statement for bs in table.bindings.values() for b in bs)


def _other_imports(stmt: cst.CSTNode, alias: str) -> str:
    """What the TF import line also did (`import numpy as np, tensorflow as tf`; `import os; import tensorflow
    as tf`), as lines to keep above the TF2 header that replaces it."""
    if not isinstance(stmt, cst.SimpleStatementLine):
        return ""
    kept = []
    for small in stmt.body:
        if isinstance(small, cst.Import):
            names = [a for a in small.names
                     if (a.asname.name.value if a.asname and isinstance(a.asname.name, cst.Name)
                         else code(a.name).split(".")[0]) != alias]
            if names:
                kept.append(code(small.with_changes(names=[n.with_changes(comma=cst.MaybeSentinel.DEFAULT)
                                                           for n in names])).strip().rstrip(";").strip())
        else:
            kept.append(code(small).strip().rstrip(";").strip())
    return "".join(f"{line}\n" for line in kept)


def _single_statement(line: cst.CSTNode) -> bool:
    return isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1


def _prune_from_import(stmt, uses, binding_statements):
    """`from tensorflow.estimator import A, B` keeps only the names still used (binding_statements: by id)."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.ImportFrom)):
        return stmt
    small = stmt.body[0]
    if isinstance(small.names, cst.ImportStar) or len(small.names) < 2:
        return stmt
    if id(stmt) not in binding_statements:
        return stmt
    kept = [a for a in small.names if uses[(a.asname.name if a.asname else a.name).value] > 0]
    if len(kept) == len(small.names):
        return stmt
    kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return stmt.with_changes(body=[small.with_changes(names=kept)])
