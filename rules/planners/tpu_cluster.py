"""TFM605, tpu.RunConfig's remote targets off TPU: `master=` / `evaluation_master=` / `cluster=` of a TPUEstimator
whose use_tpu is False (see rules/planners/tpu.py).

TF 2.15's tpu.RunConfig took the session target from `master` (else from `cluster.master()`) and the cluster spec
from `cluster`; the Estimator ran every session there, TPU or not. Off TPU the real programs (BERT, ALBERT,
ELECTRA, the tensorflow/tpu models) pass values that leave the session local, and these are dropped with a note:
- master / evaluation_master: None or "", or a string flag of the program defined once with default None or ""
  (`flags.DEFINE_string("master", None, ...)`); for a flag the migrated program raises a ValueError when it is set
  (TF1 then ran on that remote target), rather than silently training in this process;
- cluster: None, or a name assigned None and, under `if <use_tpu> [and ...]:` (no else; the same use_tpu flag or
  literal False the TPUEstimator gets, so the test is False), a `TPUClusterResolver(...)`: cluster was None. That
  `if` and the `= None` go (the migrated program raises before them if use_tpu is set).
Anything else (a resolver built unconditionally, a master that may be set, a resolver read elsewhere) blocks:
TF1 then ran on the remote target, which the migrated program does not. On the TPU path the resolver is the
TPUStrategy's (rules/planners/tpu_strategy.py): the dropped one is built again in the TPU branch.
"""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked
from tfmigrate.model import Value, code

from ..facts.calls import is_literal

CODE = "TFM605"
_STRING_FLAGS = ("DEFINE_string",)


def master_off(analysis, key: str, value: Value, tpu) -> None:
    """`master=` / `evaluation_master=`: unset (None, "", or a string flag unset by default) or blocked."""
    node = value.node
    if not tpu.false_tests:  # use_tpu not provably False: the TPUEstimator is blocked for that, its TPU run is moot
        return
    if is_literal(node, None) or (isinstance(node, cst.SimpleString) and node.evaluated_value == ""):
        return
    r = analysis.program.resolve(value)
    flag = r.node if isinstance(r.node, cst.Attribute) and not r.ambiguous else node
    if isinstance(flag, cst.Attribute):
        defaults = _string_flag_defaults(analysis, flag.attr.value)
        if defaults == ["unset"]:
            if not any(code(v.node) == code(flag) for v in tpu.remote):
                tpu.remote.append(Value(flag, r.value.file, r.value.env) if flag is r.node else value)
            analysis.notes.append((CODE, f"tpu.RunConfig({key}={code(flag)}) dropped: the flag is unset by default "
                                         "(a local session); the migrated program raises if it is set", node))
            return
    raise Blocked(CODE, f"tpu.RunConfig({key}={code(node)[:40]}) is not converted: TF1 ran the Estimator's sessions "
                        "on that remote target; pass None, or a string flag of this program defaulting to None or "
                        "\"\" (the migrated program trains in its own process and raises if the flag is set)", node)


