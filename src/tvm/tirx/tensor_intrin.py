"""``TensorIntrin``: a named pair of PrimFuncs (what a tile computes, and how the hardware does it).

``desc`` describes the computation of one tile (in SBlocks, as a schedule would see it);
``impl`` computes the same tile with the target's instructions. ``Schedule.tensorize``
matches ``desc`` against a subtree and replaces it with ``impl``. Intrinsics live in one
process-wide table, filled by :mod:`tvm.s_tir.tensor_intrin` and by users.
"""

from __future__ import annotations

from .function import PrimFunc

__all__ = ["TensorIntrin"]

_REGISTRY: dict = {}


class TensorIntrin:
    """A tensor intrinsic: ``desc`` (the tile's computation) and ``impl`` (its implementation).

    Parameters
    ----------
    desc : PrimFunc
        The computation of one tile.
    impl : PrimFunc
        The same computation with target instructions; it takes as many buffers as ``desc``.

    Raises
    ------
    TypeError
        If ``desc`` or ``impl`` is not a PrimFunc.
    ValueError
        If the two functions take different numbers of parameters.
    """

    def __init__(self, desc: PrimFunc, impl: PrimFunc):
        for role, func in (("desc", desc), ("impl", impl)):
            if not isinstance(func, PrimFunc):
                raise TypeError(
                    f"TensorIntrin: {role} must be a PrimFunc, got {type(func).__name__}"
                )
        if len(desc.params) != len(impl.params):
            raise ValueError(
                "TensorIntrin: desc and impl must take the same number of parameters, got "
                f"{len(desc.params)} and {len(impl.params)}"
            )
        self.desc = desc
        self.impl = impl

    def __repr__(self):
        return f"TensorIntrin({len(self.desc.params)} params)"

    @staticmethod
    def register(name: str, desc: PrimFunc, impl: PrimFunc, override: bool = False) -> None:
        """Register ``desc``/``impl`` under ``name``.

        Raises
        ------
        ValueError
            If ``name`` is registered already and ``override`` is false.
        """
        if not isinstance(name, str) or not name:
            raise TypeError(f"TensorIntrin.register: name must be a non-empty str, got {name!r}")
        if name in _REGISTRY and not override:
            raise ValueError(
                f"TensorIntrin.register: the intrinsic {name!r} is registered already "
                "(pass override=True to replace it)"
            )
        _REGISTRY[name] = TensorIntrin(desc, impl)

    @staticmethod
    def get(name: str, allow_missing: bool = False) -> TensorIntrin | None:
        """The intrinsic registered as ``name`` (``None`` if missing and ``allow_missing``).

        Raises
        ------
        ValueError
            If no intrinsic has that name and ``allow_missing`` is false.
        """
        if name in _REGISTRY:
            return _REGISTRY[name]
        if allow_missing:
            return None
        raise ValueError(
            f"TensorIntrin.get: no tensor intrinsic named {name!r}; registered: "
            f"{sorted(_REGISTRY)}"
        )

    @staticmethod
    def registered_names() -> list:
        """The names of all registered intrinsics, sorted."""
        return sorted(_REGISTRY)
