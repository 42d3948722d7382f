"""``Trace``: the instructions a schedule applied, printable as Python and replayable.

An :class:`Instruction` is the name of a ``Schedule`` method with its positional and keyword
arguments (handles included) and the handles it returned. Replaying calls the same methods on
another schedule, mapping each recorded handle to the one the replay produced.
"""

from __future__ import annotations

from .instruction import _KINDS, InstructionKind

__all__ = ["Instruction", "InstructionKind", "Trace"]

_TVM_KIND_NAMES = frozenset(_KINDS)


class Instruction:
    """One applied primitive: its ``kind``, arguments and the handles it returned.

    Two ways to build one: ``Instruction(kind, args, kwargs, outputs)`` with the method's
    positional and keyword arguments (how schedules record), or TVM's
    ``Instruction(kind=InstructionKind.get("GetLoops"), inputs=[...], attrs=[...],
    outputs=[...])``, whose inputs and attributes are matched to the method's parameters by
    :attr:`InstructionKind.layout`.
    """

    def __init__(self, kind, args=None, kwargs=None, outputs=(), returns_list=None, *,
                 inputs=None, attrs=None):
        kind = InstructionKind(kind)
        if inputs is None and isinstance(kwargs, (list, tuple)):
            # TVM's positional order: (kind, inputs, attrs, outputs).
            inputs, attrs, args, kwargs = args, kwargs, None, None
        if inputs is not None or attrs is not None:
            args, kwargs = _from_tvm_layout(kind, list(inputs or []), list(attrs or []))
        self.kind = kind
        self.args = list(args or [])
        self.kwargs = dict(kwargs or {})
        self.outputs = list(outputs)
        if returns_list is None:
            # Lazy: base imports this module.
            from .base import _LIST_KINDS

            returns_list = kind in _LIST_KINDS
        # Whether the primitive returns a list (printed ``b1, = ...`` for one item).
        self.returns_list = returns_list

    @property
    def inputs(self):
        """The handles and schedule-computed values the instruction takes (TVM's inputs)."""
        layout = self.kind.layout
        if layout is None:
            return list(self.args) + list(self.kwargs.values())
        values = []
        for name in layout[0]:
            if name.startswith("*"):
                rest = self.kwargs.get(name[1:], self.args)
                values.extend(list(rest or []))
            elif name in self.kwargs:
                values.append(self.kwargs[name])
        return values

    @property
    def attrs(self):
        """The constant parameters of the instruction (TVM's attrs)."""
        layout = self.kind.layout
        if layout is None:
            return []
        return [self.kwargs[name] for name in layout[1] if name in self.kwargs]

    def same_as(self, other) -> bool:
        """Whether ``other`` is this very instruction."""
        return other is self

    def __str__(self):
        return _format_call(self, lambda _value: "_")

    def __repr__(self):
        return f"Instruction({self.kind.name})"


def _from_tvm_layout(kind, inputs, attrs):
    layout = kind.layout
    if layout is None:
        raise ValueError(
            f"Instruction: kind {kind.name!r} has no known inputs/attrs layout; build it "
            "with (kind, args, kwargs, outputs)"
        )
    input_names, attr_names = layout
    if len(attrs) != len(attr_names):
        raise ValueError(
            f"Instruction {kind.name}: expected {len(attr_names)} attrs {list(attr_names)}, "
            f"got {len(attrs)}"
        )
    args, kwargs = [], {}
    for i, name in enumerate(input_names):
        if name.startswith("*"):
            rest = inputs[i:]
            if kind in ("fuse", "merge", "reorder"):
                args = rest
            elif rest:
                # An empty optional list (cache_read's consumer_blocks) is left at its default.
                kwargs[name[1:]] = rest
            inputs = inputs[:i]
            break
        if i >= len(inputs):
            raise ValueError(
                f"Instruction {kind.name}: expected inputs {list(input_names)}, got "
                f"{len(inputs)}"
            )
        kwargs[name] = inputs[i]
    else:
        if len(inputs) != len(input_names):
            raise ValueError(
                f"Instruction {kind.name}: expected inputs {list(input_names)}, got "
                f"{len(inputs)}"
            )
    for name, value in zip(attr_names, attrs):
        kwargs[name] = value
    # Keyword order of the method's signature (the trace prints them in that order).
    import inspect  # Lazy: only TVM-style construction needs it.

    from .schedule import Schedule  # Lazy: schedule imports this module.

    order = list(inspect.signature(getattr(Schedule, kind)).parameters)
    kwargs = dict(sorted(kwargs.items(),
                         key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))
    return args, kwargs


