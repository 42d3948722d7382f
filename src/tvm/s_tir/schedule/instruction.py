"""``InstructionKind``: the kinds of schedule instructions, by TVM's names (``"GetLoops"``).

A kind is the ``Schedule`` method an instruction calls. It is a ``str`` subclass holding the
method name (``"get_loops"``), so the trace replays it with ``getattr(sch, kind)``; ``name``
is TVM's CamelCase name and ``is_pure`` says whether it leaves the IR unchanged (lookups and
samples). ``layout`` splits the method's parameters into TVM's ``inputs`` (handles and
values computed by the schedule) and ``attrs`` (constants); a name starting with ``*`` takes
the rest of the inputs as a list.
"""

from __future__ import annotations

__all__ = ["InstructionKind"]

# TVM name -> (method, pure, input parameters, attribute parameters).
_KINDS = {
    "GetSBlock": ("get_sblock", True, (), ("name", "func_name")),
    "GetLoops": ("get_loops", True, ("block",), ()),
    "GetChildBlocks": ("get_child_blocks", True, ("block_or_loop",), ()),
    "GetProducers": ("get_producers", True, ("block",), ()),
    "GetConsumers": ("get_consumers", True, ("block",), ()),
    "GetOutputBlocks": ("get_output_blocks", True, ("block",), ()),
    "Split": ("split", False, ("loop", "*factors"),
              ("preserve_unit_iters", "disable_predication")),
    "LoopPartition": ("loop_partition", False, ("loop", "*factors"), ("preserve_unit_iters",)),
    "Fuse": ("fuse", False, ("*loops",), ("preserve_unit_iters",)),
    "Merge": ("merge", False, ("*loops",), ()),
    "Reorder": ("reorder", False, ("*ordered_loops",), ()),
    "AddUnitLoop": ("add_unit_loop", False, ("block_or_loop",), ()),
    "Parallel": ("parallel", False, ("loop",), ()),
    "Vectorize": ("vectorize", False, ("loop",), ()),
    "Unroll": ("unroll", False, ("loop",), ()),
    "Bind": ("bind", False, ("loop",), ("thread_axis",)),
    "ComputeInline": ("compute_inline", False, ("block",), ()),
    "ReverseComputeInline": ("reverse_compute_inline", False, ("block",), ()),
    "ComputeAt": ("compute_at", False, ("block", "loop"), ("preserve_unit_loops", "index")),
    "ReverseComputeAt": ("reverse_compute_at", False, ("block", "loop"),
                         ("preserve_unit_loops", "index")),
    "CacheRead": ("cache_read", False, ("block", "*consumer_blocks"),
                  ("read_buffer_index", "storage_scope")),
    "CacheWrite": ("cache_write", False, ("block", "*consumer_blocks"),
                   ("write_buffer_index", "storage_scope")),
    "CacheInplace": ("cache_inplace", False, ("block",), ("read_buffer_index", "storage_scope")),
    "CacheIndex": ("cache_index", False, ("block",), ("storage_scope", "cse_thresh")),
    "ReadAt": ("read_at", False, ("loop", "block"), ("read_buffer_index", "storage_scope")),
    "WriteAt": ("write_at", False, ("loop", "block"), ("write_buffer_index", "storage_scope")),
    "PadEinsum": ("pad_einsum", False, ("block",), ("padding",)),
    "DecomposeReduction": ("decompose_reduction", False, ("block", "loop"), ()),
    "RFactor": ("rfactor", False, ("loop",), ("factor_axis",)),
    "StorageAlign": ("storage_align", False, ("block",),
                     ("buffer_index", "axis", "factor", "offset")),
    "SetScope": ("set_scope", False, ("block",), ("buffer_index", "storage_scope")),
    "Blockize": ("blockize", False, ("target",), ("preserve_unit_iters",)),
    "Tensorize": ("tensorize", False, ("block_or_loop",),
                  ("tensor_intrin", "preserve_unit_iters")),
    "DecomposePadding": ("decompose_padding", False, ("block", "loop"), ()),
    "RollingBuffer": ("rolling_buffer", False, ("block",), ("write_buffer_index",)),
    "FuseReductionEpilogue": ("fuse_reduction_epilogue", False,
                              ("reduction_block", "epilogue_block"), ()),
    "Annotate": ("annotate", False, ("block_or_loop", "ann_val"), ("ann_key",)),
    "AnnotateBufferAccess": ("annotate_buffer_access", False,
                             ("block", "buffer_index", "buf_type", "gen_new_ranges"), ()),
    "Unannotate": ("unannotate", False, ("block_or_loop",), ("ann_key",)),
    "SampleCategorical": ("sample_categorical", True, (), ("candidates", "probs")),
    "SamplePerfectTile": ("sample_perfect_tile", True, ("loop",),
                          ("n", "max_innermost_factor")),
    "SamplePartitionedTile": ("sample_partitioned_tile", True, ("loop",),
                              ("n", "partition_pos", "innerpart_factor")),
    "SampleComputeLocation": ("sample_compute_location", True, ("block",), ()),
    "EnterPostproc": ("enter_postproc", False, (), ()),
}
_BY_METHOD = {method: name for name, (method, *_rest) in _KINDS.items()}


class InstructionKind(str):
    """A kind of schedule instruction (get one with :meth:`InstructionKind.get`).

    The string value is the ``Schedule`` method name; ``name`` is TVM's name for the kind.
    """

    @property
    def name(self) -> str:
        """TVM's name of the kind (``"GetLoops"``)."""
        if str(self) in _BY_METHOD:
            return _BY_METHOD[str(self)]
        return "".join(part.capitalize() for part in str(self).split("_")).replace(
            "Sblock", "SBlock")

    @property
    def is_pure(self) -> bool:
        """Whether the instruction leaves the IR unchanged (lookups, samples)."""
        entry = _KINDS.get(self.name)
        return bool(entry and entry[1])

    @property
    def layout(self):
        """``(input parameter names, attribute parameter names)`` (``None`` if unknown)."""
        entry = _KINDS.get(self.name)
        return (entry[2], entry[3]) if entry else None

    def same_as(self, other) -> bool:
        """Whether ``other`` is the same kind."""
        return isinstance(other, InstructionKind) and str(self) == str(other)

    @staticmethod
    def get(name: str) -> InstructionKind:
        """The kind named ``name`` (TVM's name, ``"GetLoops"``, or the method name).

        Raises
        ------
        ValueError
            If no schedule instruction has that name.
        """
        if name in _KINDS:
            return InstructionKind(_KINDS[name][0])
        if name in _BY_METHOD:
            return InstructionKind(name)
        raise ValueError(
            f"InstructionKind.get: unknown instruction kind {name!r}; known kinds: "
            f"{sorted(_KINDS)}"
        )

    @staticmethod
    def of_method(method: str) -> InstructionKind:
        """The kind of the ``Schedule`` method ``method`` (any method name is accepted)."""
        return InstructionKind(method)
