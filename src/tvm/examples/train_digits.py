"""Train a digit classifier through the whole pytvm stack: ``python -m tvm.examples.train_digits``.

The model is written with ``tvm.relax.testing.nn`` (a 2-layer MLP, or ``--model cnn`` for a
small convolutional net), ``relax.training.SetupTrainer`` appends the loss, differentiates it
(``relax.transform.Gradient``, with checkpointing when asked, and its simplifier) and adds the
optimizer; ``relax.build`` legalizes, fuses (``--no-fuse`` skips it) and compiles with LLVM
(``--target cuda``: CUDA kernels with default GPU schedules, run on ``tvm.cuda(0)``; without a
GPU driver it stops after compiling with a one-line error); the VM runs one call per
training step. The data is scikit-learn's bundled 8x8 handwritten
digits (no download). At the end it prints held-out accuracy, compile time, ms per step, and
the same step (MLP or CNN) written by hand in NumPy (``tvm.examples.numpy_steps``) for
comparison. ``--memory-budget 200KB`` has ``relax.transform.CheckpointToBudget`` place the
checkpoints of the backbone so its backward pass keeps at most that many bytes of activations.

``--nproc 2`` trains data-parallel on 2 processes (``relax.training.distributed``, gloo): it
relaunches itself through PyTorch's elastic launcher, as ``torchrun --nproc-per-node 2 -m
tvm.examples.train_digits`` does; each rank takes its share of every batch.

Each epoch prints one line (loss, training and held-out accuracy); on a terminal a ``tqdm`` bar
on standard error follows the steps of the epoch (nothing is drawn into pipes or logs).
``--log-csv history.csv`` writes the per-epoch numbers, ``--plot loss.png`` saves the loss and
accuracy curves (needs matplotlib: ``pip install 'pytvm-compiler[plot]'``).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time

import numpy as np

from ..support.progress import progress_bar
from .numpy_steps import NumpyCNN, NumpyMLP

FEATURES, CLASSES = 64, 10


def load_digits_split(seed: int):
    """``(x_train, y_train, x_test, y_test)``: 80/20 split of scikit-learn's digits, in [0, 1]."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        sys.exit(
            "train_digits needs scikit-learn for its bundled digits data: "
            "pip install 'pytvm-compiler[examples]' (or pip install scikit-learn)"
        )
    data = load_digits()
    x = (data.data / 16.0).astype("float32")
    y = data.target.astype("int64")
    order = np.random.default_rng(seed).permutation(len(x))
    split = int(0.8 * len(x))
    train, test = order[:split], order[split:]
    return x[train], y[train], x[test], y[test]


def build_backbone(model: str, batch: int, hidden: int, checkpointing: bool):
    """The backbone ``IRModule``: ``backbone(x, params...) -> logits``."""
    from tvm import relax
    from tvm.relax.testing import nn

    bb = relax.BlockBuilder()
    if model == "mlp":
        x = nn.Placeholder((batch, FEATURES), name="x")
        layer1 = nn.Linear(FEATURES, hidden)
        layer2 = nn.Linear(hidden, CLASSES)
        params = layer1.parameters() + layer2.parameters()
        with bb.function("backbone", [x, *params]):
            with bb.dataflow():
                if checkpointing:
                    # The hidden activations are recomputed in the backward pass, not kept.
                    h = nn.emit_checkpoint(lambda v: nn.emit(relax.op.nn.relu(layer1(v))), x)
                else:
                    h = nn.emit(relax.op.nn.relu(layer1(x)))
                out = bb.emit_output(layer2(h))
            bb.emit_func_output(out)
    else:
        channels = 8
        x = nn.Placeholder((batch, 1, 8, 8), name="x")
        weight = nn.Parameter((channels, 1, 3, 3), name="conv_weight")
        bias = nn.Parameter((1, channels, 1, 1), name="conv_bias")
        fc = nn.Linear(channels * 4 * 4, CLASSES)
        params = [weight, bias, *fc.parameters()]

        def features(v):
            conv = nn.emit(relax.op.nn.conv2d(v, weight, padding=(1, 1)))
            act = nn.emit(relax.op.nn.relu(nn.emit(relax.op.add(conv, bias))))
            return nn.emit(relax.op.nn.max_pool2d(act, pool_size=(2, 2), strides=(2, 2)))

        with bb.function("backbone", [x, *params]):
            with bb.dataflow():
                pooled = nn.emit_checkpoint(features, x) if checkpointing else features(x)
                flat = nn.emit(relax.op.reshape(pooled, (batch, channels * 16)))
                out = bb.emit_output(fc(flat))
            bb.emit_func_output(out)
    mod = bb.get()
    return mod.with_attrs({"param_num": len(params), "state_num": 0})


