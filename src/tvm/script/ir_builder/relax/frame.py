"""IR-builder frames for Relax: function, dataflow block, and ``if``/``else`` branches.

A *sequence frame* (a function, or one branch of an ``if``) collects binding blocks and a
result, which become a ``SeqExpr``. Bindings go to the innermost open block: a dataflow
block frame if one is open, else the sequence frame's implicit ordinary block.

Values are normalized as the ``relax.BlockBuilder`` does it: non-leaf arguments are bound to
fresh variables first (``gv`` outside dataflow blocks, ``lv`` inside), then the value's type
is inferred by ``BlockBuilder.normalize``. Binding annotations follow Apache TVM's rules
(see :func:`_annotated_type`).
"""

from __future__ import annotations

from typing import Any

from tvm import relax
from tvm.ffi.node import set_field
from tvm.ir import GlobalVar
from tvm.relax.analysis import BaseCheckResult, struct_info_base_check
from tvm.relax.normalizer import LEAF_TYPES

from ..base import IRBuilder, IRBuilderFrame
from ..ir.frame import IRModuleFrame, def_function

__all__ = [
    "BlockFrame",
    "ElseFrame",
    "FunctionFrame",
    "IfFrame",
    "SeqFrame",
    "ThenFrame",
    "is_leaf",
]

def is_leaf(expr) -> bool:
    """Whether ``expr`` may appear as an argument in normal form (a tuple of leaves counts)."""
    if isinstance(expr, LEAF_TYPES):
        return True
    if isinstance(expr, relax.Tuple):
        return all(is_leaf(f) for f in expr.fields)
    return False


def _block_builder():
    """A ``relax.BlockBuilder`` used for type inference only (the frames keep the bindings)."""
    builder_cls = getattr(relax, "BlockBuilder", None)
    if builder_cls is None:
        raise ImportError(
            "relax.BlockBuilder is not available: the Relax IR builder needs it to infer the "
            "types of bindings"
        )
    return builder_cls()


class SeqFrame(IRBuilderFrame):
    """A frame whose content becomes a ``SeqExpr``: blocks, then a result."""

    def __init__(self):
        self.blocks: list = []
        self.pending: list = []  # bindings of the implicit ordinary block
        self.output = None
        #: Variables whose type came from an annotation (an if's result keeps it).
        self.annotated_vars: set = set()
        #: Output DataflowVars converted to Vars when their block ended (builder API use).
        self.var_remap: dict = {}

    def flush(self) -> None:
        """Close the implicit ordinary block (before a dataflow block, or at the end)."""
        if self.pending:
            self.blocks.append(relax.BindingBlock(self.pending))
            self.pending = []

    def seq_expr(self):
        """The ``SeqExpr`` of the blocks and the (leaf) output."""
        output = self.output
        if output is None:
            raise ValueError("The function or branch has no result (missing `return`?)")
        if not is_leaf(output):
            raise ValueError("The result of a function or branch must be a variable or a leaf "
                             "value (R.func_ret_value binds computed values)")
        self.flush()
        return relax.SeqExpr(self.blocks, output)


