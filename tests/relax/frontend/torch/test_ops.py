"""Each ATen op translation against PyTorch's own output, on the reference evaluator and
compiled with LLVM.

To keep the file fast, the ops of a family are exercised by one module that returns every
result (one export, one import, one compilation per family); each result is compared on
its own and named in the failure message. Shapes are odd-sized on purpose.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional


def _rand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(*shape, generator=g)


class Elementwise(torch.nn.Module):
    NAMES = (
        "add",
        "sub_alpha",
        "mul",
        "div",
        "add_scalar",
        "rsub",
        "pow2",
        "pow_tensor",
        "maximum",
        "minimum",
        "eq",
        "lt",
        "ge_scalar",
        "ne",
        "logical_and",
        "logical_not",
        "where",
        "masked_fill",
        "clamp",
        "relu",
        "sigmoid",
        "tanh",
        "exp",
        "log",
        "sqrt",
        "rsqrt",
        "neg",
        "abs",
        "erf",
        "floor",
        "ceil",
        "int_mul",
        "int_floordiv",
        "int_mod",
        "int_to_float",
        "bool_to_int",
        "sin",
        "cos",
        "reciprocal",
        "div_floor",
        "div_trunc",
    )

    def forward(self, a, b, i):
        return (
            a + b,
            torch.sub(a, b, alpha=2),
            a * b,
            a / (b.abs() + 1),
            a + 1.5,
            2 - a,
            a**2,
            torch.pow(a.abs() + 1, b),
            torch.maximum(a, b),
            torch.minimum(a, b),
            a == b,
            a < b,
            a >= 0.5,
            a != b,
            torch.logical_and(a > 0, b > 0),
            torch.logical_not(a > 0),
            torch.where(a > 0, a, b),
            a.masked_fill(b > 0, -1.0),
            torch.clamp(a, -0.5, 0.5),
            torch.relu(a),
            torch.sigmoid(a),
            torch.tanh(a),
            torch.exp(a),
            torch.log(a.abs() + 1),
            torch.sqrt(a.abs()),
            torch.rsqrt(a.abs() + 1),
            -a,
            torch.abs(a),
            torch.erf(a),
            torch.floor(a * 3),
            torch.ceil(a * 3),
            i * 2,
            i // 3,
            i % 3,
            i.float() * 0.5,
            (i > 2).int(),
            torch.sin(a),
            torch.cos(a),
            torch.reciprocal(a.abs() + 1),
            torch.div(a * 4, b.abs() + 1, rounding_mode="floor"),
            torch.div(a * 4, b.abs() + 1, rounding_mode="trunc"),
        )


def test_elementwise_and_comparisons(torch_check):
    args = (_rand(3, 5, 7), _rand(5, 7, seed=1), torch.randint(-9, 9, (3, 5, 7)))
    torch_check.check(Elementwise(), args, names=Elementwise.NAMES)


class Reductions(torch.nn.Module):
    NAMES = (
        "sum_dim",
        "mean_keepdim",
        "amax",
        "max_values",
        "max_indices",
        "argmax",
        "argmin",
        "sum_all",
        "mean_all",
        "var_unbiased",
        "std_biased",
        "cumsum",
        "prod",
        "any",
        "all",
        "min_all",
        "sum_int",
    )

    def forward(self, a, i):
        values, indices = a.max(dim=1)
        return (
            a.sum(dim=(0, 2)),
            a.mean(dim=-1, keepdim=True),
            a.amax(dim=0),
            values,
            indices,
            a.argmax(dim=2),
            a.argmin(dim=1, keepdim=True),
            a.sum(),
            a.mean(),
            a.var(dim=1),
            a.std(dim=(0, 2), unbiased=False),
            a.cumsum(dim=1),
            (a * 0.5 + 1).prod(dim=2),
            (a > 1).any(dim=1),
            (a > -2).all(dim=2),
            a.min(),
            i.sum(dim=0),
        )


def test_reductions(torch_check):
    args = (_rand(3, 5, 7), torch.randint(-9, 9, (3, 5)))
    torch_check.check(Reductions(), args, names=Reductions.NAMES, atol=2e-5)


class Activations(torch.nn.Module):
    NAMES = (
        "softmax",
        "log_softmax",
        "gelu",
        "gelu_tanh",
        "silu",
        "leaky_relu",
        "relu6",
        "hardtanh",
        "elu",
        "softplus",
        "hardswish",
        "hardsigmoid",
        "dropout_eval",
    )

    def __init__(self):
        super().__init__()
        self.drop = torch.nn.Dropout(0.3)

    def forward(self, a):
        return (
            F.softmax(a, dim=1),
            F.log_softmax(a, dim=-1),
            F.gelu(a),
            F.gelu(a, approximate="tanh"),
            F.silu(a),
            F.leaky_relu(a, 0.2),
            F.relu6(a * 4),
            F.hardtanh(a, -0.3, 0.7),
            F.elu(a),
            F.softplus(a),
            F.hardswish(a * 4),
            F.hardsigmoid(a * 4),
            self.drop(a),
        )


def test_activations(torch_check):
    torch_check.check(Activations(), (_rand(3, 5, 7),), names=Activations.NAMES)


class LinearAlgebra(torch.nn.Module):
    NAMES = ("linear", "linear_nobias", "mm", "bmm", "matmul_broadcast", "addmm", "embedding")

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(7, 5)
        self.emb = torch.nn.Embedding(11, 6)

    def forward(self, a, m, b3, ids):
        return (
            self.fc(a),
            F.linear(a, self.fc.weight),
            m @ m.T,
            torch.bmm(b3, b3.transpose(1, 2)),
            torch.matmul(a, m.T[:7, :3]),
            torch.addmm(m[:, :3], m, m.T[:, :3], beta=0.5, alpha=2),
            self.emb(ids),
        )


def test_linear_algebra_and_embedding(torch_check):
    args = (_rand(3, 9, 7), _rand(9, 9), _rand(2, 5, 3), torch.randint(0, 11, (3, 4)))
    torch_check.check(LinearAlgebra(), args, names=LinearAlgebra.NAMES, atol=1e-4, rtol=1e-4)


class Attention(torch.nn.Module):
    NAMES = ("sdpa", "sdpa_causal", "sdpa_bool_mask", "sdpa_float_mask_scale")

    def forward(self, q, k, v, mask):
        return (
            F.scaled_dot_product_attention(q, k, v),
            F.scaled_dot_product_attention(q, k, v, is_causal=True),
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask > 0),
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=0.3),
        )


@pytest.mark.parametrize("decompose", [True, False], ids=["core_aten", "sdpa_op"])
def test_scaled_dot_product_attention(torch_check, decompose):
    q, k, v = _rand(2, 3, 5, 4), _rand(2, 3, 5, 4, seed=1), _rand(2, 3, 5, 4, seed=2)
    mask = _rand(5, 5, seed=3)
    mask[:, 0] = 1.0  # every row attends somewhere under the boolean mask
    torch_check.check(
        Attention(),
        (q, k, v, mask),
        names=Attention.NAMES,
        atol=1e-5,
        run_ep_decomposition=decompose,
        evaluator=decompose,
    )


class Shapes(torch.nn.Module):
    NAMES = (
        "view",
        "reshape",
        "permute",
        "transpose",
        "flatten",
        "cat",
        "stack",
        "split0",
        "split1",
        "chunk0",
        "chunk2",
        "slice_step",
        "select_neg",
        "index_tensor",
        "index_two",
        "gather",
        "unsqueeze",
        "squeeze",
        "expand",
        "flip",
        "tril",
        "triu",
        "repeat",
        "arange",
        "full",
        "zeros_like",
        "index_select",
        "pad",
        "to_int",
        "contiguous_t",
    )

    def forward(self, a, idx, gidx):
        s = a.split(2, dim=1)
        c = a.chunk(3, dim=2)
        return (
            a.view(3, 35),
            a.reshape(-1, 7),
            a.permute(2, 0, 1),
            a.transpose(0, 2),
            a.flatten(1),
            torch.cat([a, a * 2], dim=1),
            torch.stack([a, -a], dim=1),
            s[0],
            s[2],
            c[0],
            c[2],
            a[:, 1::2, :6],
            a[:, -1],
            a[:, idx],
            a[idx[:2] % 3, idx[1:3]],
            torch.gather(a, 2, gidx),
            a.unsqueeze(1),
            a[:, :1].squeeze(1),
            a[:, :1].expand(3, 4, 7),
            a.flip(2),
            a[0].tril(),
            a[1].triu(1),
            a[:, :2].repeat(1, 2, 1),
            torch.arange(2, 11, 3),
            torch.full((2, 3), 1.5),
            torch.zeros_like(a),
            a.index_select(1, idx),
            F.pad(a, (1, 2, 0, 1)),
            a.to(torch.int32),
            a[0].t().contiguous(),
        )


def test_shapes_indexing_creation(torch_check):
    idx = torch.tensor([4, 0, 2, 2])
    gidx = torch.randint(0, 7, (3, 5, 4))
    torch_check.check(Shapes(), (_rand(3, 5, 7), idx, gidx), names=Shapes.NAMES)


class ConvPool(torch.nn.Module):
    NAMES = (
        "conv1d",
        "conv2d",
        "conv2d_groups_dilation",
        "conv_transpose1d",
        "conv_transpose2d",
        "max_pool1d",
        "max_pool2d_ceil",
        "avg_pool1d",
        "avg_pool2d_pad",
        "adaptive_avg_pool2d",
        "adaptive_avg_pool1d",
        "adaptive_max_pool2d",
    )

    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv1d(3, 4, 3, stride=2, padding=1)
        self.c2 = torch.nn.Conv2d(3, 5, 3, padding=1)
        self.c2g = torch.nn.Conv2d(4, 6, 3, stride=2, dilation=2, groups=2, bias=False)
        self.t1 = torch.nn.ConvTranspose1d(3, 2, 3, stride=2, padding=1, output_padding=1)
        self.t2 = torch.nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1)

    def forward(self, x1, x2, x4):
        return (
            self.c1(x1),
            self.c2(x2),
            self.c2g(x4),
            self.t1(x1),
            self.t2(x2),
            F.max_pool1d(x1, 3, 2),
            F.max_pool2d(x2, 2, ceil_mode=True),
            F.avg_pool1d(x1, 2),
            F.avg_pool2d(x2, 3, 2, padding=1),
            F.adaptive_avg_pool2d(x2, (3, 2)),
            F.adaptive_avg_pool1d(x1, 4),
            F.adaptive_max_pool2d(x4[:, :, :6, :6], 3),
        )


def test_conv_and_pooling(torch_check):
    args = (_rand(2, 3, 9), _rand(2, 3, 7, 9, seed=1), _rand(2, 4, 9, 11, seed=2))
    torch_check.check(ConvPool(), args, names=ConvPool.NAMES, atol=1e-5, rtol=1e-4)


class Norms(torch.nn.Module):
    NAMES = ("batch_norm", "batch_norm_1d", "layer_norm", "layer_norm_2d_noaffine", "group_norm")

    def __init__(self):
        super().__init__()
        self.bn = torch.nn.BatchNorm2d(4)
        self.bn1 = torch.nn.BatchNorm1d(4)
        self.ln = torch.nn.LayerNorm(7)
        self.gn = torch.nn.GroupNorm(2, 4)
        with torch.no_grad():
            for bn in (self.bn, self.bn1):
                bn.running_mean.copy_(torch.randn(4))
                bn.running_var.copy_(torch.rand(4) + 0.5)
                bn.weight.copy_(torch.randn(4))

    def forward(self, x):
        return (
            self.bn(x),
            self.bn1(x[:, :, 0]),
            self.ln(x),
            F.layer_norm(x, (5, 7)),
            self.gn(x),
        )


def test_normalization(torch_check):
    torch_check.check(Norms(), (_rand(3, 4, 5, 7),), names=Norms.NAMES, atol=1e-5, rtol=1e-4)


def test_linear_on_a_non_contiguous_input_is_one_2d_matmul(torch_check):
    # torch decomposes linear on a transposed 3-D input into expand(W) + bmm; the import
    # makes it one (batch * rows) x K by K x N product instead (no copies of W).
    class Proj(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = torch.nn.Linear(12, 5)

        def forward(self, y):
            b, h, t, d = y.shape
            return self.proj(y.transpose(1, 2).reshape(b, t, h * d))

    y = torch.randn(3, 2, 7, 6)
    mod = torch_check.check(Proj(), [y])
    text = mod.script()
    assert "R.broadcast_to" not in text
    assert "R.matmul" in text and "R.Tensor((21, 5)" in text


@pytest.mark.parametrize("decompose", [True, False])
def test_conv_padding_same_and_valid(torch_check, decompose):
    # Without decomposition the graph has aten.conv{1,2}d.padding with the string; an even
    # kernel pads one more on the right (torch's rule), dilation included.
    class Convs(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Conv2d(3, 4, 3, padding="same")
            self.b = torch.nn.Conv2d(4, 2, (2, 5), padding="same", dilation=(2, 1))
            self.c = torch.nn.Conv1d(3, 2, 4, padding="same")
            self.d = torch.nn.Conv2d(2, 2, 3, padding="valid")

        def forward(self, x, s):
            return self.d(self.b(self.a(x))), self.c(s)

    args = [torch.randn(2, 3, 9, 10), torch.randn(2, 3, 11)]
    torch_check.check(Convs(), args, run_ep_decomposition=decompose)



@pytest.mark.parametrize("decompose", [True, False])
def test_pooling_3d(torch_check, decompose):
    F = torch.nn.functional

    class Pools(torch.nn.Module):
        def forward(self, x):
            return (
                F.max_pool3d(x, 2),
                F.max_pool3d(x, (3, 2, 2), stride=(1, 2, 1), padding=(1, 0, 1)),
                F.avg_pool3d(x, 2, stride=1, padding=1, count_include_pad=False),
                F.adaptive_avg_pool3d(x, (2, 3, 1)),
            )

    torch_check.check(Pools(), [torch.randn(2, 3, 4, 6, 7)], run_ep_decomposition=decompose)
