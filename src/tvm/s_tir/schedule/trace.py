"""``Trace``: the instructions a schedule applied, printable as Python and replayable.

An :class:`Instruction` is the name of a ``Schedule`` method with its positional and keyword
arguments (handles included) and the handles it returned. Replaying calls the same methods on
another schedule, mapping each recorded handle to the one the replay produced.
"""

from __future__ import annotations

__all__ = ["Instruction", "Trace"]


class Instruction:
    """One applied primitive: ``kind`` (method name), ``args``, ``kwargs``, ``outputs``."""

    def __init__(self, kind, args, kwargs, outputs, returns_list=False):
        self.kind = kind
        self.args = args
        self.kwargs = kwargs
        self.outputs = outputs
        # Whether the primitive returns a list (printed ``b1, = ...`` for one item).
        self.returns_list = returns_list

    @property
    def inputs(self):
        """Positional then keyword argument values."""
        return list(self.args) + list(self.kwargs.values())

    def __repr__(self):
        return f"Instruction({self.kind})"


# Instructions without side effects on the IR (dropped by ``simplified`` when unused).
_PURE = frozenset({"get_sblock", "get_loops", "get_child_blocks", "get_producers",
                   "get_consumers", "get_output_blocks", "sample_categorical",
                   "sample_perfect_tile"})


def _is_rv(value):
    # Lazy: base imports this module, so the handle classes are looked up at call time.
    from .base import _RV

    return isinstance(value, _RV)


def _rv_prefix(value):
    return {"SBlockRV": "b", "LoopRV": "l", "ExprRV": "v"}[type(value).__name__]


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

        def fmt(value):
            if _is_rv(value):
                return name_of(value)
            if isinstance(value, str):
                return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
            if isinstance(value, (list, tuple)):
                return "[" + ", ".join(fmt(v) for v in value) + "]"
            if isinstance(value, dict):
                return "{" + ", ".join(f"{fmt(k)}: {fmt(v)}" for k, v in value.items()) + "}"
            if isinstance(value, float):
                # TVM prints trace floats with 17 significant digits (0.20000000000000001).
                text = f"{value:.17g}"
                return text if any(c in text for c in ".einf") else text + ".0"
            return repr(value) if isinstance(value, (bool, int, type(None))) else str(value)

        lines = []
        for inst in self.insts:
            if remove_postproc and inst.kind == "enter_postproc":
                break
            call_args = [fmt(a) for a in inst.args]
            call_args += [f"{k}={fmt(v)}" for k, v in inst.kwargs.items()]
            call = f"sch.{inst.kind}({', '.join(call_args)})"
            if inst.outputs:
                targets = ", ".join(name_of(o) for o in inst.outputs)
                if inst.returns_list and len(inst.outputs) == 1:
                    targets += ","
                call = targets + " = " + call
            lines.append(call)
        return lines

    # --- JSON ---------------------------------------------------------------------------------
    def as_json(self, remove_postproc: bool = False) -> list:
        """The trace as a JSON-compatible value (lists, strings, numbers, dicts).

        The layout is ``[instructions, decisions]``. Each instruction is
        ``[kind, args, kwargs, outputs]``: ``kind`` the ``Schedule`` method name, ``args`` the
        positional arguments, ``kwargs`` ``[[name, value], ...]``, ``outputs`` the handle names
        (``b0``, ``l1``, ``v2``). A handle argument is ``{"rv": name}``, an ``IntImm``/
        ``FloatImm`` is ``{"imm": [dtype, value]}`` and a dict is ``{"dict": [[k, v], ...]}``.
        ``decisions`` is ``[[instruction index, decision], ...]``. This is pytvm's own layout
        (Apache TVM stores ``[kind, inputs, attrs, outputs]`` with per-kind attributes); it is
        read back by :meth:`apply_json_to_schedule`.

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
            raise TypeError(
                f"Trace.as_json: an argument of type {type(value).__name__} ({value}) has no "
                "JSON form in this pytvm version"
            )

        insts, decisions = [], []
        for inst in self.insts:
            if remove_postproc and inst.kind == "enter_postproc":
                break
            kwargs = {k: v for k, v in inst.kwargs.items() if k != "decision"}
            if "decision" in inst.kwargs:
                decisions.append([len(insts), enc(inst.kwargs["decision"])])
            insts.append([inst.kind, [enc(a) for a in inst.args],
                          [[k, enc(v)] for k, v in kwargs.items()],
                          [name_of(o) for o in inst.outputs]])
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

        for index, entry in enumerate(insts):
            if not (isinstance(entry, (list, tuple)) and len(entry) == 4):
                raise ValueError(
                    "Trace.apply_json_to_schedule: an instruction must be "
                    f"[kind, args, kwargs, outputs], got {entry!r:.200}"
                )
            kind, args, kwargs, outputs = entry
            call_kwargs = {k: dec(v) for k, v in kwargs}
            if index in decisions:
                call_kwargs["decision"] = dec(decisions[index])
            result = getattr(sch, kind)(*[dec(a) for a in args], **call_kwargs)
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
        """Print the trace as Python."""
        print(str(self))
