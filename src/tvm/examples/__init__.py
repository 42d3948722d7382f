"""Runnable examples: ``python -m tvm.examples.demo`` shows what works today."""
