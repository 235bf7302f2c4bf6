"""TFM502 model-mapping shim, values besides the model output: a forward pass that hands more than the model output
to the rest of the model_fn (planners/shim.py).

Two kinds of value are handed out (recommender code: `loss = mean(xent(y)) + l2_reg * tf.nn.l2_loss(FM_W) + ...`,
metrics on `pred = tf.sigmoid(y)`):
- label-free terms of the loss sum that read forward values (weights made in the forward pass, activations): each
  becomes `self.add_loss(term)` at the end of the shim's call, so it joins the model's losses, which the custom
  loop adds to each example's loss before averaging over the global batch and to the evaluation loss (TF1's
  `mean + term`, 1/replicas of it per replica, as TF1 scaled the whole loss); computed in the same call, on the same
  step's variables and batch, with the same training flag.
- trailing statements of the forward pass that make no variables (`pred = tf.sigmoid(y)` at the end of a
  `with variable_scope("out"):`) move after the shim's call, computed from the model output by the same ops
  (a variable scope names ops only, not values).
What still reads more than one forward value stays blocked (shim.py's message).
"""
from __future__ import annotations

import re

import libcst as cst

from ..facts.calls import code

# the native interpreter's blockers on forward values read after the forward pass: a model_fn local the native
# model cannot see (_visible_names.py), a hand-written loss reading more than the output (_loss.py), a loss added to
# (`loss += ...`, _statements.py)
_UNSEEN = re.compile(r"uses `(\w+)`, which the converted model cannot see$")
_LOSS_READS = re.compile(r"^the hand-written loss `\w+` reads `\w+`(, `\w+`)+ of the forward pass")
_ADDED_TO = re.compile(r"^statement `(\w+) \+= .*` in \w+ is not converted$", re.DOTALL)
_SCOPES = ("variable_scope", "compat.v1.variable_scope", "name_scope", "compat.v1.name_scope")


def handed_out(message: str, fn: cst.FunctionDef, names) -> bool:
    """Whether a native blocker is a forward value read after the forward pass (a model_fn local, bound by a
    statement of its body): the shim hands such values out (loss terms, values computed from the model output)."""
    if _LOSS_READS.search(message):
        return True
    found = _UNSEEN.search(message) or _ADDED_TO.search(message)
    return found is not None and any(found.group(1) in names(stmt).bound for stmt in fn.body.body)


def _addends(node) -> list:
    """`a + b + c` → [a, b, c] (parentheses kept on each part); anything else → [node]."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add) and not node.lpar:
        return [*_addends(node.left), *_addends(node.right)]
    return [node]


def loss_terms(rest: list, forward_bound: set, tf, names) -> tuple[list, list]:
    """The rest without the label-free terms of its loss, and the statements that compute them at the end of the
    shim's call (`self.add_loss(term)`, after a named term's own statement). A loss: a name the rest binds from the
    labels (`loss = xent + l2_reg * tf.nn.l2_loss(w)`), added to later (`loss += ...`, `loss = loss + ...`). A term
    moves when it reads a forward value and neither the labels, the mode nor anything else the rest computed; a
    name bound to such a value (`reg = l2_reg * tf.nn.l2_loss(w)`) moves with its statement when the loss is all
    the rest reads it for."""
    out, terms, named = [], [], {}
    computed, losses, read_before = set(), set(), set()

    def free(part) -> bool:
        used = names(part).read
        return bool(used & forward_bound) and not used & ({tf.labels, tf.mode} | computed)

    for stmt in rest:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        target = _target(small)
        if isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.AddAssign) and target in losses \
                and target not in read_before and free(small.value):
            terms.append(small.value)  # `loss += term`: the term only (nothing read the loss without it)
            continue
        read_before |= losses & names(stmt).read
        if isinstance(small, cst.Assign) and target is not None:
            read = names(small.value).read
            if tf.labels in read or read & losses:
                parts = _addends(small.value)
                keep = [p for p in parts if not (free(p) or isinstance(p, cst.Name) and p.value in named)]
                if keep and len(keep) < len(parts):
                    terms += [p for p in parts if p not in keep]
                    value = keep[0]
                    for part in keep[1:]:
                        value = cst.BinaryOperation(value, cst.Add(), part)
                    stmt = stmt.with_changes(body=[small.with_changes(value=value)])
                losses.add(target)
            elif free(small.value):
                named[target] = stmt
        computed |= names(stmt).bound
        out.append(stmt)
    # a named term read by anything besides the loss stays where it was (and blocks as a value handed out)
    rest_read = names(cst.IndentedBlock([s for s in out if s not in named.values()] or [cst.SimpleStatementLine(
        [cst.Pass()])])).read
    moved = [named[t.value] for t in terms if isinstance(t, cst.Name) and t.value in named]
    if any(names(m).bound & rest_read for m in moved):
        return rest, []
    out = [s for s in out if s not in moved]
    return out, [*moved, *add_loss_statements(terms)]


def _target(small) -> str | None:
    """The one plain name an assignment (`x = ...`, `x += ...`) binds, else None."""
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return small.targets[0].target.value
    if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
        return small.target.value
    return None


def add_loss_statements(terms: list) -> list:
    """`self.add_loss(<term>)` for each term, as statements at the end of the shim's call."""
    stmts = [cst.parse_statement(f"self.add_loss({code(term).strip()})\n") for term in terms]
    if stmts:
        note = cst.EmptyLine(comment=cst.Comment("# the loss's terms on forward values: the model's losses, which the "
                                                 "loop adds to the loss"))
        stmts[0] = stmts[0].with_changes(leading_lines=[note])
    return stmts


def _scope_block(stmt, tf) -> bool:
    """`with variable_scope(...)` / `name_scope(...)` (every item), which names variables and ops only."""
    return isinstance(stmt, cst.With) and all(
        isinstance(item.item, cst.Call) and (tf.path(item.item) or "") in _SCOPES for item in stmt.items)


def hoist_last(forward: list, tf, makes_variables) -> tuple[list, cst.CSTNode] | None:
    """The forward pass without its last statement that makes no variables (at its end, or at the end of a trailing
    scope block, which goes when it is left empty), and that statement; None when there is none."""
    if not forward:
        return None
    last = forward[-1]
    if isinstance(last, cst.SimpleStatementLine) and not makes_variables(last):
        return forward[:-1], last
    if _scope_block(last, tf):
        body = list(last.body.body)
        if body and isinstance(body[-1], cst.SimpleStatementLine) and not makes_variables(body[-1]):
            inner = body.pop()
            kept = [last.with_changes(body=last.body.with_changes(body=body))] if body else []
            return forward[:-1] + kept, inner.with_changes(leading_lines=[])
    return None
