"""A change of the dense model through real `folio` processes and a real server: ingest
embeds the library again and says so, the vector field follows a new width (and `folio
reindex` keeps it), and until then retrieval refuses to compare a question's vector with
another model's.

The models are random BERTs made here (tests/test_embed.py): A and C 384 wide with mean
pooling, B 48 wide with CLS pooling and query/passage prompts, as a sentence-transformers
folder lays them out."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pipeline.index.schema import CHUNKS
from pipeline.index.store import Store
from tests.helpers import folio
from tests.test_embed import make_tiny_model

pytest.importorskip("onnxruntime")

TEXTS = {
    "cats.md": "# Cats\n\n## Mats\n\nThe cat sat on the mat. " * 30,
    "dogs.md": "# Dogs\n\n## Runs\n\nThe big dog ran. Small dogs ran. " * 30,
}


def as_sentence_transformers(directory: Path, pooling: str, prompts: dict[str, str]) -> Path:
    """``directory`` with the files sentence-transformers 5+ writes beside the weights."""
    kinds = {"": "Transformer", "1_Pooling": "Pooling", "2_Normalize": "Normalize"}
    modules = [
        {"idx": i, "name": str(i), "path": path, "type": f"sentence_transformers.models.{kind}"}
        for i, (path, kind) in enumerate(kinds.items())
    ]
    (directory / "modules.json").write_text(json.dumps(modules))
    hidden = json.loads((directory / "config.json").read_text())["hidden_size"]
    pool = {"embedding_dimension": hidden, "pooling_mode": pooling, "include_prompt": True}
    (directory / "1_Pooling" / "config.json").write_text(json.dumps(pool))
    (directory / "2_Normalize").mkdir(exist_ok=True)
    st = {"prompts": prompts, "default_prompt_name": None, "similarity_fn_name": "cosine"}
    (directory / "config_sentence_transformers.json").write_text(json.dumps(st))
    return directory


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("models")
    b = make_tiny_model(root / "b", seed=2, hidden=48)
    return {
        "a": make_tiny_model(root / "a", seed=0, hidden=384),
        "b": as_sentence_transformers(b, "cls", {"query": "the ", "document": "on "}),
        "c": make_tiny_model(root / "c", seed=1, hidden=384),
    }


def run(env: dict[str, str], *args: str, ok: bool = True) -> Any:
    done = folio(env, *args, timeout=300)
    if ok:
        assert done.returncode == 0, done.stderr[-3000:]
    return done


def snippets(store: Store) -> list[dict[str, Any]]:
    return [d for d in store.export(CHUNKS) if d["tier"] == "snippet"]


def test_a_model_change_embeds_again_and_retrieval_never_mixes_models(
    models: dict[str, Path], store: Store, folio_env: Path, tmp_path: Path
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    for name, text in TEXTS.items():
        (lib / name).write_text(text)
    env = {name: {**os.environ, "FOLIO_EMBED_MODEL": str(path)} for name, path in models.items()}
    ingest = ("ingest", str(lib), "--workers", "1")
    question = ("retrieve", "the big dog ran", "--budget", "400")

    first = json.loads(run(env["a"], *ingest, "--json").stdout)
    assert first["embedder"].startswith("bert-") and first["model_change"] == ""
    stored = snippets(store)
    assert {d["embedder"] for d in stored} == {first["embedder"]} and len(stored) > 0

    # C has A's width: a question of C against A's vectors is refused, not ranked.
    refused = run(env["c"], *question, "--mode", "dense", ok=False)
    assert refused.returncode != 0 and "no snippet has a vector of bert-" in refused.stderr
    hybrid = json.loads(run(env["c"], *question, "--json").stdout)
    assert hybrid["mode"] == "hybrid"
    assert f"{len(stored)} of {len(stored)} snippets have no vector" in hybrid["note"]
    said = " ".join(run(env["c"], *ingest).stderr.split())  # the terminal's lines joined
    assert (
        f"the dense model changed: the library held vectors of {len(stored)} snippets of "
        f"{first['embedder']}; every snippet is embedded again with bert-"
    ) in said
    after_c = snippets(store)
    assert {len(d["embedding"]) for d in after_c} == {384}
    assert (
        len({d["embedder"] for d in after_c}) == 1 and after_c[0]["embedder"] != first["embedder"]
    )
    assert json.loads(run(env["c"], *question, "--mode", "dense", "--json").stdout)["items"]

    # B is 48 wide: the library's field is 384 until an ingest with B rebuilds it.
    wide = run(env["b"], *question, "--mode", "dense", ok=False)
    assert wide.returncode != 0 and "384 dimensions" in wide.stderr and "makes 48" in wide.stderr
    fallback = json.loads(run(env["b"], *question, "--json").stdout)
    assert fallback["mode"] == "lexical" and "384 dimensions" in fallback["note"]
    third = json.loads(run(env["b"], *ingest, "--json").stdout)
    assert "384 dimensions, now 48" in third["model_change"]
    assert third["embedded"] == len(after_c) and sorted(third["unchanged"]) == sorted(
        str(lib / n) for n in TEXTS
    )
    assert third["seconds"]["extract"] == 0  # embedded from the stored text, not re-read
    after_b = snippets(store)
    assert store.vector_width() == 48 and len(after_b) == len(stored)
    assert {len(d["embedding"]) for d in after_b} == {48}
    assert {d["embedder"] for d in after_b} == {third["embedder"]}
    dense = json.loads(run(env["b"], *question, "--mode", "dense", "--json").stdout)
    assert dense["mode"] == "dense" and dense["items"] and dense["note"] == ""
    again = json.loads(run(env["b"], *ingest, "--json").stdout)
    assert again["embedded"] == 0 and again["model_change"] == ""
    run(env["b"], "reindex")  # a new version of the collection keeps the library's width
    assert store.vector_width() == 48 and snippets(store) == after_b