def make_optimizer(name: str, lr: float):
    """The ``tvm.relax.training`` optimizer called ``name`` with learning rate ``lr``.

    Parameters
    ----------
    name : str
        ``"sgd"``, ``"momentum"`` (SGD with momentum 0.9) or anything else for Adam.
    lr : float
        The learning rate.

    Returns
    -------
    Optimizer
    """
    from tvm.relax.training.optimizer import SGD, Adam, MomentumSGD

    if name == "sgd":
        return SGD(lr)
    if name == "momentum":
        return MomentumSGD(lr, momentum=0.9)
    return Adam(lr)


#: Column names of ``--log-csv`` (one row per epoch; accuracies are fractions in [0, 1]).
HISTORY_COLUMNS = ("epoch", "loss", "train_accuracy", "heldout_accuracy")


def write_history_csv(path: str, history: list) -> None:
    """Write ``history`` (rows of :data:`HISTORY_COLUMNS`) to the CSV file ``path``."""
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(HISTORY_COLUMNS)
        for epoch, loss, train_acc, heldout_acc in history:
            writer.writerow([epoch, f"{loss:.6f}", f"{train_acc:.6f}", f"{heldout_acc:.6f}"])


def _require_matplotlib() -> None:
    """Exit with the install command when matplotlib (the ``plot`` extra) is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        sys.exit(
            "train_digits: --plot needs matplotlib, which is not installed: "
            "pip install 'pytvm-compiler[plot]' (or pip install matplotlib)"
        )


def plot_history(path: str, history: list) -> None:
    """Save the loss and accuracy curves of ``history`` (rows of :data:`HISTORY_COLUMNS`).

    Left panel: training loss per epoch; right panel: training and held-out accuracy. The
    format follows the file name's extension (``.png``, ``.svg``, ``.pdf``). Needs matplotlib
    (the ``plot`` extra); uses its object API, so no GUI backend is touched.
    """
    _require_matplotlib()
    from matplotlib.figure import Figure  # lazy: an optional extra

    epochs = [row[0] for row in history]
    fig = Figure(figsize=(9, 3.5), layout="constrained")
    loss_ax, acc_ax = fig.subplots(1, 2)
    loss_ax.plot(epochs, [row[1] for row in history], marker="o")
    loss_ax.set_xlabel("epoch")
    loss_ax.set_ylabel("training loss")
    loss_ax.set_title("loss")
    acc_ax.plot(epochs, [100 * row[2] for row in history], marker="o", label="training")
    acc_ax.plot(epochs, [100 * row[3] for row in history], marker="s", label="held-out")
    acc_ax.set_xlabel("epoch")
    acc_ax.set_ylabel("accuracy (%)")
    acc_ax.set_title("accuracy")
    acc_ax.legend()
    fig.savefig(path)


def _bar(done, total, width=24):
    filled = int(width * done / max(total, 1))
    return "[" + "#" * filled + "." * (width - filled) + "]"


def _accuracy(trainer, x, y, batch, shape):
    correct = 0
    for start in range(0, len(x), batch):
        chunk = x[start:start + batch]
        pad = batch - len(chunk)
        if pad:
            chunk = np.concatenate([chunk, np.zeros((pad, *chunk.shape[1:]), chunk.dtype)])
        logits = trainer.predict(chunk.reshape(shape)).numpy()[: batch - pad]
        correct += int((logits.argmax(1) == y[start:start + batch]).sum())
    return correct / len(x)


def _fit_memory_budget(backbone, budget: int):
    """The backbone with checkpoints placed by ``CheckpointToBudget``; prints the kept bytes."""
    from tvm import relax
    from tvm.relax.analysis import estimate_kept_bytes

    before = estimate_kept_bytes(backbone["backbone"])
    try:
        backbone = relax.transform.CheckpointToBudget(budget, "backbone")(backbone)
    except ValueError as err:
        sys.exit(f"train_digits: --memory-budget: {err}")
    after = estimate_kept_bytes(backbone["backbone"])
    print(f"memory budget {budget / 1024:.1f} KB: the backward pass keeps {after / 1024:.1f} KB "
          f"of backbone activations ({before / 1024:.1f} KB without checkpoints)")
    return backbone


def _positive(kind):
    """An argparse type: a number of ``kind`` greater than zero (a usage error otherwise)."""

    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            noun = "an integer" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"expected {noun}, got {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be greater than 0, got {text}")
        return value

    parse.__name__ = f"positive {kind.__name__}"
    return parse


def main(argv=None) -> int:
    """Run the example from the command line (``python -m tvm.examples.train_digits --help``).

    Parameters
    ----------
    argv : list of str, optional
        The arguments; ``sys.argv[1:]`` by default.

    Returns
    -------
    int
        The process exit status (0 on success).
    """
    parser = argparse.ArgumentParser(
        prog="python -m tvm.examples.train_digits",
        description="Train a digit classifier (scikit-learn's 8x8 digits) with pytvm: Relax "
        "model, Gradient, LegalizeOps, FuseOps/FuseTIR, LLVM and the Relax VM; then time the "
        "same step written by hand in NumPy.",
    )
    parser.add_argument("--model", choices=["mlp", "cnn"], default="mlp",
                        help="2-layer MLP (default) or a small conv net")
    parser.add_argument("--batch-size", type=_positive(int), default=32,
                        help="examples per step (32)")
    parser.add_argument("--epochs", type=_positive(int), default=None,
                        help="passes over the training set (default: 15 for mlp, 10 for cnn)")
    parser.add_argument("--lr", "--learning-rate", type=_positive(float), default=None, dest="lr",
                        help="learning rate (default: 0.01 for adam, 0.1 for sgd/momentum)")
    parser.add_argument("--optimizer", choices=["adam", "sgd", "momentum"], default="adam",
                        help="optimizer (adam)")
    parser.add_argument("--hidden", type=_positive(int), default=64,
                        help="MLP hidden units (64)")
    parser.add_argument("--checkpointing", action="store_true",
                        help="gradient checkpointing: recompute the first layer (MLP) or the "
                        "conv/relu/pool block (CNN) in the backward pass instead of keeping "
                        "its activations")
    parser.add_argument("--memory-budget", default=None, metavar="SIZE",
                        help="checkpoint automatically (relax.transform.CheckpointToBudget, a "
                        "pytvm extension) so the backward pass keeps at most SIZE of backbone "
                        "activations, e.g. 200KB or 1.5MB (1 KB = 1024 bytes); prints the kept "
                        "bytes before and after")
    parser.add_argument("--target", default="llvm",
                        help="compilation target given to relax.build (llvm: the host CPU; "
                             "cuda: the GPU, run on tvm.cuda(0))")
    parser.add_argument("--no-fuse", action="store_true",
                        help="skip FuseOps/FuseTIR (on by default; see docs/arch/build_and_vm.md)")
    parser.add_argument("--seed", type=int, default=0, help="data split and init seed (0)")
    parser.add_argument("--no-numpy", action="store_true",
                        help="skip the NumPy comparison step")
    parser.add_argument("--quiet", action="store_true",
                        help="no per-epoch lines and no progress bar")
    parser.add_argument("--log-csv", default=None, metavar="FILE",
                        help="write the per-epoch loss, training and held-out accuracy to FILE "
                        "(CSV)")
    parser.add_argument("--plot", default=None, metavar="FILE",
                        help="save the loss and accuracy curves to FILE (e.g. loss.png; needs "
                        "matplotlib: pip install 'pytvm-compiler[plot]')")
    parser.add_argument("--nproc", type=_positive(int), default=1,
                        help="data-parallel processes on this machine (1); 2 or more relaunch "
                        "through torch.distributed's launcher (needs PyTorch), like torchrun "
                        "--nproc-per-node N -m tvm.examples.train_digits")
    parser.add_argument("--from-torch", action="store_true",
                        help="define the model as a torch.nn.Module and import it through "
                        "relax.frontend.torch (needs PyTorch); compares with PyTorch eager")
    args = parser.parse_args(argv)
    if args.plot is not None:
        _require_matplotlib()  # before minutes of training, not after
    if args.nproc > 1 and "WORLD_SIZE" not in os.environ:
        return _launch_ranks(args.nproc, sys.argv[1:] if argv is None else list(argv))
    world, rank = _join_process_group()
    if rank != 0:  # one rank reports; the others train silently
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (kept open for the process's life)
    budget = None
    if args.memory_budget is not None:
        from tvm.relax.transform.checkpoint_budget import parse_memory_size

        if args.checkpointing:
            parser.error("--memory-budget places its own checkpoints: drop --checkpointing")
        try:
            budget = parse_memory_size(args.memory_budget)
        except ValueError as err:
            parser.error(f"--memory-budget: {err}")
    epochs = args.epochs or (15 if args.model == "mlp" else 10)
    lr = args.lr or (0.01 if args.optimizer == "adam" else 0.1)
    batch = args.batch_size
    if batch % world:
        parser.error(f"--batch-size {batch} does not split evenly over {world} processes")
    local = batch // world  # this rank's share of every batch

    import tvm
    from tvm import relax
    from tvm.relax.training import SetupTrainer, Trainer
    from tvm.relax.training.distributed import DistributedTrainer
    from tvm.relax.training.loss import CrossEntropyLoss
    from tvm.relax.vm_build import default_relax_pipeline

    x_train, y_train, x_test, y_test = load_digits_split(args.seed)
    if batch > len(x_train):
        parser.error(f"--batch-size {batch} is larger than the {len(x_train)} training images")
    shape = (local, FEATURES) if args.model == "mlp" else (local, 1, 8, 8)
    print(f"digits: {len(x_train)} training and {len(x_test)} held-out images; model "
          f"{args.model}, batch {batch}, {epochs} epochs, {args.optimizer} lr={lr}"
          + (f", {world} processes ({local} examples each per step)" if world > 1 else "")
          + (", checkpointing" if args.checkpointing else "")
          + (f", memory budget {args.memory_budget}" if budget is not None else ""))

    start = time.perf_counter()
    if args.from_torch:
        if args.checkpointing or budget is not None:
            parser.error("--from-torch does not take --checkpointing or --memory-budget")
        from .torch_digits import build_train_module

        train_mod, torch_init, torch_module = build_train_module(
            args.model, local, args.hidden, make_optimizer(args.optimizer, lr), args.seed)
    else:
        backbone = build_backbone(args.model, local, args.hidden, args.checkpointing)
        if budget is not None:
            backbone = _fit_memory_budget(backbone, budget)
        setup = SetupTrainer(
            CrossEntropyLoss(),
            make_optimizer(args.optimizer, lr),
            [relax.TensorType((local, CLASSES), "float32"), relax.TensorType((local,), "int64")],
        )
        train_mod = setup(backbone)
    gradient_s = time.perf_counter() - start
    pipeline = default_relax_pipeline(fuse=False) if args.no_fuse else "default"
    target = tvm.target.Target(args.target)
    on_host = target.get_target_device_type() == 1
    try:
        executable = relax.build(train_mod, target=target, relax_pipeline=pipeline)
        compile_s = time.perf_counter() - start
        print(f"compile: {compile_s:.2f} s (Gradient and setup {gradient_s:.2f} s, build "
              f"{compile_s - gradient_s:.2f} s)")
        dev = tvm.cpu() if on_host else _device_for(tvm, target)
    except (ValueError, RuntimeError) as err:
        if on_host:
            raise
        # A device target without its device (no GPU, no driver): one clear line, no traceback.
        print(f"train_digits: error: {err}", file=sys.stderr)
        return 1

    vm = relax.VirtualMachine(executable, dev)
    trainer = DistributedTrainer(train_mod, vm, dev) if world > 1 else Trainer(train_mod, vm, dev)
    if args.from_torch:
        from tvm.relax.frontend.torch import load_torch_params

        load_torch_params(trainer, torch_init)  # the torch model's own initial weights
    else:
        trainer.xaiver_uniform_init_params(seed=args.seed)
    initial = [p.numpy() for p in trainer.export_params().values()]

    rng = np.random.default_rng(args.seed)
    steps_per_epoch = len(x_train) // batch
    step_times = []
    history = []  # (epoch, loss, train accuracy, held-out accuracy)
    measure = not args.quiet or args.plot is not None or args.log_csv is not None
    for epoch in range(epochs):
        order = rng.permutation(len(x_train))
        losses, hits, seen = [], 0, 0
        # A tqdm bar on stderr only when it is a terminal (rank 0): pipes and logs get the
        # one line per epoch printed below, never "\r" redraws.
        bar = None if args.quiet or rank != 0 else progress_bar(
            steps_per_epoch, f"epoch {epoch + 1:>2}/{epochs}", unit="step")
        for step in range(steps_per_epoch):
            idx = order[step * batch:(step + 1) * batch][rank * local:(rank + 1) * local]
            xb = np.ascontiguousarray(x_train[idx].reshape(shape))
            yb = np.ascontiguousarray(y_train[idx])
            t0 = time.perf_counter()
            loss = trainer.update(xb, yb)
            step_times.append(time.perf_counter() - t0)
            losses.append(float(loss.numpy()))
            if not measure:
                continue
            # Training accuracy of each batch right after its step (outside the timed call).
            hits += int((trainer.predict(xb).numpy().argmax(1) == yb).sum())
            seen += len(yb)
            if bar is not None:
                bar.update(1)
                if step % 16 == 0 or step == steps_per_epoch - 1:
                    bar.set_postfix_str(f"loss {np.mean(losses):.4f} train accuracy "
                                        f"{hits / seen:.1%}")
        if bar is not None:
            bar.close()
        if measure:
            acc = _accuracy(trainer, x_test, y_test, local, shape)
            history.append((epoch + 1, float(np.mean(losses)), hits / seen, acc))
        if not args.quiet:
            print(f"epoch {epoch + 1:>2}/{epochs} {_bar(1, 1)} loss {np.mean(losses):.4f} "
                  f"train accuracy {hits / seen:.1%} held-out accuracy {acc:.1%}")
    accuracy = _accuracy(trainer, x_test, y_test, local, shape)
    ms = 1e3 * float(np.median(step_times))
    print(f"held-out accuracy: {accuracy:.2%}")
    print(f"pytvm step: {ms:.3f} ms (median of {len(step_times)} steps)")
    if rank == 0 and args.log_csv is not None:
        write_history_csv(args.log_csv, history)
        print(f"per-epoch numbers: {args.log_csv}")
    if rank == 0 and args.plot is not None:
        plot_history(args.plot, history)
        print(f"loss and accuracy curves: {args.plot}")

    if world > 1:
        print(f"all-reduce: {1e3 * trainer.allreduce_seconds / len(step_times):.3f} ms per step "
              f"(the NumPy comparison runs only in one process)")
    elif args.from_torch and not args.no_numpy:
        from .torch_digits import torch_eager_step_ms

        xb = np.ascontiguousarray(x_train[:local].reshape(shape))
        eager_ms = torch_eager_step_ms(torch_module, args.optimizer, lr, xb, y_train[:local])
        print(f"PyTorch eager step (1 thread): {eager_ms:.3f} ms; pytvm is "
              f"{eager_ms / ms:.2f}x eager's speed")
    elif not args.no_numpy:
        reference = (NumpyMLP if args.model == "mlp" else NumpyCNN)(initial, args.optimizer, lr)
        xb = x_train[:batch].reshape(shape)
        yb = y_train[:batch]
        times = []
        for _ in range(200 if args.model == "mlp" else 50):
            t0 = time.perf_counter()
            reference.step(xb, yb)
            times.append(time.perf_counter() - t0)
        np_ms = 1e3 * float(np.median(times))
        print(f"NumPy step: {np_ms:.3f} ms (hand-written forward/backward/{args.optimizer}); "
              f"pytvm is {np_ms / ms:.2f}x NumPy's speed")
    return 0


def _launch_ranks(nproc: int, argv: list) -> int:
    """Run this example on ``nproc`` local processes through torch's elastic launcher."""
    try:
        from torch.distributed import run as torch_run
        from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    except ImportError:
        sys.exit("train_digits --nproc needs PyTorch (torch.distributed): pip install torch")
    rest, skip = [], False
    for arg in argv:  # the children must not relaunch themselves
        if skip:
            skip = False
        elif arg == "--nproc":
            skip = True
        elif not arg.startswith("--nproc="):
            rest.append(arg)
    # One thread per process unless asked otherwise: the ranks share this machine's cores.
    os.environ.setdefault("TVM_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // nproc)))
    os.environ.setdefault("OMP_NUM_THREADS", os.environ["TVM_NUM_THREADS"])  # torch's pools
    try:
        torch_run.main(["--standalone", "--nproc-per-node", str(nproc),
                        "-m", "tvm.examples.train_digits", *rest])
    except ChildFailedError as err:
        print(f"train_digits: a training process failed: {err}", file=sys.stderr)
        return 1
    return 0


def _join_process_group():
    """``(world_size, rank)``: join torch's process group when a launcher started us."""
    if "WORLD_SIZE" not in os.environ:
        return 1, 0
    from tvm.relax.training.distributed import init_process_group

    init_process_group("gloo", timeout=120)
    import torch.distributed as dist

    return dist.get_world_size(), dist.get_rank()


def _device_for(tvm, target):
    """The device of ``target``'s kind, checked usable with a one-element allocation.

    Raises the runtime's error when it is not: for CUDA without a driver, "no CUDA driver
    (libcuda.so.1) found; CUDA source and cubins can still be built".
    """
    dev = tvm.device(target.kind.name, 0)
    tvm.runtime.empty((1,), "float32", dev)
    return dev


if __name__ == "__main__":
    raise SystemExit(main())
