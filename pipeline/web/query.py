"""The search page's URL parameters, as the reader's filters and back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from urllib.parse import urlencode

from ..library import Filters

# Facet field -> label, in the order shown; the reader also counts doc_id and tables.
FACET_LABELS = {
    "content_hints": "Content",
    "doc_id": "Document",
    "format": "Format",
    "tier": "Tier",
    "contains_table": "Tables",
}
_PARAMS = {
    "content_hints": "hint",
    "doc_id": "doc",
    "format": "format",
    "tier": "tier",
    "contains_table": "table",
}
PER_PAGE = 10


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    hints: tuple[str, ...] = ()
    doc: str = ""
    format: str = ""
    tier: str = ""
    table: str = ""  # "true", "false" or "" (either)
    page: int = 1

    @classmethod
    def parse(cls, get: Mapping[str, str], hints: Sequence[str]) -> Query:
        try:
            page = max(1, int(get.get("page") or 1))
        except ValueError:
            page = 1
        table = get.get("table", "")
        return cls(
            text=get.get("q", ""),
            hints=tuple(dict.fromkeys(h for h in hints if h)),
            doc=get.get("doc", ""),
            format=get.get("format", ""),
            tier=get.get("tier", ""),
            table=table if table in ("true", "false") else "",
            page=page,
        )

    def filters(self) -> Filters:
        return Filters(
            hints=self.hints,
            tier=self.tier or None,
            doc=self.doc or None,
            format=self.format or None,
            has_table=None if not self.table else self.table == "true",
        )

    def param(self, field: str) -> str:
        return _PARAMS[field]

    def chosen(self, field: str) -> tuple[str, ...]:
        if field == "content_hints":
            return self.hints
        value = {"doc_id": self.doc, "format": self.format, "tier": self.tier}.get(
            field, self.table
        )
        return (value,) if value else ()

    def any(self) -> bool:
        return bool(self.hints or self.doc or self.format or self.tier or self.table)

    def url(self, page: int) -> str:
        """This search's URL query string at ``page``."""
        q = replace(self, page=page)
        pairs = [("q", q.text), *(("hint", h) for h in q.hints)]
        chosen = (("doc", q.doc), ("format", q.format), ("tier", q.tier), ("table", q.table))
        pairs += [(k, v) for k, v in chosen if v]
        if q.page > 1:
            pairs.append(("page", str(q.page)))
        return urlencode(pairs)
