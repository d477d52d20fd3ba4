"""Collection schemas (``pipeline/schemas/*.json``, linked as ``schemas/``) and the
mapping from a ``Chunk`` to a Typesense document."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from ..model import Chunk

CHUNKS = "folio_chunks"
DOCUMENTS = "folio_documents"
INT32_MAX = 2**31 - 1


@cache
def schema(name: str) -> dict[str, Any]:
    text = resources.files("pipeline").joinpath("schemas", f"{name}.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def int32_fields(name: str) -> frozenset[str]:
    return frozenset(f["name"] for f in schema(name)["fields"] if f["type"] == "int32")


def chunk_document(chunk: Chunk, fmt: str) -> dict[str, Any]:
    """The Typesense document of a chunk: contract fields, plus format and breadcrumb
    levels as facets; nulls dropped (optional fields), frontmatter as JSON text."""
    doc = chunk.to_dict()
    doc["format"] = fmt
    if doc["parent_id"] is None:
        del doc["parent_id"]
    for key in ("page_start", "page_end"):
        if doc[key] is None:
            del doc[key]
    fm = doc.pop("frontmatter")
    if fm is not None:
        doc["frontmatter"] = json.dumps(fm, ensure_ascii=False, sort_keys=True)
    for level, title in enumerate(chunk.breadcrumb[1:4], start=1):
        doc[f"crumb_{level}"] = title
    return doc


def check_ranges(doc: dict[str, Any], name: str) -> str | None:
    """Typesense 0.24 silently truncates int32 overflow: refuse such values here."""
    for key in int32_fields(name):
        value = doc.get(key)
        if isinstance(value, int) and not -INT32_MAX - 1 <= value <= INT32_MAX:
            return f"field {key} = {value} does not fit int32"
    return None
