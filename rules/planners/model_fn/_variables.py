"""get_variable → `add_weight`, variable_scope (flattened), embedding_lookup and partitioners (TFM801/TFM811),
and the calls that create variables the Keras model would not own (blocked)."""
from __future__ import annotations

import libcst as cst

from tfmigrate.diagnostics import Blocked

from ...emit.wrap import generated
from ...facts.calls import bind, code, is_literal
from .. import partitioners, variables
from ._constants import BUILTINS, MODEL_ATTRIBUTES
from ._input_layer import INPUT_LAYER, NUMERIC_COLUMNS_INPUT
from ._names import calls_in
from ...facts.tf1_calls import NO_VARIABLES
from ._variable_makers import makes_variables


class VariablesMixin:
    """Variables, variable scopes, embedding lookups and partitioners."""

    def embedding_lookup(self, call: cst.Call) -> cst.Call:
        args = bind(call, variables.EMBEDDING_LOOKUP, "tf.nn.embedding_lookup", variables.CODE)
        table, strategy = args.get("params"), args.get("partition_strategy")
        if isinstance(table, (cst.List, cst.Tuple)):
            raise Blocked(variables.CODE, "embedding_lookup on a list of shards is not converted: build one table "
                                          "with get_variable(partitioner=...)", call)
        if strategy is not None and not is_literal(strategy, "mod", "div"):
            raise Blocked(variables.CODE, "partition_strategy must be the literal 'mod' or 'div'", strategy)
        if "params" not in args or "ids" not in args:
            raise Blocked(variables.CODE, "embedding_lookup needs params and ids", call)
        ids = code(args["ids"])
        partitioned = isinstance(table, cst.Name) and self.weights.get(table.value, False)
        # tf.compat.v1.nn.embedding_lookup defaults to "mod"; TF2's tf.nn.embedding_lookup always reads "div"
        v1 = ".compat.v1." in (self.names.table.resolve(call.func, self.locals) or "")
        if partitioned and (is_literal(strategy, "mod") or (strategy is None and v1)):
            if self.tf1_partitions is None:
                raise Blocked(partitioners.CODE, "the lookup's row order depends on whether TF1 partitioned the table, "
                                                 "which this program's strategy decides at run time", call)
            if self.tf1_partitions:
                if {"tf1_mod_rows", "VARIABLE_PARTITIONER"} & self.module_names:
                    raise Blocked(partitioners.CODE, "tf1_mod_rows/VARIABLE_PARTITIONER are taken in this module", call)
                self.mod_rows = True
                ids = f"tf1_mod_rows({ids}, {table.value}, VARIABLE_PARTITIONER)"
        kept = [code(table), ids] + [f"{k}={code(args[k])}" for k in ("max_norm", "name") if k in args]
        return cst.parse_expression(f"{generated('tf.nn.embedding_lookup')}({', '.join(kept)})")

    def check_partitioner_names(self, node: cst.CSTNode) -> None:
        bad = self.free_names(node) - self.module_names - BUILTINS
        if bad:
            raise Blocked(partitioners.CODE, f"the partitioner uses `{sorted(bad)[0]}`: TF2 builds it with the strategy, "
                                             "outside the model; use literals or module-level constants", node)

    def partitioner(self, node: cst.BaseExpression) -> partitioners.PartitionerPlan:
        if isinstance(node, cst.Name) and node.value in self.partitioner_vars:
            plan = self.partitioner_vars[node.value]
        elif isinstance(node, cst.Call):
            plan = partitioners.convert(node, self.tf, self.check_partitioner_names)
        else:
            raise Blocked(partitioners.CODE, "a partitioner must be a tf.compat.v1 partitioner call (or a name "
                                             "assigned one in model_fn)", node)
        self.partitioners.append(plan)
        return plan

    def variable_maker(self, node) -> tuple[cst.Call, str] | None:
        """A call in a forward value that creates variables the converted model would not own (tf.Variable, RNN
        cells and static/dynamic_rnn, tf.contrib, input_layer, templates): the first one, with its TF path."""
        for call in calls_in(node):
            path = self.tf(call)
            if path == INPUT_LAYER and (self.input_layers is True or isinstance(self.input_layers, list)):
                continue  # numeric columns: no variables; others: a TF1InputLayer attribute (convert_forward)
            if path and makes_variables(path):
                return call, path
        return None

    def refuse_variable_makers(self, node, report) -> None:
        for call in calls_in(node):
            if self.tf(call) == INPUT_LAYER and self.input_layers is not False:
                if isinstance(self.input_layers, Blocked):
                    raise self.input_layers
                if NUMERIC_COLUMNS_INPUT in self.module_names:
                    raise Blocked(variables.CODE, f"`{NUMERIC_COLUMNS_INPUT}` is taken in this module; the converted "
                                                  "input_layer needs the name", call)
        hit = self.variable_maker(node)
        if hit is not None:
            call, path = hit
            if path in NO_VARIABLES:
                raise Blocked(variables.CODE, f"tf.{path} is not converted natively: TF 2 has no tf.contrib (it creates "
                                              f"no variables; tf.compat.v1.{NO_VARIABLES[path]} is the same op)", call)
            if path.startswith("contrib.lookup."):  # a table resource, not a variable: say what converts instead
                raise Blocked(variables.CODE, f"tf.{path} in the model_fn builds a lookup table (no variables) that "
                                              "the converted Keras model would have to own; a table in the model_fn "
                                              "is not converted yet: map the strings to ids in the input_fn "
                                              "(dataset.map), where tfmigrate converts the table to tf.lookup", call)
            raise Blocked(variables.CODE,
                          f"tf.{path} creates variables inside the model_fn, which the converted Keras model would "
                          "not own (a new variable per call, never trained): build it from tf.compat.v1.layers / "
                          "tf.keras.layers objects or tf.compat.v1.get_variable, which tfmigrate converts", call)

    def variable_scope(self, stmt: cst.With, call: cst.Call) -> None:
        if stmt.items[0].asname is not None:
            raise Blocked(variables.CODE, "`variable_scope(...) as scope` is not converted", stmt)
        self.whole_model("variable_scope", stmt)
        name, partitioner = variables.variable_scope(call)
        outer = self.scope_partitioner
        if partitioner is not None:
            self.scope_partitioner = self.partitioner(partitioner)
        self.notes.append((variables.CODE, f"variable_scope('{name}') flattened: Keras names weights by layer", call))
        self.pending_leading = [*self.pending_leading, *stmt.leading_lines]
        self.scope_depth += 1
        tainted: set[str] = set()
        errors = self.each(stmt.body.body, tainted=tainted)
        self.scope_depth -= 1
        self.scope_partitioner = outer
        if errors:
            raise self.blocked_inside(errors, tainted)

    def get_variable(self, target: str, call: cst.Call, stmt_leading) -> None:
        """A weight of the model; its comments move to the next forward statement."""
        name, kwargs, partitioner = variables.get_variable(call, self.tf)
        plan = self.partitioner(partitioner) if partitioner is not None else self.scope_partitioner
        if target in MODEL_ATTRIBUTES or target in dict(self.layers) or target in self.weights:
            raise Blocked(variables.CODE, f"`{target}` cannot become a model attribute (name taken)", call)
        ctor = f"self.add_weight({', '.join(f'{k}={v}' for k, v in kwargs.items())})"
        self.check_names(ctor, {self.params, "keras", "self"}, "get_variable's arguments", call)
        self.layers.append((target, ctor))
        self.weights[target] = plan is not None
        self.pending_leading = [*self.pending_leading, *stmt_leading]
