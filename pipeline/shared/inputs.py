"""Checks on what callers send (command line, Python API, MCP tools), made before any
of it reaches Typesense: 0.24.1 crashes on some malformed filters (``id:=``
followed by an empty literal) and answers others with silent empty results."""

from __future__ import annotations

import difflib
import re
import reprlib
from collections.abc import Iterable

from ..errors import InvalidInput

MAX_QUERY_BYTES = 16 * 1024
# Typesense counts with 32 bits: 0.24.1 never answers a search for a page from 2**31 to
# 2**32 - 1 (its client retried for half an hour), refuses page * per_page past 2**32,
# and a filter on the int32 page fields past 2**31 - 1 is a 400. No library holds that
# many chunks, nor a document that many pages, so these bounds cost nothing real.
MAX_HITS = 2**31 - 1
MAX_PAGE_NUMBER = 2**31 - 1
# Section and chunk ids are uuids, doc_ids hex digests; stored values never hold more.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}")
# What an error quotes of a value: a 1 MB doc_id or a 200,000-item list used to come
# back whole (a 1-1.5 MB MCP error text).
QUOTE_CHARS = 100
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = QUOTE_CHARS
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 6
_SHORT.maxlevel = 2


def quoted(value: object) -> str:
    """``repr(value)`` for an error text, at most about ``QUOTE_CHARS`` characters: a
    longer value is cut (``...``) and its length said."""
    try:
        text = _SHORT.repr(value)
    except ValueError:  # an int past Python's digit limit for str()
        text = f"<{type(value).__name__} too long to show>"
    if len(text) > QUOTE_CHARS + 10:  # reprlib bounds each item, not their sum
        text = text[:QUOTE_CHARS] + "..."
    if isinstance(value, str) and len(value) > QUOTE_CHARS - 2:
        return f"{text} ({len(value):,} characters)"
    if isinstance(value, list | tuple | dict | set) and len(value) > _SHORT.maxlist:
        return f"{text} ({len(value):,} items)"
    return text


def check_id(value: object, what: str = "id") -> str:
    """``value`` if it can be an id Folio made, else ``InvalidInput`` naming ``what``."""
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise InvalidInput(
            f"invalid {what} {quoted(value)}: an id is letters, digits, '-', '_', '.' or ':', as "
            "search and retrieve results show it"
        )
    return value


def check_literal(value: str) -> str:
    """A value for a ``filter_by`` literal: backticks delimit it, so it cannot hold one,
    and an empty literal is what crashes Typesense 0.24.1."""
    if not value.strip() or "`" in value or any(ord(c) < 32 for c in value):
        raise InvalidInput(
            f"invalid filter value {quoted(value)}: it must not be empty nor hold a backtick or "
            "a control character"
        )
    return value


def check_query(query: object) -> str:
    """A query Folio can send: text, valid UTF-8, at most ``MAX_QUERY_BYTES``."""
    if not isinstance(query, str):
        raise InvalidInput(f"the query must be text, not {type(query).__name__}")
    try:
        size = len(query.encode("utf-8"))
    except UnicodeEncodeError as exc:  # a lone surrogate: undecodable argv bytes, say
        raise InvalidInput(
            f"the query is not valid UTF-8 text (a lone surrogate at character {exc.start})"
        ) from None
    if size > MAX_QUERY_BYTES:
        raise InvalidInput(
            f"the query is too long: {size / 1024:.0f} KB > {MAX_QUERY_BYTES // 1024} KB; "
            "ask with the words that matter"
        )
    return query


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest known word, then the known words."""
    known = tuple(known)
    # A long word is like none of them (and difflib's time grows with its length).
    fits = len(word) <= QUOTE_CHARS
    close = difflib.get_close_matches(word, known, n=1, cutoff=0.6) if fits else []
    guess = f"; did you mean {close[0]!r}?" if close else ""
    return f"{guess} (allowed: {', '.join(known)})"


def check_choice(value: str, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise InvalidInput(f"unknown {what} {quoted(value)}{did_you_mean(value, allowed)}")
    return value


def check_pages(first: int | None, last: int | None) -> None:
    """A page range (1-based, both ends included; either end may be open)."""
    for page in (first, last):
        if page is not None and not 1 <= page <= MAX_PAGE_NUMBER:
            raise InvalidInput(f"page {page}: pages are numbered from 1 to {MAX_PAGE_NUMBER}")
    if first is not None and last is not None and first > last:
        raise InvalidInput(
            f"page range {first} to {last} is empty: the first page comes after the last"
        )


def check_result_page(page: int, per_page: int, max_per_page: int) -> None:
    """A page of results that can exist: ``per_page`` up to ``max_per_page``, and no hit
    on it past ``MAX_HITS``."""
    check_range(per_page, "per_page", 1, max_per_page)
    check_range(page, "page", 1, MAX_HITS // per_page)


def check_range(value: int, what: str, low: int, high: int | None = None) -> int:
    """A whole number from ``low`` to ``high`` (no upper bound: ``None``)."""
    if value < low or (high is not None and value > high):
        allowed = f"from {low} to {high}" if high is not None else f"{low} or more"
        raise InvalidInput(f"{what} must be {allowed}, not {value}")
    return value
