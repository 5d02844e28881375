"""A GPT-2 GGUF file (llama.cpp's format), read with the `gguf` package, and the path into a block's
attention: token + position embeddings, earlier blocks, the block's ln_1.

The `gguf` package (llama.cpp's own reader, the `gguf` extra) gives each tensor in NumPy order,
`ne` reversed, dequantizing Q8_0 and the like to float32. llama.cpp's converter stores GPT-2's Conv1D
weights transposed (`blk.N.attn_qkv.weight` is [3D, D], as `ggml_mul_mat(w, x)` = x wᵀ wants), so
they are transposed back here into the `c_attn.weight [D, 3D]` layout of step 7.
"""
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ARCH = "gpt2"


class GgufError(ValueError):
    """The file is not a GPT-2 GGUF this command can read; the message says what is missing."""


@dataclass(frozen=True)
class Gpt2Gguf:
    path: Path
    n_embd: int  # D
    n_head: int
    n_layer: int
    n_ctx: int  # positions the position embedding covers
    eps: float  # LayerNorm epsilon
    tokens: tuple  # token texts in GPT-2's byte alphabet, by id
    merges: tuple  # "a b" merge rules, best first
    _tensors: dict  # name -> gguf ReaderTensor

    def tensor(self, name):
        """Tensor `name` as a float64 NumPy array (GGML's `ne` reversed)."""
        from gguf.quants import dequantize

        if name not in self._tensors:
            raise GgufError(f"{self.path}: no tensor {name!r} (a GPT-2 GGUF has e.g. blk.0.attn_qkv.weight)")
        found = self._tensors[name]
        return dequantize(found.data, found.tensor_type).astype(np.float64)


def _field(reader, path, key, kind=None):
    field = reader.get_field(key)
    if field is None:
        raise GgufError(f"{path}: metadata {key!r} is missing (is this a GPT-2 GGUF?)")
    value = field.contents()
    return kind(value) if kind else value


def open_gpt2(path):
    """Read a GPT-2 GGUF's metadata and tensor index; GgufError for another architecture or a bad file."""
    try:
        from gguf import GGUFReader
    except ImportError:
        raise SystemExit("attnkit gguf needs the gguf package: pip install -e \".[gguf]\"") from None
    path = Path(path)
    try:
        reader = GGUFReader(path)
    except (OSError, ValueError) as err:
        raise GgufError(f"{path}: cannot be read as GGUF: {err}") from err
    arch = _field(reader, path, "general.architecture")
    if arch != ARCH:
        raise GgufError(f"{path}: architecture {arch!r}, but this command runs GPT-2 ({ARCH!r}) only")
    n_embd = _field(reader, path, f"{ARCH}.embedding_length", int)
    n_head = _field(reader, path, f"{ARCH}.attention.head_count", int)
    if n_head < 1 or n_embd % n_head:
        raise GgufError(f"{path}: embedding length {n_embd} does not split into {n_head} heads")
    return Gpt2Gguf(
        path=path, n_embd=n_embd, n_head=n_head,
        n_layer=_field(reader, path, f"{ARCH}.block_count", int),
        n_ctx=_field(reader, path, f"{ARCH}.context_length", int),
        eps=_field(reader, path, f"{ARCH}.attention.layer_norm_epsilon", float),
        tokens=tuple(_field(reader, path, "tokenizer.ggml.tokens")),
        merges=tuple(_field(reader, path, "tokenizer.ggml.merges")),
        _tensors={t.name: t for t in reader.tensors},
    )


@dataclass(frozen=True)
class Block:
    """One block's weights in GPT-2's (Hugging Face) layout: Conv1D weights [in, out]."""
    ln_1: tuple  # (weight [D], bias [D])
    c_attn_weight: np.ndarray  # [D, 3D]
    c_attn_bias: np.ndarray  # [3D]
    c_proj_weight: np.ndarray  # [D, D]
    c_proj_bias: np.ndarray  # [D]
    ln_2: tuple  # (weight [D], bias [D])
    mlp: tuple  # (c_fc weight [D, 4D], bias [4D], c_proj weight [4D, D], bias [D])


def block(model, layer):
    """Block `layer`'s weights; GgufError when the file has fewer blocks."""
    if not 0 <= layer < model.n_layer:
        raise GgufError(f"--layer {layer}: the file has blocks 0 … {model.n_layer - 1}")

    def t(part):
        return model.tensor(f"blk.{layer}.{part}")

    return Block(
        ln_1=(t("attn_norm.weight"), t("attn_norm.bias")),
        c_attn_weight=t("attn_qkv.weight").T, c_attn_bias=t("attn_qkv.bias"),
        c_proj_weight=t("attn_output.weight").T, c_proj_bias=t("attn_output.bias"),
        ln_2=(t("ffn_norm.weight"), t("ffn_norm.bias")),
        mlp=(t("ffn_up.weight").T, t("ffn_up.bias"), t("ffn_down.weight").T, t("ffn_down.bias")),
    )


def layer_norm(x, weight, bias, eps):
    """GPT-2's LayerNorm over the last axis: x [T, D] -> [T, D]."""
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / np.sqrt((centred ** 2).mean(axis=-1, keepdims=True) + eps) * weight + bias


def gelu(x):
    """GPT-2's GELU (the tanh form, as Hugging Face's gelu_new and ggml_gelu)."""
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def embed(model, ids):
    """x_0 [T, D]: token embeddings plus position embeddings of positions 0 … T-1."""
    ids = np.asarray(ids, dtype=np.int64)
    vocab = model.tensor("token_embd.weight")
    if ids.ndim != 1 or not len(ids) or ids.min() < 0 or ids.max() >= len(vocab):
        raise GgufError(f"token ids must be 0 … {len(vocab) - 1}, got {ids.tolist()}")
    if len(ids) > model.n_ctx:
        raise GgufError(f"{len(ids)} tokens, but the model has {model.n_ctx} positions")
    return vocab[ids] + model.tensor("position_embd.weight")[: len(ids)]


def attention_input(model, ids, layer, attention_layer):
    """(Z [T, D], the block): the LayerNorm output entering block `layer`'s attention.

    Blocks before it run in full — attention through `attention_layer` (step 7's gpt2_attention,
    whose result has `.out [T, D]`), then the MLP — each added to the residual stream.
    """
    x = embed(model, ids)
    for k in range(layer):
        earlier = block(model, k)
        x = x + _attend(model, earlier, layer_norm(x, *earlier.ln_1, model.eps), attention_layer).out
        up_w, up_b, down_w, down_b = earlier.mlp
        x = x + gelu(layer_norm(x, *earlier.ln_2, model.eps) @ up_w + up_b) @ down_w + down_b
    this = block(model, layer)
    return layer_norm(x, *this.ln_1, model.eps), this


def _attend(model, weights, Z, attention_layer):
    return attention_layer(Z, weights.c_attn_weight, weights.c_attn_bias, weights.c_proj_weight,
                           weights.c_proj_bias, model.n_head)


def run_layer(model, ids, layer, attention_layer):
    """Block `layer`'s attention trace (whatever `attention_layer` returns) on token ids `ids`."""
    Z, weights = attention_input(model, ids, layer, attention_layer)
    return _attend(model, weights, Z, attention_layer)
