"""Declaring Relax ops: one call registers the op and its per-concern rules.

Families use :func:`register_relax_op` in their ``__init__.py`` with the rule from their
``infer.py``, so every op states its inference rule and purity where it is declared.
"""

from __future__ import annotations

from ...ir.op import Op, register_op, register_op_attr

__all__ = ["register_op_table", "register_reference", "register_relax_op"]


def register_relax_op(
    name: str,
    num_inputs: int,
    family: str,
    infer=None,
    purity: bool = True,
    attrs_type_key: str = "",
    description: str = "",
) -> Op:
    """Register ``relax.<name>`` with its ``FInferType`` rule and ``FPurity`` flag."""
    op = register_op(
        f"relax.{name}",
        num_inputs=num_inputs,
        family=family,
        attrs_type_key=attrs_type_key,
        description=description,
    )
    if infer is not None:
        register_op_attr(op.name, "FInferType", infer)
    register_op_attr(op.name, "FPurity", purity)
    return op


def register_op_table(prefix: str, family: str, rows) -> dict[str, Op]:
    """Register a family's ops from ``(name, num_inputs, infer, attrs_name, doc)`` rows.

    Each op becomes ``relax.<prefix><name>``; ``attrs_name`` is the bare attrs class name
    (``"Conv2DAttrs"``, or ``""`` for none). Returns ``{name: Op}`` for the family's builders.
    """
    return {
        name: register_relax_op(
            f"{prefix}{name}",
            num_inputs,
            family,
            infer,
            attrs_type_key=f"relax.attrs.{attrs_name}" if attrs_name else "",
            description=doc,
        )
        for name, num_inputs, infer, attrs_name, doc in rows
    }


def register_reference(name: str):
    """Decorator registering the NumPy reference rule (``FReference``) of ``relax.<name>``.

    A rule is called as ``rule(attrs, *args)`` with NumPy arrays for tensor arguments, Python
    numbers for ``PrimValue`` arguments, tuples of ints for shapes and Python tuples for tuple
    arguments; it returns a NumPy array or a tuple of them (see ``tvm.relax.testing``).
    """

    def _register(fn):
        register_op_attr(f"relax.{name}", "FReference", fn)
        return fn

    return _register


def reference_dtype(dtype):
    """The NumPy dtype of a TVM dtype string (``ml_dtypes`` for bfloat16 and float8 kinds)."""
    import numpy as np

    dtype = str(dtype)
    try:
        return np.dtype(dtype)
    except TypeError:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, dtype))