class Emitter:
    """Emits bindings into the innermost open block of the current builder."""

    @property
    def bb(self):
        """The BlockBuilder doing type inference for the current IR builder (one each, so
        nothing is kept alive after the IR builder is done)."""
        builder = IRBuilder.current()
        bb = builder.__dict__.get("_relax_block_builder")
        if bb is None:
            bb = builder.__dict__["_relax_block_builder"] = _block_builder()
        return bb

    def target(self):
        """``(sequence frame, dataflow block frame or None)`` receiving new bindings."""
        builder = IRBuilder.current()
        for frame in reversed(builder.frames):
            if isinstance(frame, BlockFrame):
                return builder.find_frame(SeqFrame), frame
            if isinstance(frame, SeqFrame):
                return frame, None
        raise ValueError("Relax bindings must be emitted inside R.function()")

    def normalize(self, value):
        """Bind non-leaf arguments first, then infer ``value``'s type."""
        remap = self._var_remap()
        if remap:
            value = _substitute(value, remap)
        value = self._to_anf(value)
        return self.bb.normalize(value)

    @staticmethod
    def _var_remap() -> dict:
        remap = {}
        for frame in IRBuilder.current().frames:
            if isinstance(frame, SeqFrame) and frame.var_remap:
                remap.update(frame.var_remap)
        return remap

    def _arg(self, value):
        if is_leaf(value):
            return value
        if isinstance(value, relax.Tuple):
            return relax.Tuple([self._arg(f) for f in value.fields])
        return self.emit(value)

    def _to_anf(self, value):
        if isinstance(value, relax.Call):
            args = tuple(self._arg(a) for a in value.args)
            if any(a is not b for a, b in zip(args, value.args)):
                value = relax.Call(value.op, args, value.attrs, value.ty_args, span=value.span)
        elif isinstance(value, relax.Tuple):
            fields = tuple(self._arg(f) for f in value.fields)
            if any(a is not b for a, b in zip(fields, value.fields)):
                value = relax.Tuple(fields, span=value.span)
        elif isinstance(value, relax.TupleGetItem) and not is_leaf(value.tuple_value):
            value = relax.TupleGetItem(self._arg(value.tuple_value), value.index)
        return value

    def emit(self, value, annotation=None, name: str = "", is_output: bool = False,
             span=None):
        """Bind ``value`` to a new variable in the innermost block and return the variable.

        In a dataflow block the variable is a ``DataflowVar`` unless ``is_output`` (the parser
        knows, from ``R.output``, which bindings leave the block).
        """
        seq, block = self.target()
        value = self.normalize(value)
        # Every binding takes a fresh automatic name, even one the script names (as in TVM,
        # so the automatic names of nested calls come out the same: ``gv``, ``gv1``...).
        auto = self._fresh_name(block)
        name = name or auto
        ty = value.ty if annotation is None else _annotated_type(value, annotation)
        if block is not None and not is_output:
            var = relax.DataflowVar(name, ty, span)
        else:
            var = relax.Var(name, ty, span)
        binding = relax.VarBinding(var, value, span)
        self._append(seq, block, binding)
        if annotation is not None:
            seq.annotated_vars.add(var)
        return var

    def emit_match_cast(self, value, ty, name: str = "", is_output: bool = False,
                        span=None):
        """Bind ``R.match_cast(value, ty)`` to a new variable and return it."""
        seq, block = self.target()
        value = self.normalize(value)
        if not is_leaf(value):
            value = self.emit(value)
        auto = self._fresh_name(block)
        name = name or auto
        if block is not None and not is_output:
            var = relax.DataflowVar(name, ty, span)
        else:
            var = relax.Var(name, ty, span)
        self._append(seq, block, relax.MatchCast(var, value, ty, span))
        return var

    @staticmethod
    def _fresh_name(block) -> str:
        """``lv``, ``lv1``, ``lv2``... in dataflow blocks, ``gv``... elsewhere, per function."""
        prefix = "lv" if block is not None else "gv"
        frame = IRBuilder.current().find_frame(FunctionFrame)
        counts = frame.name_counts if frame is not None else {}
        count = counts.get(prefix, 0)
        counts[prefix] = count + 1
        return prefix if count == 0 else f"{prefix}{count}"

    def emit_var_binding(self, var, value, span=None):
        """Bind ``value`` to the already-made variable ``var`` (a recursive local function's).

        Unlike :meth:`emit`, it takes no automatic name (TVM binds such a variable as given,
        so the following bindings' names come out as in TVM).
        """
        seq, block = self.target()
        value = self.normalize(value)
        self._append(seq, block, relax.VarBinding(var, value, span))
        return var

    def emit_binding(self, binding) -> None:
        """Add an already-built binding."""
        seq, block = self.target()
        self._append(seq, block, binding)

    @staticmethod
    def _append(seq, block, binding):
        if seq.output is not None:
            raise ValueError("No binding may follow the function's return")
        if block is not None:
            if block.closed:
                raise ValueError(
                    "R.output must be the last statement of a dataflow block; found a binding "
                    "after it"
                )
            block.bindings.append(binding)
        else:
            seq.pending.append(binding)