# Instructions without side effects on the IR (dropped by ``simplified`` when unused).
_PURE = frozenset({"get_sblock", "get_loops", "get_child_blocks", "get_producers",
                   "get_consumers", "get_output_blocks", "sample_categorical",
                   "sample_perfect_tile"})


def _is_rv(value):
    # Lazy: base imports this module, so the handle classes are looked up at call time.
    from .base import _RV

    return isinstance(value, _RV)


def _rv_prefix(value):
    # A tirx.Var output stands for an ExprRV (TVM's ExprRV is a PrimExpr variable).
    return {"SBlockRV": "b", "LoopRV": "l", "ExprRV": "v"}.get(type(value).__name__, "v")


def _map(value, fn):
    if isinstance(value, (list, tuple)):
        return type(value)(_map(v, fn) for v in value)
    return fn(value)


class Trace:
    """The instructions applied by a schedule, in order (``sch.trace``).

    Examples
    --------
    >>> trace = sch.trace                      # doctest: +SKIP
    >>> trace.apply_to_schedule(fresh_schedule, remove_postproc=False)  # doctest: +SKIP
    """

    def __init__(self, insts=None, decisions=None):
        self.insts = list(insts or [])
        for inst, decision in dict(decisions or {}).items():
            inst.kwargs["decision"] = decision

    @property
    def decisions(self) -> dict:
        """``{instruction: decision}`` of the sampling instructions."""
        return {inst: inst.kwargs["decision"] for inst in self.insts
                if "decision" in inst.kwargs}

    def append(self, inst: Instruction) -> None:
        """Add an instruction at the end."""
        self.insts.append(inst)

    def __len__(self):
        return len(self.insts)

    def pop(self):
        """Remove and return the last instruction (``None`` if the trace is empty)."""
        return self.insts.pop() if self.insts else None

    def get_decision(self, inst):
        """The decision recorded for a sampling instruction (``None`` otherwise)."""
        return inst.kwargs.get("decision")

    def with_decision(self, inst, decision, remove_postproc: bool) -> Trace:
        """A copy of the trace where ``inst`` carries ``decision`` (replays then use it)."""
        out = []
        for old in self.insts:
            if remove_postproc and old.kind == "enter_postproc":
                break
            if old is inst:
                old = Instruction(old.kind, old.args, dict(old.kwargs, decision=decision),
                                  old.outputs, old.returns_list)
            out.append(old)
        return Trace(out)

    def simplified(self, remove_postproc: bool) -> Trace:
        """A copy without the pure instructions (lookups, samples) whose results are unused."""
        insts = []
        for inst in self.insts:
            if remove_postproc and inst.kind == "enter_postproc":
                break
            insts.append(inst)
        used, kept = set(), []
        for inst in reversed(insts):
            if inst.kind in _PURE and not any(id(o) in used for o in inst.outputs):
                continue
            kept.append(inst)
            for value in inst.args + list(inst.kwargs.values()):
                _map(value, lambda v: used.add(id(v)) if _is_rv(v) else None)
        return Trace(kept[::-1])

    def apply_to_schedule(self, sch, remove_postproc: bool, decision_provider=None) -> None:
        """Replay the instructions on ``sch`` (stopping at ``enter_postproc`` if asked)."""
        rv_map = {}

        def to_new(value):
            if _is_rv(value):
                if value not in rv_map:
                    raise ValueError(
                        "Trace.apply_to_schedule: an instruction uses a handle that no earlier "
                        "instruction of the trace produced"
                    )
                return rv_map[value]
            return value

        for inst in self.insts:
            if remove_postproc and inst.kind == "enter_postproc":
                break
            args = [_map(a, to_new) for a in inst.args]
            kwargs = {k: _map(v, to_new) for k, v in inst.kwargs.items()}
            result = getattr(sch, inst.kind)(*args, **kwargs)
            if not inst.outputs:
                continue
            results = list(result) if isinstance(result, (list, tuple)) else [result]
            for old, new in zip(inst.outputs, results):
                rv_map[old] = new

    def as_python(self, remove_postproc: bool = False) -> list:
        """The trace as lines of Python (``sch.<primitive>(...)`` calls)."""
        names = {}

        def name_of(value):
            if value not in names:
                names[value] = f"{_rv_prefix(value)}{len(names)}"
            return names[value]

        lines = []
        for inst in self.insts:
            if remove_postproc and inst.kind == "enter_postproc":
                break
            lines.append(_format_call(inst, name_of))
        return lines

    # --- JSON ---------------------------------------------------------------------------------
    def as_json(self, remove_postproc: bool = False) -> list:
        """The trace as a JSON-compatible value (lists, strings, numbers, dicts).

        The layout is ``[instructions, decisions]``, ``decisions`` being
        ``[[instruction index, decision], ...]``. An instruction whose kind has a TVM layout
        (:attr:`InstructionKind.layout`) is stored as TVM stores it,
        ``[kind name, inputs, attrs, outputs]``, with handles as their names (``"b0"``). Other
        instructions are stored as ``[method, args, kwargs, outputs]`` with handles as
        ``{"rv": name}`` and ``kwargs`` as ``[[name, value], ...]``. Everywhere an
        ``IntImm``/``FloatImm`` is ``{"imm": [dtype, value]}`` and a dict is
        ``{"dict": [[k, v], ...]}``. :meth:`apply_json_to_schedule` reads both forms back.

        Raises
        ------
        TypeError
            If an argument is of a kind that has no JSON form yet (for example an ``IndexMap``).
        """
        names = {}

        def name_of(value):
            if value not in names:
                names[value] = f"{_rv_prefix(value)}{len(names)}"
            return names[value]

        def enc(value):
            if _is_rv(value):
                return {"rv": name_of(value)}
            if value is None or isinstance(value, (bool, int, float, str)):
                return value
            if isinstance(value, (list, tuple)):
                return [enc(v) for v in value]
            if isinstance(value, dict):
                return {"dict": [[enc(k), enc(v)] for k, v in value.items()]}
            # Lazy: tirx sits below s_tir, but the trace module stays import-light.
            from ...tirx.expr import FloatImm, IntImm

            if isinstance(value, (IntImm, FloatImm)):
                return {"imm": [str(value.dtype), value.value]}
            from ...tirx.index_map import IndexMap

            if isinstance(value, IndexMap):
                return {"index_map": [_index_dtype(value), str(value)]}
            raise TypeError(
                f"Trace.as_json: an argument of type {type(value).__name__} ({value}) has no "
                "JSON form in this pytvm version"
            )

        def enc_input(value):
            if _is_rv(value):
                return name_of(value)
            if isinstance(value, (list, tuple)):
                return [enc_input(v) for v in value]
            return enc(value)

        insts, decisions = [], []
        for inst in self.insts:
            if remove_postproc and inst.kind == "enter_postproc":
                break
            kwargs = {k: v for k, v in inst.kwargs.items() if k != "decision"}
            if "decision" in inst.kwargs:
                decisions.append([len(insts), enc(inst.kwargs["decision"])])
            if inst.kind.layout is not None:
                entry = [inst.kind.name, [enc_input(v) for v in inst.inputs],
                         [enc(v) for v in inst.attrs]]
            else:
                entry = [str(inst.kind), [enc(a) for a in inst.args],
                         [[k, enc(v)] for k, v in kwargs.items()]]
            insts.append([*entry, [name_of(o) for o in inst.outputs]])
        return [insts, decisions]

    @staticmethod
    def apply_json_to_schedule(json_obj, sch) -> None:
        """Replay a trace given in the :meth:`as_json` layout on ``sch``.

        Raises
        ------
        ValueError
            If ``json_obj`` is not in that layout or uses a handle name before defining it.
        """
        if not (isinstance(json_obj, (list, tuple)) and len(json_obj) == 2):
            raise ValueError(
                "Trace.apply_json_to_schedule: expected [instructions, decisions], got "
                f"{json_obj!r:.200}"
            )
        insts, decisions = json_obj
        decisions = {int(i): d for i, d in decisions}
        rv_map = {}

        def dec(value):
            if isinstance(value, dict):
                if set(value) == {"rv"}:
                    if value["rv"] not in rv_map:
                        raise ValueError(
                            f"Trace.apply_json_to_schedule: handle {value['rv']!r} is used "
                            "before an instruction defines it"
                        )
                    return rv_map[value["rv"]]
                if set(value) == {"dict"}:
                    return {dec(k): dec(v) for k, v in value["dict"]}
                if set(value) == {"index_map"}:
                    return _parse_index_map(*value["index_map"])
                if set(value) == {"imm"}:
                    # Lazy: see as_json.
                    from ...tirx.expr import FloatImm, IntImm

                    dtype, number = value["imm"]
                    cls = FloatImm if "float" in dtype else IntImm
                    return cls(dtype, number)
                raise ValueError(f"Trace.apply_json_to_schedule: unknown value {value!r}")
            if isinstance(value, list):
                return [dec(v) for v in value]
            return value

        def dec_input(value):
            if isinstance(value, str) and value in rv_map:
                return rv_map[value]
            if isinstance(value, list):
                return [dec_input(v) for v in value]
            return dec(value)

        for index, entry in enumerate(insts):
            if not (isinstance(entry, (list, tuple)) and len(entry) == 4):
                raise ValueError(
                    "Trace.apply_json_to_schedule: an instruction must be "
                    f"[kind, args, kwargs, outputs], got {entry!r:.200}"
                )
            kind, args, kwargs, outputs = entry
            if kind in _TVM_KIND_NAMES:
                # TVM's layout: [kind name, inputs (handle names), attrs, outputs].
                inst = Instruction(kind=InstructionKind.get(kind),
                                   inputs=[dec_input(v) for v in args],
                                   attrs=[dec(v) for v in kwargs])
                args, call_kwargs = inst.args, inst.kwargs
            else:
                args = [dec(a) for a in args]
                call_kwargs = {k: dec(v) for k, v in kwargs}
            if index in decisions:
                call_kwargs["decision"] = dec(decisions[index])
            method = InstructionKind.get(kind) if kind in _TVM_KIND_NAMES else kind
            result = getattr(sch, method)(*args, **call_kwargs)
            if not outputs:
                continue
            results = list(result) if isinstance(result, (list, tuple)) else [result]
            for name, new in zip(outputs, results):
                rv_map[name] = new

    def __str__(self):
        body = self.as_python()
        lines = ["# from tvm import s_tir", "def apply_trace(sch: s_tir.Schedule) -> None:"]
        lines += ["  " + line for line in body] or ["  pass"]
        return "\n".join(lines)

    def show(self, style=None, black_format=False) -> None:
        """Print the trace as Python, coloured on a terminal (see ``IRModule.show``)."""
        # Lazy: tvm.script sits above s_tir.
        from tvm.script.highlight import cprint

        cprint(str(self), style=style, black_format=black_format)


