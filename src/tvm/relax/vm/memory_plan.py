"""Storage sharing between the VM's planned buffers (lifetime-based, as StaticPlanBlockMemory).

The code generator gives every kernel output that never leaves kernels (and has a static
shape) a *slot*: a tensor allocated once per ``VirtualMachine``. Here slots whose lifetimes do
not overlap share one *storage* (a byte buffer; each slot is a view of its first bytes), so a
function needs the memory of its largest set of simultaneously live intermediates instead of
the sum of all of them. It costs nothing per call: the views are made when the VM links.

Lifetimes: bindings are numbered in post-order (bindings inside ``If`` branches before the
binding holding the ``If``), which is the order the generated code runs them; a variable is
live from its binding to its last use. An output allocated by binding ``q`` may take the
storage of a slot whose variable was last used before ``q``: never one of the binding's own
inputs. A view (``R.reshape``, run without a copy) extends the lifetime of the variable it
views to its own last use. Sharing is byte-based and dtype-agnostic; a storage grows to its largest slot (best
fit first: the smallest free storage that is large enough, else the largest free one).
"""

from __future__ import annotations

from ..expr import Var
from ..expr_functor import ExprVisitor

__all__ = ["StoragePlanner", "binding_lifetimes"]


def binding_lifetimes(func):
    """``(position, last_use)``: post-order number of each bound var, and of its last use."""
    position, last_use = {}, {}
    frames = []
    counter = [0]

    class _Walk(ExprVisitor):
        def _binding(self, binding, visit):
            frames.append([])
            visit(binding)
            uses = frames.pop()
            number = counter[0]
            counter[0] += 1
            position[binding.var] = number
            for var in uses:
                last_use[var] = number

        def visit_var_binding_(self, binding):
            self._binding(binding, super().visit_var_binding_)

        def visit_match_cast_(self, binding):
            self._binding(binding, super().visit_match_cast_)

        def visit_var_(self, var):
            if frames:
                frames[-1].append(var)

        visit_dataflow_var_ = visit_var_

    _Walk().visit_expr(func.body)
    return position, last_use


class _Storage:
    __slots__ = ("index", "nbytes", "owner")

    def __init__(self, index, nbytes):
        self.index, self.nbytes, self.owner = index, nbytes, None


class StoragePlanner:
    """Assigns planned slots of one function to shared storages (see the module doc)."""

    def __init__(self, func, aliases=()):
        self.position, self.last_use = binding_lifetimes(func)
        # A view (R.reshape) keeps the storage of the variable it views alive while it is used.
        for view, viewed in reversed(list(aliases)):
            end = self.last_use.get(view, self.position.get(view))
            if end is not None and viewed in self.position:
                self.last_use[viewed] = max(self.last_use.get(viewed, end), end)
        self.storages = []
        self.live = []
        self.free = []

    def assign(self, var, nbytes):
        """The index of the storage the slot of ``var`` (``nbytes`` bytes) uses."""
        if not isinstance(var, Var) or var not in self.position:
            return self._new(var, nbytes).index
        here = self.position[var]
        still_live = []
        for storage in self.live:
            owner = storage.owner
            if self.last_use.get(owner, self.position.get(owner, here)) < here:
                self.free.append(storage)
            else:
                still_live.append(storage)
        self.live = still_live
        storage = self._best_fit(nbytes)
        if storage is None:
            storage = self._new(var, nbytes)
        else:
            self.free.remove(storage)
            storage.nbytes = max(storage.nbytes, nbytes)
            storage.owner = var
            self.live.append(storage)
        return storage.index

    def _best_fit(self, nbytes):
        if not self.free:
            return None
        fits = [s for s in self.free if s.nbytes >= nbytes]
        if fits:
            return min(fits, key=lambda s: s.nbytes)
        return max(self.free, key=lambda s: s.nbytes)

    def _new(self, var, nbytes):
        storage = _Storage(len(self.storages), nbytes)
        storage.owner = var
        self.storages.append(storage)
        self.live.append(storage)
        return storage

    @property
    def sizes(self) -> list:
        """The byte size of every storage (the largest slot placed in it)."""
        return [s.nbytes for s in self.storages]
