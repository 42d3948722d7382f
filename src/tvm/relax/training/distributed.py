"""Data-parallel training on ``torch.distributed``: :class:`DistributedTrainer`.

Each rank runs the compiled adjoint (``backbone_loss_adjoint``) on its shard of the batch;
the gradients, the loss and the backbone states are averaged over the ranks with
``all_reduce`` on the VM's own output tensors, shared with torch through DLPack (no copy);
then every rank runs the compiled ``optimizer`` on the same averaged gradients, so the
parameters stay identical. pytvm brings no cluster engine: the process group is torch's
(gloo on CPUs, NCCL on GPUs), started by ``torchrun`` or :func:`init_process_group`.

Why a subclass of :class:`~tvm.relax.training.Trainer` and not an option of it: the
one-process ``Trainer.update`` is one fused VM call (``train_step``); the data-parallel step
must stop at the gradient boundary, talks to a process group, broadcasts the initial state and
checks that every rank compiled the same module. Keeping that in its own class leaves the
fused path untouched, and ``DistributedTrainer`` is a drop-in replacement (same constructor
arguments plus the process group) that also runs in one process, where it equals ``Trainer``.

Gradients are averaged in buckets: the gradients of one dtype are packed into flat buffers of
at most ``bucket_bytes`` (a gradient larger than that is reduced in place, on the VM's output
memory), and the buckets' ``all_reduce`` calls run asynchronously, so packing bucket k+1
overlaps the reduction of bucket k. The adjoint is one VM call, so the reduction cannot start
before the backward pass ends (see ``docs/arch/training.md``, "Data-parallel training", for
the measured effect of buckets).
"""

from __future__ import annotations

import datetime
import os
import time

import numpy as np

from .setup_trainer import ADJOINT_FUNC, OPTIMIZER_FUNC
from .trainer import Trainer, _tensor

__all__ = ["DistributedTrainer", "init_process_group", "module_fingerprint"]

#: Default size of one gradient bucket (bytes), as PyTorch DDP's default (25 MiB).
DEFAULT_BUCKET_BYTES = 25 * 1024 * 1024


def _torch_dist():
    # Lazy: torch is optional and `import tvm` must not import it.
    try:
        import torch
        import torch.distributed as dist
    except ImportError as err:
        raise ImportError(
            "tvm.relax.training.distributed needs PyTorch (torch.distributed): "
            "pip install torch"
        ) from err
    return torch, dist


def init_process_group(backend="gloo", timeout=60.0):
    """Join the process group described by torch's launcher variables (``torchrun``).

    Reads ``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR`` and ``MASTER_PORT`` as
    ``torch.distributed.init_process_group`` does. Does nothing when the group already exists
    or when ``WORLD_SIZE`` is unset (one process). ``timeout`` (seconds) bounds every
    collective: a rank whose peer died fails within it instead of hanging.

    Returns
    -------
    bool
        Whether a process group is active afterwards.
    """
    _, dist = _torch_dist()
    if dist.is_initialized():
        return True
    if "WORLD_SIZE" not in os.environ:
        return False
    dist.init_process_group(backend=backend,
                            timeout=datetime.timedelta(seconds=float(timeout)))
    return True


def module_fingerprint(mod) -> int:
    """A 63-bit fingerprint of a module's Relax functions, equal across processes.

    The hash of their printed TVMScript (``structural_hash`` is per process: it hashes
    strings with Python's randomized ``hash``). The PrimFuncs follow from the Relax functions,
    so they are left out, which keeps this fast for legalized training modules.
    """
    import hashlib  # lazy: only here

    from ..expr import Function  # lazy: keeps this module light to import

    digest = hashlib.blake2b(digest_size=8)
    for gv, func in sorted(mod.functions_items(), key=lambda item: item[0].name_hint):
        if isinstance(func, Function):
            digest.update(gv.name_hint.encode())
            digest.update(func.script().encode())
    return int.from_bytes(digest.digest(), "little") & ((1 << 63) - 1)


