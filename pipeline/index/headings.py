"""The headings a document record stores (``DocumentRecord.headings``): every heading of
the document once, in order, with its span and pages, so an indexed document's outline
does not depend on how its text was cut into chunks.

Stored compactly as JSON rows ``[depth, title, char_start, char_end, page_start,
page_end]``: ``depth`` is the heading's place in the breadcrumb below the document title
(0 for a heading folded into the title: its breadcrumb is the title alone), from which
the paths are rebuilt."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StoredHeading:
    title: str
    breadcrumb: tuple[str, ...]  # document title first, then the headings down to this one
    char_start: int
    char_end: int  # where the next heading of its level or above starts
    page_start: int | None
    page_end: int | None

    @property
    def depth(self) -> int:
        return len(self.breadcrumb) - 1


def encode_headings(headings: Sequence[StoredHeading]) -> str | None:
    """The record's ``headings`` field; ``None`` for a document without headings."""
    if not headings:
        return None
    rows = [
        [h.depth, h.title, h.char_start, h.char_end, h.page_start, h.page_end] for h in headings
    ]
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":"))


def decode_headings(raw: str, title: str) -> list[StoredHeading]:
    """``encode_headings`` read back, the paths rebuilt under ``title``: a heading of
    depth ``d`` sits under the last heading of depth ``d - 1`` before it."""
    out: list[StoredHeading] = []
    path: list[str] = []  # the open headings below the title
    for depth, name, start, end, first, last in json.loads(raw):
        path = [*path[: max(0, int(depth) - 1)], str(name)] if depth > 0 else []
        crumb = (title, *path) if depth > 0 else (title,)
        out.append(StoredHeading(str(name), crumb, int(start), int(end), first, last))
    return out
