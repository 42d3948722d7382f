"""Whole models written with plain ``torch.nn``: import, compile with ``tvm.compile`` and
match PyTorch's forward output to 1e-5 (float32)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional


class MLP(nn.Module):
    def __init__(self, d_in=13, hidden=24, d_out=5):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Linear(hidden, d_out))

    def forward(self, x):
        return self.net(x)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 6, 3, stride=2)
        self.bn2 = nn.BatchNorm2d(6)
        self.fc = nn.Linear(6, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.relu(self.bn2(self.conv2(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class ResBlock(nn.Module):
    def __init__(self, c_in=4, c_out=8):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.down = nn.Sequential(
            nn.Conv2d(c_in, c_out, 1, stride=2, bias=False), nn.BatchNorm2d(c_out)
        )

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + self.down(x))


class GPTBlock(nn.Module):
    """A GPT-style decoder block: pre-norm causal self-attention and a GELU MLP."""

    def __init__(self, vocab=17, d=16, heads=2):
        super().__init__()
        self.heads = heads
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(12, d)
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        b, t = ids.shape
        x = self.tok(ids) + self.pos(torch.arange(t))
        q, k, v = self.qkv(self.ln1(x)).split(x.shape[-1], dim=2)
        shape = (b, t, self.heads, -1)
        q, k, v = (z.reshape(shape).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, -1))
        x = x + self.mlp(self.ln2(x))
        return self.head(x)


def _randomize_bn(model):
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn_like(m.running_mean) * 0.1)
                m.running_var.copy_(torch.rand_like(m.running_var) + 0.5)
    return model


def test_mlp(torch_check):
    torch.manual_seed(0)
    torch_check.check(MLP(), (torch.randn(7, 13),), evaluator=False)


def test_small_cnn_with_batch_norm(torch_check):
    torch.manual_seed(1)
    torch_check.check(_randomize_bn(SmallCNN()), (torch.randn(2, 3, 11, 11),), evaluator=False)


def test_resnet_block(torch_check):
    torch.manual_seed(2)
    torch_check.check(_randomize_bn(ResBlock()), (torch.randn(2, 4, 9, 9),), evaluator=False)


def test_transformer_encoder_layer(torch_check):
    torch.manual_seed(3)
    layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=24, batch_first=True)
    torch_check.check(layer, (torch.randn(2, 7, 16),), evaluator=False)


def test_gpt_decoder_block(torch_check):
    torch.manual_seed(4)
    ids = torch.randint(0, 17, (2, 9))
    torch_check.check(GPTBlock(), (ids,), evaluator=False)
