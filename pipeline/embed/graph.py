"""The BERT encoder plus pooling (mean, CLS or max) and L2 normalisation as an ONNX graph,
from numpy weights.

Plain ONNX operators only (opset 17, which has LayerNormalization). The node pattern follows
what PyTorch exports for Hugging Face's BertModel, so that onnxruntime's transformer optimizer
recognises it and can fuse attention, skip-LayerNorm and GELU into its contrib operators.

Inputs ``input_ids`` and ``attention_mask`` are int64 ``[batch, seq]``; token type ids are
always 0 for single texts, so that row of the token-type table is a constant added in. The
output ``embedding`` is float32 ``[batch, hidden]`` with unit-length rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .folder import Pooling
from .model import BertConfig

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import onnx

    from .model import Weights

OPSET = 17
INPUTS = ("input_ids", "attention_mask")
OUTPUT = "embedding"
# Additive mask for padded keys: what BERT used in training (-10000), not -inf, so a row
# that is all padding still gives finite numbers.
MASK_NEGATIVE = -10000.0
KEEP_FLOAT = "keep_float/"  # name prefix of MatMuls that quantisation must leave alone


@dataclass
class _Graph:
    """Collects nodes and initializers, naming every intermediate uniquely."""

    nodes: list[Any] = field(default_factory=list)
    inits: dict[str, Any] = field(default_factory=dict)
    count: int = 0

    def op(self, op_type: str, *inputs: str, prefix: str = "", **attrs: Any) -> str:
        from onnx import helper

        self.count += 1
        out = f"{prefix}{op_type.lower()}_{self.count}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], name=out, **attrs))
        return out

    def const(self, name: str, array: npt.NDArray[Any]) -> str:
        """An initializer; shared constants (reshape shapes, scales) are stored once."""
        from onnx import numpy_helper

        if name not in self.inits:
            self.inits[name] = numpy_helper.from_array(array, name)
        return name


def build_graph(
    config: BertConfig,
    weights: Weights,
    outlier_ratio: float | None = None,
    pooling: Pooling = "mean",
) -> onnx.ModelProto:
    """The whole model: embeddings, ``config.num_layers`` encoder layers, ``pooling``.

    With ``outlier_ratio``, FFN channels whose output weights peak at that many times the
    median channel's are computed on a side path of MatMuls named ``KEEP_FLOAT...`` (see
    ``_ffn``), as is any attention output projection with such weights; the result is the
    same, but int8 quantisation leaves those MatMuls in float.
    """
    from onnx import TensorProto, helper

    g = _Graph()
    x = _embeddings(g, config, weights)
    mask_bias = _mask_bias(g)
    for i in range(config.num_layers):  # attention, then the FFN, each added and normed
        pre = f"encoder.layer.{i}."
        attended = _attention(g, config, weights, pre + "attention.", x, mask_bias, outlier_ratio)
        x = _layer_norm(g, config, weights, pre + "attention.output.LayerNorm.", attended, x)
        out = _ffn(g, weights, pre, x, outlier_ratio)
        x = _layer_norm(g, config, weights, pre + "output.LayerNorm.", out, x)
    pooled = _normalize(g, POOLINGS[pooling](g, x))
    g.nodes.append(helper.make_node("Identity", [pooled], [OUTPUT], name=OUTPUT))
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"]) for n in INPUTS]
    output = helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", config.hidden_size])
    graph = helper.make_graph(g.nodes, f"bert_{pooling}", inputs, [output], list(g.inits.values()))
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="folio"
    )
    model.ir_version = 8  # what onnxruntime 1.17 reads; newer readers accept it too
    return model


def _f32(array: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    import numpy as np

    return np.ascontiguousarray(array, dtype=np.float32)


def _embeddings(g: _Graph, config: BertConfig, w: Weights) -> str:
    import numpy as np

    pre = "embeddings."
    word = g.const("word_embeddings", _f32(w[pre + "word_embeddings.weight"]))
    # Token type 0 for every position: fold that row into the position table.
    pos_table = w[pre + "position_embeddings.weight"] + w[pre + "token_type_embeddings.weight"][0]
    positions = g.const("position_embeddings", _f32(pos_table))
    seq_len = g.op(
        "Slice",
        g.op("Shape", INPUTS[0]),
        g.const("one_1d", np.array([1], np.int64)),
        g.const("two_1d", np.array([2], np.int64)),
    )
    pos_ids = g.op(
        "Range",
        g.const("zero", np.array(0, np.int64)),
        g.op("Squeeze", seq_len, g.const("zero_1d", np.array([0], np.int64))),
        g.const("one", np.array(1, np.int64)),
    )
    summed = g.op("Add", g.op("Gather", word, INPUTS[0]), g.op("Gather", positions, pos_ids))
    return _layer_norm(g, config, w, pre + "LayerNorm.", summed)


def _layer_norm(
    g: _Graph, config: BertConfig, w: Weights, pre: str, x: str, residual: str = ""
) -> str:
    """LayerNorm of ``x`` (plus ``residual``, when given)."""
    if residual:
        x = g.op("Add", x, residual)
    gamma = g.const(pre + "weight", _f32(w[pre + "weight"]))
    beta = g.const(pre + "bias", _f32(w[pre + "bias"]))
    return g.op("LayerNormalization", x, gamma, beta, axis=-1, epsilon=config.layer_norm_eps)


def _mask_bias(g: _Graph) -> str:
    """``[batch, 1, 1, seq]``: 0 where a key is a token, MASK_NEGATIVE where it is padding."""
    import numpy as np

    # Unsqueeze twice, then Cast: the order PyTorch exports and the optimizer's fusion expects.
    mask = g.op("Unsqueeze", INPUTS[1], g.const("axes_1", np.array([1], np.int64)))
    mask = g.op("Unsqueeze", mask, g.const("axes_2", np.array([2], np.int64)))
    mask = g.op("Cast", mask, to=1)  # to float
    inverted = g.op("Sub", g.const("one_f", np.array(1.0, np.float32)), mask)
    return g.op("Mul", inverted, g.const("mask_negative", np.array(MASK_NEGATIVE, np.float32)))


def _dense(g: _Graph, w: Weights, pre: str, x: str, prefix: str = "") -> str:
    """``x @ W.T + b`` with W stored transposed, as MatMul wants it."""
    weight = g.const(pre + "weight", _f32(w[pre + "weight"].T))
    bias = g.const(pre + "bias", _f32(w[pre + "bias"]))
    return g.op("Add", g.op("MatMul", x, weight, prefix=prefix), bias)


def outlier_channels(w: Weights, pre: str, ratio: float) -> list[int]:
    """FFN channels whose output-weight row peaks at ``ratio`` times the median row's peak.

    BERT's residual stream has a few outlier dimensions; each is written by one or two FFN
    channels with both huge activations (up to ~25) and huge weights (up to ~8 against a
    median of ~0.15). Per-tensor int8 activations and per-column int8 weights then lose
    the other channels' precision: in all-MiniLM-L6-v2 this was most of int8's error.
    """
    import numpy as np

    ratios = _peak_ratios(w[pre + "output.dense.weight"])
    return [int(i) for i in np.flatnonzero(ratios >= ratio)]


def _peak_ratios(weight: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Each input channel's largest weight over the median channel's (torch layout)."""
    import numpy as np

    peaks = np.abs(weight).max(axis=0)
    return peaks / np.median(peaks)  # type: ignore[no-any-return]


