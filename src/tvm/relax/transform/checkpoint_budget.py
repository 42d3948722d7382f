"""``CheckpointToBudget``: place checkpoint markers so the backward pass fits a memory budget.

A pytvm extension (Apache TVM 0.27 has no such pass: its user places
``R.grad.start_checkpoint``/``R.grad.end_checkpoint`` by hand). See "Checkpointing to a memory
budget" in ``docs/arch/autodiff.md``.

The function's bindings, in order, are split into runs that stay as they are and *segments*
that the backward pass recomputes. A dynamic program over the binding positions keeps, for
each prefix, the Pareto front of (kept bytes, recomputed FLOPs). The placement chosen is the
one of the final front with the fewest recomputed FLOPs whose kept bytes, measured exactly by
:class:`~tvm.relax.analysis.kept_bytes.KeptModel` (the F.4 rule of the Gradient pass itself),
fit the budget.

Cost model, per segment ``[p, q)`` of bindings:

* *recomputed*: the segment's bindings the backward pass re-emits as ``<v>_cp``: those a
  gradient rule reads, and their inputs inside the segment, transitively. Each costs its FLOPs:
  ``2*M*N*K`` for ``matmul``, ``2 * output elements * kernel elements per output channel`` for
  a convolution, and the largest element count among its output and inputs for any other op
  (tuples, projections and aliases are free).
* *kept*: the values a recomputation starts from (the segment's inputs; the pass marks them
  with ``start_checkpoint``), plus in-segment values computed from no variable at all (the F.4
  rule keeps those).

A binding outside every segment is kept when a gradient rule reads it. Parameters are never
counted. Each partial placement carries its kept values as a bit mask, so a value kept for two
reasons (a rule reads it, a segment starts from it) counts once; placements are compared only
with those that keep the same values still read further on. The model still overestimates in
one corner (a segment value that a later segment starts from is kept, yet its recomputation
is counted), so it ranks placements, and the kept bytes of each candidate are then measured
exactly, in increasing order of recomputation. A function that already fits is left as is.
"""

from __future__ import annotations

import math
import operator
import re

from ...ir.op import Op
from ...ir.transform import module_pass
from ..analysis.kept_bytes import KeptModel, flat_bindings, is_single_dataflow, static_nbytes
from ..block_builder import BlockBuilder
from ..expr import (
    BindingBlock,
    Call,
    DataflowBlock,
    DataflowVar,
    Function,
    If,
    SeqExpr,
    Var,
    VarBinding,
)
from ..op.grad import end_checkpoint, start_checkpoint
from ..ty import TensorType, TupleType
from .convert_to_dataflow import convert_to_dataflow
from .gradient.checkpoint import substitute, used_vars_of
from .to_non_dataflow import without_dataflow

__all__ = ["CheckpointToBudget", "parse_memory_size"]

_MARKERS = ("relax.grad.start_checkpoint", "relax.grad.end_checkpoint")
_UNITS = {"": 1, "B": 1, "KB": 1024, "KIB": 1024, "MB": 1024**2, "MIB": 1024**2,
          "GB": 1024**3, "GIB": 1024**3}  # fmt: skip
_FRONT_LIMIT = 2000  # Pareto entries kept per position (thinned evenly beyond that)