def _index_dtype(imap):
    return str(imap.initial_indices[0].dtype) if imap.initial_indices else "int64"


def _parse_index_map(dtype, text):
    """An IndexMap back from its TVMScript text ``T.index_map(lambda ...: ...)``."""
    # Lazy: the TVMScript namespace sits above s_tir; only JSON traces with maps need it.
    from ...script import tirx as T
    from ...tirx.index_map import IndexMap

    prefix = "T.index_map("
    if not (text.startswith(prefix) and text.endswith(")")):
        raise ValueError(f"Trace.apply_json_to_schedule: not an index map: {text!r:.200}")
    fn = eval(text[len(prefix):-1], {"T": T})
    return IndexMap.from_func(fn, index_dtype=dtype)


def _format_value(value, name_of):
    if _is_rv(value):
        return name_of(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_format_value(v, name_of) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_format_value(k, name_of)}: {_format_value(v, name_of)}"
                               for k, v in value.items()) + "}"
    # Lazy: keeps this module import-light (tirx is a lower layer).
    from ...tirx.expr import FloatImm, IntImm

    if isinstance(value, IntImm):
        # TVM prints constant attributes by value (True, 32), whatever their dtype.
        value = bool(value.value) if value.dtype == "bool" else int(value.value)
    elif isinstance(value, FloatImm):
        value = float(value.value)
    if isinstance(value, float):
        # TVM prints trace floats with 17 significant digits (0.20000000000000001).
        text = f"{value:.17g}"
        return text if any(c in text for c in ".einf") else text + ".0"
    return repr(value) if isinstance(value, (bool, int, type(None))) else str(value)


def _format_call(inst, name_of):
    call_args = [_format_value(a, name_of) for a in inst.args]
    call_args += [f"{k}={_format_value(v, name_of)}" for k, v in inst.kwargs.items()]
    call = f"sch.{inst.kind}({', '.join(call_args)})"
    if inst.outputs:
        targets = ", ".join(name_of(o) for o in inst.outputs)
        if inst.returns_list and len(inst.outputs) == 1:
            targets += ","
        call = targets + " = " + call
    return call
