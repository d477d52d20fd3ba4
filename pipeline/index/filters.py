"""Search filters, as a Typesense ``filter_by`` expression."""

from __future__ import annotations

from dataclasses import dataclass

from ..chunk.hints import HINT_ORDER
from ..errors import InvalidInput
from ..extract.dispatch import FORMAT_OF_SUFFIX
from ..shared.inputs import check_choice, check_id, check_literal, check_pages, quoted
from .store import quote

TIERS = ("section", "snippet")
HINTS = (*HINT_ORDER, "mixed")
FORMATS = ("pdf", "epub", "markdown", "mdx", "text")  # Document.format of each reader


@dataclass(frozen=True, slots=True)
class Filters:
    hints: tuple[str, ...] = ()
    tier: str | None = None
    doc: str | None = None
    format: str | None = None
    has_table: bool | None = None
    page_from: int | None = None
    page_to: int | None = None

    def __post_init__(self) -> None:
        """Refuse what would reach Typesense as a malformed filter (an empty ``--doc``
        used to drop the filter silently; a reversed page range matched nothing; a
        misspelled hint or format matched nothing and said "No results")."""
        for hint in self.hints:
            check_choice(check_literal(hint), HINTS, "content hint")
        if self.format is not None:
            fmt = check_literal(self.format)
            named = FORMAT_OF_SUFFIX.get(f".{fmt.lower()}")
            if named is not None and fmt not in FORMATS:  # a suffix: say its format
                raise InvalidInput(
                    f"unknown format {quoted(fmt)}: a .{fmt} file has format {named!r} "
                    f"(allowed: {', '.join(FORMATS)})"
                )
            check_choice(fmt, FORMATS, "format")
        if self.tier is not None:
            check_choice(self.tier, TIERS, "tier")
        if self.doc is not None:
            check_id(self.doc, "doc_id")
        check_pages(self.page_from, self.page_to)

    def expression(self) -> str:
        parts = [f"content_hints:={quote(h)}" for h in self.hints]
        exact = (("tier", self.tier), ("doc_id", self.doc), ("format", self.format))
        parts += [f"{name}:={quote(value)}" for name, value in exact if value is not None]
        if self.has_table is not None:
            parts.append(f"contains_table:={'true' if self.has_table else 'false'}")
        if self.page_from is not None:
            parts.append(f"page_end:>={int(self.page_from)}")
        if self.page_to is not None:
            parts.append(f"page_start:<={int(self.page_to)}")
        return " && ".join(parts)
