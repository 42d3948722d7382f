"""``tvm.relax.ir``: Relax-specific IR utilities (``tvm.relax.ir.instrument``)."""
