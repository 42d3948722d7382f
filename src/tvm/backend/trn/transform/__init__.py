"""Passes over TIRx kernels for Trainium (``tvm.tirx.trn.transform``)."""

from .naive_allocator import TrnNaiveAllocator, sbuf_bytes_per_partition

__all__ = ["TrnNaiveAllocator", "sbuf_bytes_per_partition"]
