"""Frontends: models from other frameworks as Relax modules.

``tvm.relax.frontend.torch`` imports PyTorch models (``from_exported_program``,
``from_fx``); PyTorch itself is imported only when one of them is called.
"""