def parse_memory_size(text) -> int:
    """Bytes from ``"200KB"``, ``"1.5MB"``, ``"4096"`` (units B, KB, MB, GB; 1 KB = 1024 B)."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([A-Za-z]*)\s*", str(text))
    unit = match.group(2).upper() if match else None
    if match is None or unit not in _UNITS:
        raise ValueError(
            f"cannot read the memory size {text!r}: write a number with an optional unit "
            "B, KB, MB or GB (1 KB = 1024 bytes), e.g. 200KB"
        )
    return int(float(match.group(1)) * _UNITS[unit])


def _elements(ty) -> int:
    if isinstance(ty, TupleType):
        return sum(_elements(field) for field in ty.fields)
    if isinstance(ty, TensorType):
        values = getattr(getattr(ty, "shape", None), "values", None) or ()
        return math.prod(int(d) for d in values)
    return 0


def _flops(binding) -> int:
    """Estimated FLOPs to recompute one binding (see the module docstring)."""
    value = binding.value
    if not isinstance(value, Call) or not isinstance(value.op, Op):
        return 0  # tuple, projection, alias, constant: no arithmetic
    out = _elements(binding.var.ty)
    args = [arg.ty for arg in value.args if isinstance(getattr(arg, "ty", None), TensorType)]
    name = value.op.name
    if name == "relax.matmul" and args:
        k = int(args[0].shape.values[-1]) if args[0].ndim >= 1 else 1
        return 2 * out * k
    if name.startswith("relax.nn.conv") and len(args) >= 2:
        weight = [int(d) for d in args[1].shape.values]
        layout = str(getattr(value.attrs, "kernel_layout", "") or "")
        # Transposed convolutions name the output channels after the input ones ("IOHW").
        o_axis = layout.index("O") if "O" in layout else 0
        return 2 * out * math.prod(weight) // max(weight[o_axis], 1)
    return max([out, *(_elements(ty) for ty in args)])


class _Chain:
    """The per-binding facts the dynamic program needs, as bit masks over binding positions."""

    def __init__(self, bindings, reads, segmentable):
        position = {b.var: i for i, b in enumerate(bindings)}
        #: Positions each binding reads (-1 stands for a parameter).
        self.used = [[position.get(v, -1) for v in used_vars_of(b.value)] for b in bindings]
        self.nbytes = [static_nbytes(b.var.ty, b.var.name_hint) for b in bindings]
        self.flops = [_flops(b) for b in bindings]
        self.read = {position[v] for v in reads}
        self.segmentable = segmentable
        n = len(bindings)
        # live[p]: bindings before p that a binding at or after p reads. Only these bits of a
        # kept mask can change the cost of what follows p.
        last_use = [-1] * n
        for i, used in enumerate(self.used):
            for j in used:
                if j >= 0:
                    last_use[j] = max(last_use[j], i)
        self.live = [sum(1 << j for j in range(p) if last_use[j] >= p) for p in range(n + 1)]

    def bytes_of(self, mask: int) -> int:
        total = 0
        while mask:
            low = mask & -mask
            total += self.nbytes[low.bit_length() - 1]
            mask ^= low
        return total

    def segments_from(self, p):
        """``(q, kept_mask, flops)`` for each valid segment ``[p, q)``."""
        constant = {}  # in-segment bindings the F.4 rule keeps: computed from no variable
        seen, kept, total_flops = set(), 0, 0
        for q in range(p + 1, len(self.used) + 1):
            i = q - 1
            if not self.segmentable[i]:
                return
            # Parameters are read through start_checkpoint when needed: not constant.
            constant[i] = all(j >= p and constant[j] for j in self.used[i])
            if i in self.read:
                # The new binding's closure only reaches earlier bindings: extend in place.
                stack = [i]
                while stack:
                    j = stack.pop()
                    if j < 0 or j in seen:
                        continue
                    seen.add(j)
                    if j < p or constant[j]:
                        kept |= 1 << j  # a segment input (start_checkpoint) or a constant
                    else:
                        total_flops += self.flops[j]
                        stack.extend(self.used[j])
            yield q, kept, total_flops


_KEY = operator.itemgetter(0, 1, 2)  # kept bytes, flops, bindings in segments


def _prune(entries, live):
    """The Pareto front of (kept, flops) per value of the live bits of the kept mask.

    Ties go to the placement with the fewest bindings in segments: a segment that recomputes
    nothing (e.g. a matmul whose output no rule reads) is noise.
    """
    groups = {}
    for entry in entries:
        groups.setdefault(entry[3] & live, []).append(entry)
    front = []
    for group in groups.values():
        group.sort(key=_KEY)
        best = None
        for entry in group:
            if best is None or entry[1] < best:
                front.append(entry)
                best = entry[1]
    if len(front) > _FRONT_LIMIT:
        front.sort(key=_KEY)
        step = len(front) / _FRONT_LIMIT
        front = [front[int(k * step)] for k in range(_FRONT_LIMIT)] + [front[-1]]
    return front


def _candidates(bindings, reads, segmentable):
    """Segment placements on the final Pareto front, fewest recomputed FLOPs first.

    An entry is ``(kept bytes, flops, bindings in segments, kept mask, segments)``; the
    segments are a linked list ``(p, q, rest)`` or None. The mask makes a value kept for two
    reasons (a rule reads it and a segment starts from it) count once.
    """
    chain = _Chain(bindings, reads, segmentable)
    n = len(bindings)
    segments = [list(chain.segments_from(p)) for p in range(n)]
    fronts = [[] for _ in range(n + 1)]
    fronts[0] = [(0, 0, 0, 0, None)]
    for p in range(n):
        fronts[p] = _prune(fronts[p], chain.live[p])
        outside = (1 << p) if p in chain.read else 0
        for kept, flops, length, mask, segs in fronts[p]:
            added = chain.bytes_of(outside & ~mask)
            fronts[p + 1].append((kept + added, flops, length, mask | outside, segs))
            for q, seg_mask, seg_flops in segments[p]:
                added = chain.bytes_of(seg_mask & ~mask)
                entry = (kept + added, flops + seg_flops, length + q - p, mask | seg_mask,
                         (p, q, segs))  # fmt: skip
                fronts[q].append(entry)
    final = sorted(_prune(fronts[n], 0), key=lambda e: (e[1], e[0], e[2]))
    for entry in final:
        placed, segs = [], entry[4]
        while segs is not None:
            p, q, segs = segs
            placed.append((p, q))
        yield sorted(placed)


def _marker(bb, make, var, name, dataflow=True):
    new_var = (DataflowVar if dataflow else Var)(name, var.ty)
    return VarBinding(new_var, bb.normalize(make(var)))


def _segment_inputs(segment, params) -> list:
    """The outside variables a segment reads through ``start_checkpoint``, in first-use order.

    Every bound variable from before the segment is one. A parameter is one only when a
    binding would otherwise read nothing but parameters and in-segment constants: the F.4 rule
    would keep that binding instead of recomputing it.
    """
    inside = {b.var for b in segment}
    kept_inside = set()  # in-segment bindings computed from no variable: F.4 keeps them
    wrapped = []
    for binding in segment:
        reads = used_vars_of(binding.value)
        for var in reads:
            if var not in inside and var not in params and var not in wrapped:
                wrapped.append(var)
        if any(v in wrapped or (v in inside and v not in kept_inside) for v in reads):
            continue  # recomputed already
        param = next((v for v in reads if v in params), None)
        if param is None:
            kept_inside.add(binding.var)
        else:
            wrapped.append(param)  # one recomputed input is enough to recompute the binding
    order = {}
    for binding in segment:
        for var in used_vars_of(binding.value):
            order.setdefault(var, len(order))
    return sorted(wrapped, key=order.__getitem__)


def place_markers(func, segments):
    """``func`` with each segment ``[p, q)`` of its bindings wrapped in checkpoint markers.

    Every variable a segment reads from outside (parameters only where needed, see
    :func:`_segment_inputs`) is bound to ``<v>_scp = start_checkpoint(v)`` before the segment; every segment variable read later is
    bound to ``<v>_ecp = end_checkpoint(v)`` after it, and later bindings read that instead.
    """
    # A function with control flow or several blocks is given without dataflow blocks
    # (``without_dataflow``); the markers then go into its one binding block.
    dataflow = is_single_dataflow(func)
    bindings = flat_bindings(func)
    starts = dict(segments)
    later_uses = {}  # var -> index of the last binding reading it
    for i, binding in enumerate(bindings):
        for var in used_vars_of(binding.value):
            later_uses[var] = i
    params = set(func.params)
    bb = BlockBuilder()
    remap, new = {}, []
    i = 0
    while i < len(bindings):
        q = starts.get(i)
        if q is None:
            binding = bindings[i]
            new.append(binding.replace(value=substitute(binding.value, remap)))
            i += 1
            continue
        wrapped = _segment_inputs(bindings[i:q], params)
        inner = {}
        for var in wrapped:
            source = remap.get(var, var)
            scp = _marker(bb, start_checkpoint, source, f"{source.name_hint}_scp", dataflow)
            new.append(scp)
            inner[var] = scp.var
        new.extend(b.replace(value=substitute(b.value, inner)) for b in bindings[i:q])
        for binding in bindings[i:q]:
            if later_uses.get(binding.var, -1) >= q:
                ecp = _marker(
                    bb, end_checkpoint, binding.var, f"{binding.var.name_hint}_ecp", dataflow
                )
                new.append(ecp)
                remap[binding.var] = ecp.var
        i = q
    body = SeqExpr([DataflowBlock(new) if dataflow else BindingBlock(new)], func.body.body)
    return bb.normalize(func.replace(body=body))  # gives the new body its type


def _fmt(nbytes):
    return f"{nbytes} bytes ({nbytes / 1024:.1f} KB)" if nbytes >= 1024 else f"{nbytes} bytes"


def checkpoint_to_budget(func, budget_bytes: int, target_index: int = 0, name: str = "main"):
    """:func:`CheckpointToBudget` on one function.

    Returns ``(new_func, kept_bytes, segments)``: the segments are the ``[p, q)`` ranges of
    ``func``'s bindings placed between markers (empty when ``func`` already fits, and then
    ``new_func`` is ``func``).
    """
    what = f"CheckpointToBudget({name})"
    if not isinstance(func, Function):
        raise TypeError(f"{what}: {name} is a {type(func).__name__}, not a relax.Function")
    for block in getattr(func.body, "blocks", ()):
        for binding in block.bindings:
            value = binding.value
            if isinstance(value, Call) and getattr(value.op, "name", None) in _MARKERS:
                raise ValueError(
                    f"{what}: the function already has checkpoint markers "
                    f"({binding.var.name_hint} = {value.op.name}); CheckpointToBudget places "
                    "all markers itself, so give it the function without them "
                    "(relax.analysis.estimate_kept_bytes measures a hand-checkpointed one)"
                )
    model = KeptModel(func, target_index, what)  # checks the body and the shapes
    plain = model.kept_bytes(func)
    if plain <= budget_bytes:
        return func, plain, []  # fits already: nothing to recompute, nothing to rewrite
    dataflow = is_single_dataflow(func)
    if dataflow:
        work = func
        segmentable = [isinstance(b.var, DataflowVar) for b in flat_bindings(func)]
    else:
        # Control flow or several blocks: segments are runs of the flat binding list that
        # hold no R.If (an If's value is always kept); dataflow blocks come back at the end.
        work = without_dataflow(func)
        model = KeptModel(work, target_index, what)
        segmentable = [not isinstance(b.value, If) for b in flat_bindings(work)]
    bindings = flat_bindings(work)
    smallest = plain
    for segments in _candidates(bindings, model.reads, segmentable):
        candidate = place_markers(work, segments) if segments else work
        kept = model.kept_bytes(candidate)
        if kept <= budget_bytes:
            if not dataflow:
                candidate = convert_to_dataflow(candidate)
            return candidate, kept, segments
        smallest = min(smallest, kept)
    raise ValueError(
        f"{what}: the backward pass cannot keep at most {_fmt(budget_bytes)} of forward "
        f"values; even the most checkpointed placement keeps {_fmt(smallest)}, the smallest "
        f"achievable budget (parameters are not counted)"
    )


def CheckpointToBudget(budget_bytes, func_name: str = "main", target_index: int = 0):
    """Insert checkpoint markers so ``Gradient``'s backward pass keeps at most ``budget_bytes``.

    A pytvm extension, not Apache TVM API. The function must have static shapes and no
    checkpoint markers. The pass places ``R.grad.start_checkpoint``/``R.grad.end_checkpoint``
    segments with the fewest recomputed FLOPs such that the forward values the backward pass
    keeps (as :func:`tvm.relax.analysis.estimate_kept_bytes` counts them: parameters excluded)
    take at most ``budget_bytes``. A function that already fits is returned unchanged. Run
    ``relax.transform.Gradient`` afterwards.

    Parameters
    ----------
    budget_bytes : int or str
        The budget in bytes, or a string such as ``"200KB"`` (1 KB = 1024 bytes).
    func_name : str
        The function to checkpoint (static shapes; R.If and several blocks allowed).
    target_index : int
        The returned field that will be differentiated (as in Gradient). A float tensor
        that is not a scalar (a backbone's logits) counts as reduced by ``R.sum``.

    Returns
    -------
    tvm.ir.transform.Pass
        A module pass named ``"CheckpointToBudget"`` (opt_level 0).

    Raises
    ------
    ValueError
        When no placement fits (the message names the smallest achievable budget), when the
        function already holds markers, or when a shape is symbolic.
    """
    budget = parse_memory_size(budget_bytes)
    if budget < 0:
        raise ValueError(f"CheckpointToBudget: the budget must be >= 0 bytes, got {budget}")
    if not isinstance(func_name, str):
        raise TypeError(f"CheckpointToBudget expects the function name as a str, got {func_name!r}")

    def _transform(mod, _ctx):
        func = mod[func_name]  # ValueError naming the candidates when absent
        new_func, _, _ = checkpoint_to_budget(func, budget, target_index, func_name)
        if new_func is func:
            return mod
        new_mod = mod.clone()
        new_mod[func_name] = new_func
        return new_mod

    return module_pass(_transform, opt_level=0, name="CheckpointToBudget")