EMITTER = Emitter()


def _annotated_type(value, annotation):
    """The type a binding annotated with ``annotation`` gets (Apache TVM's rules).

    * A computed value (a call, an ``if``...) takes the annotation as its own type: the
      annotation may be more or less precise than the inferred type, and the
      well-formedness check rejects one that provably contradicts it.
    * A leaf value (a variable, constant, shape, tuple) keeps its type, so the annotation
      only has to be compatible with it.
    """
    if is_leaf(value):
        if struct_info_base_check(annotation, value.ty) == BaseCheckResult.FAIL_L0:
            raise ValueError(
                f"Invalid annotation. Got rhs value type: {value.ty}, given type: {annotation}"
            )
        return value.ty
    set_field(value, "ty", annotation)
    return annotation


class FunctionFrame(SeqFrame):
    """``R.function()``: parameters, attributes, return type and body of a Relax function."""

    def __init__(self, is_pure: bool | None = None, is_private: bool | None = None):
        super().__init__()
        self.name: str | None = None
        self.params: list = []
        self.ret_ty = None
        self.is_pure = True if is_pure is None else bool(is_pure)
        self.is_private = bool(is_private)
        self.attrs: dict[str, Any] = {}
        #: Source location of the definition (set by the parser).
        self.span = None
        #: Symbolic shape variables by name, shared by the signature and the body.
        self.shape_vars: dict[str, Any] = {}
        #: Names of the shape variables the body declares (``n = T.int64()``): a local
        #: function's signature string ``"n"`` refers to them.
        self.declared_shape_vars: set[str] = set()
        #: Whether the signature is being read (only there may strings name new shape vars).
        self.in_signature = False
        #: How many automatic names of each prefix (``gv``, ``lv``) were handed out.
        self.name_counts: dict[str, int] = {}
        self.result = None

    def exit_with_scope(self) -> None:
        """Build the ``relax.Function`` (normalized, so its types are filled in) and add it to
        the enclosing ``IRModuleFrame``, or make it the builder's result at top level (a local
        function is bound by its caller).

        Raises
        ------
        ValueError
            When a module function has no name (``R.func_name``).
        """
        self._run_callbacks()
        body = self.seq_expr()
        attrs = dict(self.attrs)
        if self.name is not None and not self.is_private and "global_symbol" not in attrs:
            attrs["global_symbol"] = self.name
        ret_ty = self.ret_ty
        func = relax.Function(self.params, body, ret_ty, self.is_pure, attrs, self.span)
        # Fills the body's type (erasing symbols bound inside) and the function's type.
        func = EMITTER.bb.normalize(func)
        self.result = func
        builder = IRBuilder.current()
        parent = builder.frames[-1] if builder.frames else None
        if isinstance(parent, IRModuleFrame):
            if self.name is None:
                raise ValueError("A module function needs a name: call R.func_name(...)")
            def_function(self.name, func)
        elif parent is None:
            builder.set_result(func)
        # Inside another function the caller binds the local function (see R.function).