class DistributedTrainer(Trainer):
    """A :class:`Trainer` whose :meth:`update` averages gradients over a torch process group.

    Parameters
    ----------
    train_mod, vm, device, zero_init_param_state
        As for :class:`Trainer`.
    process_group : torch.distributed.ProcessGroup, optional
        The group to average over (default: the default group). Without an initialized
        ``torch.distributed``, the trainer runs alone (world size 1).
    bucket_bytes : int
        The largest flat gradient buffer; 0 reduces every gradient by itself, in place.

    Notes
    -----
    * Rank 0's parameters, states and optimizer state are broadcast to the other ranks at the
      first :meth:`update` (and by :meth:`load_checkpoint`), so the ranks start identical.
    * The loss should average over the batch (``reduction="mean"``, the default); the
      gradients of equal shards then average to the full batch's gradient.
    * Every rank must build the same module: the constructor compares
      :func:`module_fingerprint` over the group and raises ``ValueError`` naming the ranks
      that differ.
    * A failed collective (a peer ended, or the group's timeout passed) raises
      ``RuntimeError`` naming this rank.
    """

    def __init__(self, train_mod, vm, device, zero_init_param_state=True, *,
                 process_group=None, bucket_bytes=DEFAULT_BUCKET_BYTES):
        super().__init__(train_mod, vm, device, zero_init_param_state)
        if int(bucket_bytes) < 0:
            raise ValueError(f"DistributedTrainer: bucket_bytes must be >= 0, got {bucket_bytes}")
        self._torch, self._dist = _torch_dist()
        self._group = process_group
        self._bucket_bytes = int(bucket_bytes)
        active = self._dist.is_available() and self._dist.is_initialized()
        self.world_size = self._dist.get_world_size(process_group) if active else 1
        self.rank = self._dist.get_rank(process_group) if active else 0
        self._adjoint = vm[ADJOINT_FUNC]
        self._optimizer_fn = vm[OPTIMIZER_FUNC]
        self._synced = self.world_size == 1
        self._buckets = None  # built at the first update, from the gradients' shapes
        self.allreduce_seconds = 0.0  # accumulated time in the reductions (for benchmarks)
        if self.world_size > 1:
            self._check_same_module()

    # --- collectives -----------------------------------------------------------------------------
    def _fail(self, what, err):
        raise RuntimeError(
            f"DistributedTrainer (rank {self.rank} of {self.world_size}): {what} failed; "
            f"another rank probably ended or stopped responding ({err})"
        ) from err

    def _check_same_module(self):
        torch, dist = self._torch, self._dist
        mine = torch.tensor([module_fingerprint(self.mod)], dtype=torch.int64)
        every = [torch.zeros_like(mine) for _ in range(self.world_size)]
        try:
            dist.all_gather(every, mine, group=self._group)
        except RuntimeError as err:
            self._fail("the start-up check of the model", err)
        values = [int(t.item()) for t in every]
        differ = [r for r, v in enumerate(values) if v != values[0]]
        if differ:
            raise ValueError(
                f"DistributedTrainer: the training module differs across ranks: ranks "
                f"{differ} built another model than rank 0 (structural hashes "
                f"{', '.join(f'rank {r}: {v:#x}' for r, v in enumerate(values))}); every rank "
                "must run the same model definition, loss and optimizer"
            )

    def _shared(self, tensor):
        """The torch view of a pytvm tensor (DLPack, no copy)."""
        return self._torch.from_dlpack(tensor)

    def _broadcast_state(self):
        """Rank 0's parameters, states and optimizer state to every rank (in place)."""
        if any(p is None for p in self._params):
            self.zero_init_params()  # receive buffers on a rank that set no parameters
        try:
            for tensor in [*self._params, *self._states, *self._optim_state]:
                self._dist.broadcast(self._shared(tensor), src=0, group=self._group)
        except RuntimeError as err:
            self._fail("broadcasting rank 0's parameters", err)
        self._synced = True

    def _plan_buckets(self, tensors):
        """Group indices of ``tensors`` into buckets: one dtype each, <= bucket_bytes."""
        buckets, open_by_dtype = [], {}
        for index, tensor in enumerate(tensors):
            nbytes = tensor.numel() * tensor.element_size()
            if self._bucket_bytes == 0 or nbytes >= self._bucket_bytes:
                buckets.append([index])  # reduced in place
                continue
            current = open_by_dtype.get(tensor.dtype)
            if current is None or current[1] + nbytes > self._bucket_bytes:
                current = open_by_dtype[tensor.dtype] = [[], 0]
                buckets.append(current[0])
            current[0].append(index)
            current[1] += nbytes
        plan = []
        for indices in buckets:
            if len(indices) == 1:
                plan.append((indices, None))
                continue
            total = sum(tensors[i].numel() for i in indices)
            plan.append((indices, self._torch.empty(total, dtype=tensors[indices[0]].dtype)))
        return plan

    def _average(self, tensors):
        """Average pytvm tensors over the ranks, in place where they are not bucketed.

        Returns the averaged values as pytvm tensors (the inputs, or views of the buckets).
        """
        from ...runtime import from_dlpack  # lazy: runtime tensors

        torch, dist = self._torch, self._dist
        views = [self._shared(t) for t in tensors]
        if self._buckets is None:
            self._buckets = self._plan_buckets(views)
        scale = 1.0 / self.world_size
        pending, results = [], list(tensors)
        try:
            for indices, flat in self._buckets:
                if flat is None:
                    target = views[indices[0]]
                else:
                    torch.cat([views[i].reshape(-1) for i in indices], out=flat)
                    target = flat
                pending.append((dist.all_reduce(target, group=self._group, async_op=True),
                                indices, flat))
            for work, indices, flat in pending:
                work.wait()
                if flat is None:
                    views[indices[0]].mul_(scale)
                    continue
                flat.mul_(scale)
                offset = 0
                for i in indices:
                    count = views[i].numel()
                    results[i] = from_dlpack(flat[offset:offset + count].view(views[i].shape))
                    offset += count
        except RuntimeError as err:
            self._fail("averaging the gradients (all_reduce)", err)
        return results

    # --- training --------------------------------------------------------------------------------
    def update(self, input_instances, targets):
        """One data-parallel step on this rank's shard; returns the loss averaged over ranks.

        The adjoint runs on the shard, the gradients (with the loss and the new backbone
        states) are averaged over the group, then the compiled optimizer updates the
        parameters, identically on every rank.
        """
        if self.world_size == 1:
            return super().update(input_instances, targets)
        inputs, targets = self._step_args("DistributedTrainer.update", input_instances, targets)
        if not self._synced:
            self._broadcast_state()
        out = self._adjoint(*inputs, *self._params, *self._states, *targets)
        head, grads = out[0], list(out[1])
        if self._state_num:
            loss, states = head[0], list(head[1:])
        else:
            loss, states = head, []
        start = time.perf_counter()
        averaged = self._average([*grads, loss, *states])
        self.allreduce_seconds += time.perf_counter() - start
        grads = averaged[:len(grads)]
        loss = averaged[len(grads)]
        if self._state_num:
            self._states = list(averaged[len(grads) + 1:])
        new = self._optimizer_fn(tuple(self._params), tuple(grads), tuple(self._optim_state))
        self._params = list(new[0])
        self._optim_state = list(new[1])
        return loss

    # --- checkpoints -----------------------------------------------------------------------------
    def save_checkpoint(self, path):
        """Rank 0 writes parameters, states and optimizer state to ``path`` (``.npz``).

        The other ranks wait at a barrier until the file is complete. The file holds no batch
        size, so any number of ranks (or a plain :class:`Trainer`-shaped run) resumes from it.
        """
        if self.rank == 0:
            arrays = {f"param/{n}": t.numpy() for n, t in self.export_params().items()}
            arrays.update({f"state/{n}": t.numpy() for n, t in self.export_states().items()})
            arrays.update({f"optim/{i}": t.numpy() for i, t in enumerate(self._optim_state)})
            tmp = f"{os.fspath(path)}.tmp.npz"
            with open(tmp, "wb") as f:
                np.savez(f, **arrays)
            os.replace(tmp, path)
        self._barrier()

    def load_checkpoint(self, path):
        """Resume from a :meth:`save_checkpoint` file, with any number of ranks.

        Rank 0 reads the file (only it needs to see it) and broadcasts the values. A file of
        another model (other parameter names, shapes or optimizer) is a ``ValueError``.
        """
        if self.rank == 0:
            with np.load(path) as data:
                saved = {k for k in data.files}
                wanted = {f"param/{n}" for n in self._param_names}
                wanted |= {f"state/{n}" for n in self._state_names}
                wanted |= {f"optim/{i}" for i in range(len(self._optim_state))}
                if saved != wanted:
                    raise ValueError(
                        f"DistributedTrainer.load_checkpoint: {path} does not match this model: "
                        f"missing {sorted(wanted - saved)}, unexpected {sorted(saved - wanted)}"
                    )
                self.load_params({n: data[f"param/{n}"] for n in self._param_names})
                if self._state_names:
                    self.load_states({n: data[f"state/{n}"] for n in self._state_names})
                optim = []
                for i, current in enumerate(self._optim_state):
                    value = data[f"optim/{i}"]
                    if value.shape != tuple(current.shape) or str(value.dtype) != str(
                            current.dtype):
                        raise ValueError(
                            f"DistributedTrainer.load_checkpoint: optimizer state {i} in {path} "
                            f"has shape {value.shape} and dtype {value.dtype}; this optimizer's "
                            f"has {tuple(current.shape)} and {current.dtype}"
                        )
                    optim.append(_tensor(value))
                self._optim_state = optim
        self._uninitialized = False
        if self.world_size > 1:
            self._broadcast_state()

    def _barrier(self):
        if self.world_size > 1:
            try:
                self._dist.barrier(group=self._group)
            except RuntimeError as err:
                self._fail("the barrier after saving a checkpoint", err)
