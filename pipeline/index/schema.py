"""Collection schemas (``pipeline/schemas/*.json``, linked as ``schemas/``); the records
stored in them are ``records.DocumentRecord`` and ``records.ChunkRecord``."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

CHUNKS = "folio_chunks"
DOCUMENTS = "folio_documents"
META = "folio_meta"  # the library's generation (index.generation)
INT32_MAX = 2**31 - 1


@cache
def schema(name: str) -> dict[str, Any]:
    text = resources.files("pipeline").joinpath("schemas", f"{name}.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def int32_fields(name: str) -> frozenset[str]:
    return frozenset(f["name"] for f in schema(name)["fields"] if f["type"] == "int32")


def check_ranges(doc: dict[str, Any], name: str) -> str | None:
    """Typesense 0.24 silently truncates int32 overflow: refuse such values here."""
    for key in int32_fields(name):
        value = doc.get(key)
        if isinstance(value, int) and not -INT32_MAX - 1 <= value <= INT32_MAX:
            return f"field {key} = {value} does not fit int32"
    return None