class BlockFrame(IRBuilderFrame):
    """``R.dataflow()``: a dataflow block; ``R.output(...)`` ends it."""

    def __init__(self):
        self.bindings: list = []
        self.outputs: list = []
        self.closed = False

    def enter_with_scope(self) -> None:
        """Start a dataflow block: the function's pending bindings are closed into a block first.

        Raises
        ------
        ValueError
            Outside ``R.function()`` or inside another ``R.dataflow()``.
        """
        seq = IRBuilder.current().find_frame(SeqFrame)
        if seq is None:
            raise ValueError("R.dataflow() must be used inside R.function()")
        if IRBuilder.current().frames[-2] is not seq:
            raise ValueError("R.dataflow() blocks cannot be nested")
        seq.flush()

    def exit_with_scope(self) -> None:
        """Close the block: the variables named by ``R.output`` become ordinary ``Var`` s and the
        bindings become a ``DataflowBlock`` of the function.
        """
        self._run_callbacks()
        seq = IRBuilder.current().find_frame(SeqFrame)
        bindings = _convert_outputs(self.bindings, self.outputs, seq.var_remap)
        if bindings:
            seq.blocks.append(relax.DataflowBlock(bindings))


def _convert_outputs(bindings, outputs, remap: dict):
    """Turn output DataflowVars (emitted before ``R.output`` named them) into Vars.

    ``remap`` records the conversions, so later uses of the old variables are rewritten.
    """
    mapping = {}
    for var in outputs:
        if isinstance(var, relax.DataflowVar):
            mapping[var] = relax.Var(var.name_hint, var.ty, var.span)
    if not mapping:
        return bindings
    remap.update(mapping)
    out = []
    for binding in bindings:
        var = mapping.get(binding.var, binding.var)
        value = _substitute(binding.value, mapping)
        if isinstance(binding, relax.MatchCast):
            out.append(relax.MatchCast(var, value, binding.ty, binding.span))
        else:
            out.append(relax.VarBinding(var, value, binding.span))
    return out


def _substitute(expr, mapping):
    """``expr`` with variables replaced by ``mapping`` (types carried over unchanged)."""
    from tvm.ffi.node import Node

    if isinstance(expr, relax.Var):
        return mapping.get(expr, expr)
    if isinstance(expr, (tuple, list)):
        items = [_substitute(e, mapping) for e in expr]
        return type(expr)(items) if any(a is not b for a, b in zip(items, expr)) else expr
    if not isinstance(expr, relax.Expr) or isinstance(expr, (relax.Function, GlobalVar)):
        return expr
    changes = {}
    for name in expr._field_names:
        if name in ("ty", "span"):
            continue
        value = getattr(expr, name)
        if isinstance(value, (Node, tuple, list)):
            new = _substitute(value, mapping)
            if new is not value:
                changes[name] = new
    if not changes:
        return expr
    new = expr.replace(**changes)
    set_field(new, "ty", expr.ty)
    return new


class IfFrame(IRBuilderFrame):
    """``R.If(cond)``: holds the condition; its Then/Else frames produce the branches."""

    def __init__(self, cond):
        self.cond = cond
        self.then_branch = None
        self.else_branch = None
        self.var_name: str | None = None
        self.annotation = None
        self.var = None

    def enter_with_scope(self) -> None:
        """Check where the ``R.If`` is.

        Raises
        ------
        ValueError
            Inside a dataflow block (an ``If`` cannot be a dataflow binding).
        """
        builder = IRBuilder.current()
        if any(isinstance(f, BlockFrame) for f in builder.frames):
            raise ValueError("Cannot create an IfFrame inside a dataflow block.")

    def exit_with_scope(self) -> None:
        """Emit ``relax.If`` of the condition and both branches, bound to the frame's variable.

        Raises
        ------
        ValueError
            When the then branch or the else branch is missing.
        """
        self._run_callbacks()
        if self.then_branch is None or self.else_branch is None:
            raise ValueError("An R.If needs both a then branch and an else branch")
        cond = self.cond
        if not is_leaf(cond):
            # ``if R.greater(i, c):``: the condition is bound just before the if (TVM does
            # so once the branches are parsed, so it takes the next automatic name).
            cond = EMITTER.emit(cond)
        value = relax.If(cond, self.then_branch, self.else_branch)
        # The if's type keeps the symbolic variables its function defines (parameters, earlier
        # match_casts) and erases the others, as in TVM: tell the BlockBuilder which they are.
        bb = EMITTER.bb
        bb.begin_scope(_defining_vars())
        try:
            self.var = EMITTER.emit(value, self.annotation, self.var_name or "")
        finally:
            bb.end_scope()


