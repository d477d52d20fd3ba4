"""Collections made by an older Folio gain the fields added since, in place."""

from __future__ import annotations

from pipeline.index.schema import CHUNKS, DOCUMENTS, schema
from pipeline.index.store import Store


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