def _ffn(g: _Graph, w: Weights, pre: str, x: str, outlier_ratio: float | None) -> str:
    """``W2 gelu(W1 x + b1) + b2``, with any outlier channels on a separate float path."""
    import numpy as np

    w1, b1 = w[pre + "intermediate.dense.weight"], w[pre + "intermediate.dense.bias"]
    w2, b2 = w[pre + "output.dense.weight"], w[pre + "output.dense.bias"]
    split = outlier_channels(w, pre, outlier_ratio) if outlier_ratio else []
    if not split:
        hidden = _gelu(g, _dense(g, w, pre + "intermediate.dense.", x))
        return _dense(g, w, pre + "output.dense.", hidden)
    rest = np.setdiff1d(np.arange(w1.shape[0]), split)
    parts = {
        f"{pre}ffn_main.": (rest, b2, ""),
        f"{pre}ffn_outlier.": (np.array(split), np.zeros_like(b2), KEEP_FLOAT),
    }
    outs = []
    for name, (rows, bias2, keep) in parts.items():
        part = {
            f"{name}in.weight": w1[rows],
            f"{name}in.bias": b1[rows],
            f"{name}out.weight": w2[:, rows],
            f"{name}out.bias": bias2,
        }
        hidden = _gelu(g, _dense(g, part, f"{name}in.", x, keep))
        outs.append(_dense(g, part, f"{name}out.", hidden, keep))
    return g.op("Add", outs[0], outs[1])