def _defining_vars() -> list:
    """The innermost function's parameters and the variables of its match_casts so far."""
    frames = IRBuilder.current().frames
    start = max((i for i, f in enumerate(frames) if isinstance(f, FunctionFrame)), default=None)
    if start is None:
        return []
    found = list(frames[start].params)
    for frame in frames[start:]:
        if isinstance(frame, SeqFrame):
            groups = [b.bindings for b in frame.blocks] + [frame.pending]
        elif isinstance(frame, BlockFrame):
            groups = [frame.bindings]
        else:
            continue
        found.extend(b.var for g in groups for b in g if isinstance(b, relax.MatchCast))
    return found


class _BranchFrame(SeqFrame):
    """One branch of an ``if``: its last binding names the result."""

    suffix = ""

    def exit_with_scope(self) -> None:
        self._run_callbacks()
        if_frame = IRBuilder.current().frames[-1]
        if not isinstance(if_frame, IfFrame):
            raise ValueError("R.Then()/R.Else() must be directly inside R.If()")  # noqa: TRY004
        self.flush()
        last = self._pop_last_binding()
        name = last.var.name_hint
        if if_frame.var_name is not None and if_frame.var_name != name:
            raise ValueError(
                "The two branches of an if must end by assigning the same variable, "
                f"got {if_frame.var_name!r} and {name!r}"
            )
        if_frame.var_name = name
        if last.var in self.annotated_vars:
            if_frame.annotation = last.var.ty
        if is_leaf(last.value):
            self.output = last.value
        else:
            # Keep the computation as its own binding (``z_then``) and return that variable.
            renamed = relax.Var(f"{name}{self.suffix}", last.value.ty, last.span)
            self.blocks.append(
                relax.BindingBlock([relax.VarBinding(renamed, last.value, last.span)])
            )
            self._merge_last_block()
            self.output = renamed
        seq = relax.SeqExpr(self.blocks, self.output)
        seq = EMITTER.normalize(seq)
        self._store(if_frame, seq)

    def _pop_last_binding(self):
        if not self.blocks or not self.blocks[-1].bindings:
            raise ValueError("Each branch of an if must end by assigning its result variable")
        block = self.blocks.pop()
        bindings = list(block.bindings)
        last = bindings.pop()
        if isinstance(last, relax.MatchCast):
            raise ValueError(  # noqa: TRY004 - invalid IR, not a wrong Python type
                "The last statement of an if branch cannot be R.match_cast"
            )
        if bindings:
            self.blocks.append(type(block)(bindings))
        return last

    def _merge_last_block(self):
        # ``z_then`` belongs to the same ordinary block as the bindings before it.
        if len(self.blocks) >= 2 and type(self.blocks[-2]) is relax.BindingBlock:
            tail = self.blocks.pop()
            head = self.blocks.pop()
            self.blocks.append(relax.BindingBlock(list(head.bindings) + list(tail.bindings)))

    def _store(self, if_frame, seq):
        # Each branch frame (Then/Else) defines where its body goes.
        raise NotImplementedError(  # pragma: no cover
            f"{type(self).__name__} is abstract: a branch frame (ThenFrame/ElseFrame) defines _store")


class ThenFrame(_BranchFrame):
    """``R.Then()``: the true branch."""

    suffix = "_then"

    def _store(self, if_frame, seq):
        if_frame.then_branch = seq


class ElseFrame(_BranchFrame):
    """``R.Else()``: the false branch."""

    suffix = "_else"

    def _store(self, if_frame, seq):
        if if_frame.then_branch is None:
            raise ValueError("R.Else() must follow R.Then()")
        if_frame.else_branch = seq
