"""An Estimator chosen at run time (issue 28): `if model_type == "wide": est = LinearClassifier(...)` / `elif ...:
est = DNNClassifier(...)` / `else: est = DNNLinearCombinedClassifier(...)`, then `est.train(...)` /
`est.evaluate(...)` shared by every branch.

Each branch's Estimator is its own Site, converted where it is assigned (the `if` stays as written and picks which
model is built); a call on the name is a Use of every Site it may hold (analysis: `chosen_sites`). The call is written
once, and only when every Site converts it to the same code (`emit_chosen`): otherwise the migrated program would
drive one model as another, so it blocks naming the two texts that differ."""
from __future__ import annotations

import libcst as cst

from tfmigrate import choices
from tfmigrate.diagnostics import Blocked
from tfmigrate.edits import Edits
from tfmigrate.model import Resolved, Value, code

from ...facts.calls import computes_tensor
from ...facts.sites import Site, Use
from ...facts.estimator import CODE


def chosen_sites(analysis, r: Resolved) -> list[Site] | None:
    """The Sites a name may hold when its assignments are one if/elif/else choice (migrator/choices.py) whose every
    value is an Estimator of the run; None otherwise (the caller keeps its "can hold different values" message)."""
    if not r.ambiguous:
        returned = returned_sites(analysis, r)
        return returned or None
    chosen = choices.choice(analysis.program, list(r.ambiguous), r.node, r.value.file, r.value.env,
                            computes_tensor)
    if chosen is None:
        return None
    sites = [analysis.site_of(Value(b.value, b.scope.file)) for b in chosen[1]]
    if not sites or not all(isinstance(s, Site) for s in sites):
        return None  # a branch holding something else (None, another object): not an Estimator choice
    return list({id(s): s for s in sites}.values())


def returned_sites(analysis, r: Resolved) -> list[Site]:
    """`est = build_estimator(model_type)` where every `return` of build_estimator returns an Estimator of the run
    (`if model_type == "wide": return LinearClassifier(...)` ...): those Sites, each converted where it is returned,
    so the function returns whichever model its own code picks; [] otherwise."""
    if not isinstance(r.node, cst.Call):
        return []
    fn = analysis.program.callee(Value(r.node.func, r.value.file, r.value.env), 0)
    if fn is None or not isinstance(fn.node, cst.FunctionDef):
        return []
    returns = fn.file.function_scopes[id(fn.node)].returns
    sites = [analysis.site_of(Value(x.value, fn.file)) if x.value is not None else None for x in returns]
    if len(sites) < 2 or not all(isinstance(s, Site) for s in sites):
        return []
    return list({id(s): s for s in sites}.values())


def all_returned(analysis, fn, file) -> bool:
    """Every `return` of `fn` returns an Estimator of the run: a choice its callers' uses convert for each."""
    returns = file.function_scopes[id(fn)].returns
    return len(returns) > 1 and all(x.value is not None and isinstance(analysis.site_of(Value(x.value, file)), Site)
                                    for x in returns)


def emit_chosen(emitter, site: Site, use: Use, edits) -> bool:
    """Writes a Use shared by the Sites of a choice once (for its first Site, False for the others), after checking
    that every Site converts it to the same edits. True when `use` is such a Use."""
    sites = emitter.analysis.chosen.get(id(use.call))
    if sites is None:
        return False
    if site is not sites[0]:
        return True
    texts = []
    for other in sites:
        other_use = next(u for u in other.uses if u.call is use.call)
        scratch = Edits()
        emitter.use(other, other_use, scratch)
        texts.append((other, _texts(scratch)))
    first, first_texts = texts[0]
    for other, other_texts in texts[1:]:
        if other_texts != first_texts:
            a, b = _first_difference(first_texts, other_texts)
            line = emitter.analysis.line
            raise Blocked(CODE, f"`{code(use.receiver)}` holds the Estimator built at line {line(first.call, first.file)} "
                                f"or the one at line {line(other.call, other.file)}, whose migrated models need "
                                f"different code here: `{a}` for the first, `{b}` for the second; drive each in its "
                                "own branch", use.call)
    emitter.use(site, use, edits)
    return True


def _texts(edits: Edits) -> list[tuple[str, str]]:
    """What a use's edits write, comparable across Sites: each replacement, inserted line and wrap, in order."""
    out = [("replace", t) for t in edits.expressions.values()]
    out += [("insert", line) for lines in edits.before.values() for line in lines]
    out += [("wrap", h) for h, _ in edits.wraps.values()]
    out += [("statement", str(s)) for s in edits.statements.values()]
    return out


def _first_difference(a: list, b: list) -> tuple[str, str]:
    """The first texts that differ, each from the argument where they part (`...` marks what is left out)."""
    pairs = [(x[1], y[1]) for x, y in zip(a, b) if x != y]
    x, y = pairs[0] if pairs else (a[len(b)][1] if len(a) > len(b) else "", b[len(a)][1] if len(b) > len(a) else "")
    x, y = _flat(x), _flat(y)
    start = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    start = max(x.rfind(", ", 0, start) + 2, x.rfind("(", 0, start) + 1, 0) if start else 0
    return _short(x, start) or "nothing", _short(y, start) or "nothing"


def _flat(text: str) -> str:
    """A call written over several lines as one line: `f(a, b)`."""
    return " ".join(text.split()).replace("( ", "(").replace(", )", ")").replace(",)", ")")


def _short(text: str, start: int) -> str:
    text = ("..." if start else "") + text[start:]
    return text if len(text) <= 80 else text[:77] + "..."