def _gelu(g: _Graph, x: str) -> str:
    """The exact (erf) GELU BERT was trained with: ``x * 0.5 * (1 + erf(x / sqrt 2))``."""
    import numpy as np

    scaled = g.op("Div", x, g.const("sqrt_2", np.array(math.sqrt(2.0), np.float32)))
    cdf = g.op("Add", g.op("Erf", scaled), g.const("one_f_gelu", np.array(1.0, np.float32)))
    return g.op("Mul", g.op("Mul", x, cdf), g.const("half", np.array(0.5, np.float32)))


def _attention(
    g: _Graph,
    config: BertConfig,
    w: Weights,
    pre: str,
    x: str,
    mask_bias: str,
    outlier_ratio: float | None,
) -> str:
    import numpy as np

    heads = g.const("split_heads", np.array([0, 0, config.num_heads, config.head_size], np.int64))
    q, k, v = (
        g.op("Reshape", _dense(g, w, f"{pre}self.{n}.", x), heads)
        for n in ("query", "key", "value")
    )
    q = g.op("Transpose", q, perm=[0, 2, 1, 3])
    k = g.op("Transpose", k, perm=[0, 2, 3, 1])
    v = g.op("Transpose", v, perm=[0, 2, 1, 3])
    scale = g.const("attention_scale", np.array(math.sqrt(config.head_size), np.float32))
    scores = g.op("Add", g.op("Div", g.op("MatMul", q, k), scale), mask_bias)
    context = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
    context = g.op("Transpose", context, perm=[0, 2, 1, 3])
    merge = g.const("merge_heads", np.array([0, 0, config.hidden_size], np.int64))
    # Its input is the heads' concatenation, which cannot be split by channel as the FFN's
    # can: a projection with outlier weights stays in float whole (in all-MiniLM only the
    # first layer's, 1/72 of the encoder's multiply-adds).
    outliers = outlier_ratio and _peak_ratios(w[pre + "output.dense.weight"]).max() >= outlier_ratio
    keep = KEEP_FLOAT if outliers else ""
    return _dense(g, w, pre + "output.dense.", g.op("Reshape", context, merge), keep)


def _mean_pool(g: _Graph, x: str) -> str:
    """Mean over real tokens (as sentence-transformers: count clamped at 1e-9)."""
    import numpy as np

    mask = g.op("Cast", INPUTS[1], to=1)
    mask = g.op("Unsqueeze", mask, g.const("axes_2", np.array([2], np.int64)))
    axis1 = g.const("axes_1", np.array([1], np.int64))
    summed = g.op("ReduceSum", g.op("Mul", x, mask), axis1, keepdims=0)
    count = g.op("ReduceSum", mask, axis1, keepdims=0)
    count = g.op("Max", count, g.const("count_floor", np.array(1e-9, np.float32)))
    return g.op("Div", summed, count)


def _cls_pool(g: _Graph, x: str) -> str:
    """The first token's output ([CLS]; padding is on the right)."""
    import numpy as np

    return g.op("Gather", x, g.const("zero", np.array(0, np.int64)), axis=1)


def _max_pool(g: _Graph, x: str) -> str:
    """Maximum over real tokens, padding set to -1e9 first (as sentence-transformers)."""
    import numpy as np

    mask = g.op("Cast", INPUTS[1], to=9)  # to bool
    mask = g.op("Unsqueeze", mask, g.const("axes_2", np.array([2], np.int64)))
    floor = g.const("max_pool_floor", np.array(-1e9, np.float32))
    return g.op("ReduceMax", g.op("Where", mask, x, floor), axes=[1], keepdims=0)


POOLINGS = {"mean": _mean_pool, "cls": _cls_pool, "max": _max_pool}


def _normalize(g: _Graph, pooled: str) -> str:
    """L2 normalisation (as torch's F.normalize: norm clamped at 1e-12). Done for every
    model, with a Normalize module or without: Typesense ranks by cosine, which the
    length does not change, and the embedder promises unit rows."""
    import numpy as np

    norm = g.op("ReduceL2", pooled, axes=[-1], keepdims=1)  # axes an attribute until opset 18
    norm = g.op("Max", norm, g.const("norm_floor", np.array(1e-12, np.float32)))
    return g.op("Div", pooled, norm)