def cluster_off(analysis, value: Value, tpu, trail: list) -> None:
    """`cluster=`: None when use_tpu is False (the resolver built only under `if <use_tpu> ...:`), or blocked."""
    node = value.node
    if not tpu.false_tests or is_literal(node, None):  # (use_tpu not provably False: blocked for that)
        return
    if tpu.path == "only":  # TF1 always ran on this cluster: the TPUStrategy's resolver (tpu_strategy.py)
        tpu.resolver = value
        return
    fix = ("build the TPUClusterResolver only under `if <use_tpu flag> ...:` and leave the name None otherwise "
           "(the BERT shape), or pass cluster=None")
    if not isinstance(node, cst.Name):
        raise Blocked(CODE, f"tpu.RunConfig(cluster={code(node)[:40]}) is not converted: TF1 ran the Estimator's "
                            f"sessions on that cluster's master even with use_tpu=False; {fix}", node)
    file = value.file
    bindings = analysis.program.lookup(node.value, node, file)
    nones, dead = [], []
    for b in bindings:
        if b.kind != "assign" or b.unpack or b.value is None:
            raise Blocked(CODE, f"cluster=`{node.value}`: bound at line {analysis.line(b.statement, b.scope.file)} "
                                f"in a way tfmigrate does not follow; {fix}", node)
        if is_literal(b.value, None):
            nones.append(b)
            continue
        arm = _dead_arm(analysis, b, tpu)
        if arm is None:
            raise Blocked(CODE, f"tpu.RunConfig(cluster={node.value}): `{node.value}` is "
                                f"`{code(b.value)[:50]}` at line {analysis.line(b.statement, b.scope.file)}, not only "
                                "under an `if` on the TPUEstimator's use_tpu, so with use_tpu False TF1 ran the "
                                "Estimator's sessions on that cluster; " + fix, b.statement)
        dead.append((arm, b.scope.file))
    for b in bindings:
        other = [n for n in b.scope.file.loads_of(analysis.program, b) if n is not node]
        if other:
            raise Blocked(CODE, f"`{node.value}` (the TPUClusterResolver) is also read at line "
                                f"{analysis.line(other[0], b.scope.file)}: tfmigrate drops it only when tpu.RunConfig's "
                                "cluster= is its one use", other[0])
    trail.extend(nones)  # `resolver = None` goes once RunConfig does
    if tpu.path == "runtime" and len(dead) == 1:  # the TPU branch builds it as the program did
        b = next(b for b in bindings if not is_literal(b.value, None))
        tpu.resolver = Value(b.value, b.scope.file)
    tpu.dead.extend(d for d in dead if all(d[0] is not x for x, _ in tpu.dead))
    analysis.notes.append((CODE, f"tpu.RunConfig(cluster={node.value}) dropped: with use_tpu False the "
                                 "TPUClusterResolver was never built (cluster=None, a local session)"
                                 + ("; the TPU branch builds it for TPUStrategy" if tpu.resolver is not None else ""),
                           node))


def _dead_arm(analysis, b, tpu):
    """The `if` whose body is only this TPUClusterResolver assignment and whose test is False for use_tpu=False."""
    if not (isinstance(b.value, cst.Call) and (analysis.tf(b.value, b.scope.file) or "").endswith(
            "cluster_resolver.TPUClusterResolver")):
        return None
    file = b.scope.file
    block = file.parent(b.statement)
    branch = file.parent(block) if isinstance(block, cst.IndentedBlock) else None
    if not isinstance(branch, cst.If) or branch.orelse is not None or len(block.body) != 1:
        return None
    return branch if _false(branch.test, tpu.false_tests) else None


def _false(test, tests) -> bool:
    """`test` is False when use_tpu is: the use_tpu flag itself (texts `tests`), False, or `a and b` with either."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _false(test.left, tests) or _false(test.right, tests)
    return is_literal(test, False) or code(test.with_changes(lpar=[], rpar=[])).strip() in tests


def _string_flag_defaults(analysis, name: str) -> list:
    """The defaults of every string flag `name` the program defines: "unset" for None or "", else "set"."""
    found, counts = [], []  # counts: the file (id) of each definition
    for file in analysis.program.files:
        for call in file.calls:
            func = call.func
            attr = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
            args = [a for a in call.args if a.keyword is None]
            kw = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
            first = args[0].value if args else kw.get("name")
            if attr not in _STRING_FLAGS or not isinstance(first, cst.SimpleString) or first.evaluated_value != name:
                continue
            default = args[1].value if len(args) > 1 else kw.get("default")
            unset = default is not None and (is_literal(default, None) or (
                isinstance(default, cst.SimpleString) and default.evaluated_value == ""))
            counts.append(id(file))
            found.append("unset" if unset else "set")
    # entry scripts of one unit (run_classifier.py, run_race.py) each define it once, each in its own process:
    # one definition when all agree
    return found[:1] if len(set(counts)) == len(counts) and len(set(found)) == 1 else found
