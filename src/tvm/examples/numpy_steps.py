"""Hand-written NumPy training steps, the comparison for pytvm's compiled step.

Used by ``python -m tvm.examples.train_digits`` and ``benchmarks/train_step.py``. Each step is
forward, softmax cross entropy (mean over the batch), backward and an optimizer update, with
the same parameter layout and the same optimizers as ``relax.training`` (Relax's ``x @ w``
weights, ``SGD``, ``MomentumSGD(momentum=0.9)``, ``Adam``), so that one step from the same
parameters gives the same loss and parameters as the compiled ``train_step``:

* :class:`NumpyMLP`: ``relu(x @ w1 + b1) @ w2 + b2``;
* :class:`NumpyCNN`: conv 3x3 (padding 1, bias ``(1, C, 1, 1)``), ReLU, 2x2 max-pool,
  flatten (NCHW order), ``@ w + b``.

Examples
--------
>>> import numpy as np
>>> from tvm.examples.numpy_steps import NumpyMLP
>>> rng = np.random.default_rng(0)
>>> shapes = [(4, 8), (8,), (8, 3), (3,)]
>>> params = [0.1 * rng.standard_normal(s).astype("float32") for s in shapes]
>>> step = NumpyMLP(params, "sgd", 0.1)
>>> loss = step.step(rng.random((5, 4), dtype="float32"), np.array([0, 1, 2, 0, 1]))
>>> bool(np.isfinite(loss))
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["NumpyCNN", "NumpyMLP", "NumpyStep"]


class NumpyStep:
    """Parameters and optimizer state; subclasses give the loss and gradients.

    Parameters
    ----------
    params : list of numpy.ndarray
        The initial parameters (copied), in the backbone's order.
    optimizer : str
        ``"sgd"``, ``"momentum"`` (momentum 0.9, no dampening) or ``"adam"`` (betas 0.9,
        0.999, eps 1e-8), the updates of ``relax.training.optimizer``.
    lr : float
        The learning rate.
    """

    def __init__(self, params, optimizer: str, lr: float):
        if optimizer not in ("sgd", "momentum", "adam"):
            raise ValueError(f"optimizer must be 'sgd', 'momentum' or 'adam', got {optimizer!r}")
        self.params = [np.array(p, copy=True) for p in params]
        self.optimizer, self.lr, self.t = optimizer, lr, 0
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]

    def loss_and_grads(self, x, y):
        """``(loss, gradients)`` at the current parameters (one per parameter, in order)."""
        raise NotImplementedError(
            f"{type(self).__name__} is abstract: a NumPy training model subclass must define "
            "loss_and_grads")

    def step(self, x, y):
        """One training step on the batch ``(x, y)``; returns the loss (before the update)."""
        loss, grads = self.loss_and_grads(x, y)
        self.t += 1
        for i, g in enumerate(grads):
            if self.optimizer == "adam":
                self.m[i] = 0.9 * self.m[i] + 0.1 * g
                self.v[i] = 0.999 * self.v[i] + 0.001 * g * g
                m_hat = self.m[i] / (1 - 0.9**self.t)
                v_hat = self.v[i] / (1 - 0.999**self.t)
                self.params[i] -= self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)
            elif self.optimizer == "momentum":
                self.m[i] = 0.9 * self.m[i] + g
                self.params[i] -= self.lr * self.m[i]
            else:
                self.params[i] -= self.lr * g
        return loss


def softmax_cross_entropy(logits, y):
    """``(mean loss, d loss / d logits)`` for integer class targets ``y``."""
    n = len(y)
    rows = np.arange(n)
    shifted = logits - logits.max(1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(1, keepdims=True)
    loss = float(np.log(total[:, 0]).mean() - shifted[rows, y].mean())
    dlogits = exp
    dlogits /= total
    dlogits[rows, y] -= 1
    dlogits /= n
    return loss, dlogits


class NumpyMLP(NumpyStep):
    """The 2-layer MLP ``relu(x @ w1 + b1) @ w2 + b2``; parameters ``[w1, b1, w2, b2]``."""

    def loss_and_grads(self, x, y):
        """Forward, cross entropy and backward."""
        w1, b1, w2, b2 = self.params
        h_pre = x @ w1 + b1
        h = np.maximum(h_pre, 0)
        loss, dlogits = softmax_cross_entropy(h @ w2 + b2, y)
        dh = dlogits @ w2.T
        dh *= h_pre > 0
        return loss, [x.T @ dh, dh.sum(0), h.T @ dlogits, dlogits.sum(0)]


class NumpyCNN(NumpyStep):
    """Conv 3x3 (padding 1), ReLU, 2x2 max-pool, linear; parameters ``[conv_weight (C, Ci, 3,
    3), conv_bias (1, C, 1, 1), w (C*H/2*W/2, classes), b (classes,)]``, input ``(N, Ci, H,
    W)`` with even ``H`` and ``W``.

    The convolution is im2col: the 9 shifted windows of the padded input are copied into a
    ``(Ci*9, N*H*W)`` matrix (9 slice copies of whole image rows), multiplied by the ``(C,
    Ci*9)`` kernel matrix, so that both the forward product and the kernel gradient are BLAS
    products with a long dimension; activations stay channel-first (CNHW) until the flatten.
    Max-pool works on the four strided views of each 2x2 window and routes each window's
    gradient to its first maximum in row-major order, as TVM's ``max_pool2d`` gradient does
    (ties are common: a blank patch gives the same value at every position).
    """

    def loss_and_grads(self, x, y):
        """Forward, cross entropy and backward."""
        kernel, bias, w, b = self.params
        n, ci, height, width = x.shape
        channels = kernel.shape[0]
        if kernel.shape[1:] != (ci, 3, 3) or height % 2 or width % 2:
            raise ValueError(
                f"NumpyCNN: needs a (C, {ci}, 3, 3) kernel and an even image size, got kernel "
                f"{kernel.shape} and input {x.shape}"
            )
        padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        cols = np.empty((ci, 3, 3, n, height, width), x.dtype)
        for i in range(3):
            for j in range(3):
                cols[:, i, j] = padded[:, :, i:i + height, j:j + width].transpose(1, 0, 2, 3)
        cols = cols.reshape(ci * 9, n * height * width)
        pre = kernel.reshape(channels, ci * 9) @ cols
        pre += bias.reshape(channels, 1)
        act = np.maximum(pre, 0).reshape(channels, n, height, width)
        # The four positions of each 2x2 window, in row-major order: strided views, no copies.
        corners = [act[:, :, i::2, j::2] for i in (0, 1) for j in (0, 1)]
        pooled = np.maximum(np.maximum(corners[0], corners[1]),
                            np.maximum(corners[2], corners[3]))
        flat = pooled.transpose(1, 0, 2, 3).reshape(n, -1)
        loss, dlogits = softmax_cross_entropy(flat @ w + b, y)
        dw, db = flat.T @ dlogits, dlogits.sum(0)
        dpooled = (dlogits @ w.T).reshape(n, channels, height // 2, width // 2)
        dpooled = dpooled.transpose(1, 0, 2, 3)
        # ReLU's gradient is folded in: the chosen position passes it only when pooled > 0.
        open_ = pooled > 0
        dpre = np.empty((channels, n, height, width), x.dtype)
        for k, (i, j) in enumerate(((0, 0), (0, 1), (1, 0), (1, 1))):
            chosen = open_ & (corners[k] == pooled)
            open_ &= ~chosen
            np.multiply(dpooled, chosen, out=dpre[:, :, i::2, j::2])
        dpre = dpre.reshape(channels, -1)
        dkernel = (dpre @ cols.T).reshape(kernel.shape)
        dbias = dpre.sum(1).reshape(bias.shape)
        return loss, [dkernel, dbias, dw, db]
