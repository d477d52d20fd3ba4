"""Search filters, as a Typesense ``filter_by`` expression."""

from __future__ import annotations

from dataclasses import dataclass

from .store import quote


@dataclass(frozen=True, slots=True)
class Filters:
    hints: tuple[str, ...] = ()
    tier: str | None = None
    doc: str | None = None
    format: str | None = None
    has_table: bool | None = None
    page_from: int | None = None
    page_to: int | None = None

    def expression(self) -> str:
        parts = [f"content_hints:={quote(h)}" for h in self.hints]
        if self.tier:
            parts.append(f"tier:={quote(self.tier)}")
        if self.doc:
            parts.append(f"doc_id:={quote(self.doc)}")
        if self.format:
            parts.append(f"format:={quote(self.format)}")
        if self.has_table is not None:
            parts.append(f"contains_table:={'true' if self.has_table else 'false'}")
        if self.page_from is not None:
            parts.append(f"page_end:>={int(self.page_from)}")
        if self.page_to is not None:
            parts.append(f"page_start:<={int(self.page_to)}")
        return " && ".join(parts)
