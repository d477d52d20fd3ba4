"""Collections made by an older Folio gain the fields added since, in place."""

from __future__ import annotations

import shutil
from pathlib import Path

from pipeline import make_config
from pipeline.index.filters import Filters
from pipeline.index.schema import CHUNKS, DOCUMENTS, schema
from pipeline.index.store import Store
from pipeline.ingest import IngestOptions, ingest
from pipeline.retrieve.search import search

from .test_ingest import FIXTURES, expected_docs


def test_missing_fields_are_added_to_existing_collections(store: Store) -> None:
    for name in (CHUNKS, DOCUMENTS):
        old = dict(schema(name))
        old["name"] = f"{name}_v1"
        old["fields"] = [f for f in old["fields"] if f["name"] not in ("embedding", "page_map")]
        store.client.collections.create(old)
        store.client.aliases.upsert(name, {"collection_name": f"{name}_v1"})
    assert store.ensure_collections() == set()
    for name in (CHUNKS, DOCUMENTS):
        fields = {f["name"]: f for f in store.client.collections[f"{name}_v1"].retrieve()["fields"]}
        assert set(fields) == {f["name"] for f in schema(name)["fields"]}
    assert fields_of(store, CHUNKS)["embedding"]["num_dim"] == 384


def fields_of(store: Store, name: str) -> dict[str, dict[str, object]]:
    info = store.client.collections[f"{name}_v1"].retrieve()
    return {str(f["name"]): f for f in info["fields"]}


# Chunk fields no query of Folio's searches, filters, sorts or facets by: stored and
# returned, but not indexed (Typesense's indexing of them was CPU an ingest paid for).
STORED_ONLY = {
    "breadcrumb", "table_columns", "table_headers", "est_tokens", "char_start", "char_end",
    "line_start", "line_end", "block_start", "block_end", "prefix_chars", "suffix_chars",
}  # fmt: skip


def test_fields_no_query_uses_are_stored_but_not_indexed(store: Store, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    shutil.copy(FIXTURES / "golden" / "rust-ownership.md", lib / "ownership.md")
    ingest([str(lib)], make_config(), store, IngestOptions(workers=1))
    fields = fields_of(store, CHUNKS)
    assert {name for name, f in fields.items() if not f["index"]} == STORED_ONLY | {"frontmatter"}
    # What a hit shows comes back as it was stored, and the search that finds it (its
    # words, a filter by tier, the highlight of ``text``) works on the lighter schema.
    docs = {d["id"]: d for d in store.export(CHUNKS)}
    want = expected_docs([lib / "ownership.md"])
    assert docs == want
    found = search(store, "ownership rules", Filters(tier="snippet"))
    assert found.hits and "<mark>" in found.hits[0].highlight
    for hit in found.hits:
        doc = want[hit.id]
        assert (list(hit.breadcrumb), hit.char_start, hit.char_end) == (
            doc["breadcrumb"], doc["char_start"], doc["char_end"],
        )  # fmt: skip
