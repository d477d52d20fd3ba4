"""Collection schemas (``pipeline/schemas/*.json``, linked as ``schemas/``); the records
stored in them are ``records.DocumentRecord`` and ``records.ChunkRecord``."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
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


VECTOR_FIELD = "embedding"
VECTOR_DROPPED = (VECTOR_FIELD, "embedder")  # what a snippet loses with its vector


def schema_with_width(name: str, width: int | None) -> dict[str, Any]:
    """``schema(name)`` with the vector field ``width`` wide (None: as the file says,
    384 for all-MiniLM-L6-v2): a library follows the width of its model."""
    body = copy.deepcopy(schema(name))
    for f in body["fields"]:
        if f["name"] == VECTOR_FIELD and width is not None:
            f["num_dim"] = width
    return body


def vector_width(collection: dict[str, Any]) -> int | None:
    """The width of a collection's vector field, from what Typesense says of it."""
    widths = [f.get("num_dim") for f in collection.get("fields", []) if f["name"] == VECTOR_FIELD]
    return int(widths[0]) if widths and widths[0] else None


@cache  # asked of every document written
def int32_fields(name: str) -> frozenset[str]:
    return frozenset(f["name"] for f in schema(name)["fields"] if f["type"] == "int32")


def check_ranges(doc: dict[str, Any], name: str) -> str | None:
    """Typesense 0.24 silently truncates int32 overflow: refuse such values here."""
    for key in int32_fields(name):
        value = doc.get(key)
        if isinstance(value, int) and not -INT32_MAX - 1 <= value <= INT32_MAX:
            return f"field {key} = {value} does not fit int32"
    return None


@dataclass(frozen=True, slots=True)
class Encoded:
    """A document written as the JSON line an import sends, or why it must not be sent
    (``problem``, from ``check_ranges``). An ingest's workers encode their chunks so
    that the ingesting process only joins lines (``Store.upsert`` takes either form)."""

    id: str
    line: str
    problem: str | None = None


def encoded(doc: dict[str, Any], name: str) -> Encoded:
    """``doc`` for an import into collection ``name``. ASCII JSON (``json.dumps``'s
    default), as every import: 0.24 drops the bytes of a character that a raw UTF-8
    body splits across two of its reads."""
    problem = check_ranges(doc, name)
    return Encoded(str(doc.get("id")), "" if problem else json.dumps(doc), problem)
