"""The reader's pages as HTML strings. Everything that comes from a document (text,
titles, paths, highlights) goes through ``esc`` or the markdown renderer with raw HTML
off, so a document can never inject markup into the page."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from html import escape
from pathlib import Path
from urllib.parse import urlencode

from markdown_it import MarkdownIt

from ..library import (
    Citation,
    DocumentInfo,
    Hit,
    LibraryCounts,
    OutlineEntry,
    SearchResult,
    Shown,
    citation_text,
)
from .query import FACET_LABELS, Query

_SPACES = re.compile(r"\s+")
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")


def esc(value: object) -> str:
    return escape(str(value), quote=True)


def layout(title: str, body: str, *, query: str = "") -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)} · Folio</title>
<link rel="stylesheet" href="/static/reader.css">
<script src="/static/reader.js" defer></script>
</head><body>
<header class="top"><a class="brand" href="/">Folio</a>
<form class="search" action="/" method="get" role="search">
<input id="q" name="q" type="search" value="{esc(query)}" placeholder="Search the library"
 aria-label="Search the library" accesskey="s">
<button type="submit">Search</button></form>
<nav><a href="/documents">Documents</a></nav></header>
<main>{body}</main>
<footer>Keys: <kbd>/</kbd> search · <kbd>j</kbd> <kbd>k</kbd> next/previous result ·
<kbd>[</kbd> <kbd>]</kbd> previous/next section · <kbd>Enter</kbd> open</footer>
</body></html>"""


def pages_text(start: int | None, end: int | None) -> str:
    if start is None:
        return ""
    return f"p. {start}" if end in (None, start) else f"p. {start}–{end}"


def highlighted(snippet: str) -> str:
    """Typesense's snippet with its ``<mark>`` tags kept and everything else escaped."""
    out: list[str] = []
    for i, part in enumerate(snippet.replace("</mark>", "<mark>").split("<mark>")):
        text = esc(_SPACES.sub(" ", part))
        out.append(f"<mark>{text}</mark>" if i % 2 else text)
    return "".join(out)


def crumbs(breadcrumb: Sequence[str]) -> str:
    return " › ".join(f"<span>{esc(c)}</span>" for c in breadcrumb)


def home_page(counts: LibraryCounts, models: Mapping[str, int]) -> str:
    """``models``: snippets holding a vector, per model (the dense coverage)."""
    total = sum(counts.statuses.values())
    vectors = ", ".join(f"{n} with vectors of {esc(m)}" for m, n in sorted(models.items()))
    body = (
        f"<p class='summary' id='summary'>{total} files, {counts.sections} sections, "
        f"{counts.snippets} snippets ({vectors or 'none with vectors'}). "
        "Type a few words; typos are forgiven.</p>"
    )
    return layout("Search", body)


def search_page(query: Query, result: SearchResult, titles: dict[str, str]) -> str:
    shown = "".join(_result(h) for h in result.hits)
    first = (result.page - 1) * result.per_page + 1
    last = first + len(result.hits) - 1
    summary = (
        f"{result.found} hits for <q>{esc(query.text)}</q>"
        + (f", showing {first}–{last}" if result.hits else "")
        + (
            f" ({result.folded} repeated preview{'s' if result.folded > 1 else ''} folded)"
            if result.folded
            else ""
        )
    )
    body = (
        f"<div class='results-layout'>{_filters(query, result, titles)}"
        f"<section aria-label='Results'><p id='summary' class='summary'>{summary}</p>"
        f"<ol class='results'>{shown}</ol>{_pager(query, result)}</section></div>"
    )
    return layout(f"{query.text} – search", body, query=query.text)


def _result(h: Hit) -> str:
    """A result card: its title, the headings between the document and it, the document
    (when it is not the title itself) and pages, its tags and excerpt. A short document
    is one section titled as the document: its name was shown three times."""
    section = h.parent_id if h.tier == "snippet" and h.parent_id else h.id
    link = f"/section/{esc(section)}" + (f"?hit={esc(h.id)}" if section != h.id else "")
    hints = "".join(f"<span class='tag'>{esc(x)}</span>" for x in h.content_hints)
    title = h.section_title or h.breadcrumb[-1]
    between = h.breadcrumb[1:-1] if h.breadcrumb[-1:] == (title,) else h.breadcrumb[1:]
    path = f"<div class='crumbs'>{crumbs(between)}</div>" if between else ""
    doc = f"<span class='doc'>{esc(h.doc_title)}</span> " if h.doc_title != title else ""
    pages = pages_text(h.page_start, h.page_end)
    return (
        f"<li class='result'><a class='result-link' href='{link}'>{esc(title)}</a>{path}"
        f"<div class='meta'>{doc}"
        + (f"<span class='pages'>{esc(pages)}</span> " if pages else "")
        + f"<span class='tag tier'>{esc(h.tier)}</span>{hints}</div>"
        f"<p class='excerpt'>{highlighted(h.highlight)}</p></li>"
    )


def _filters(query: Query, result: SearchResult, titles: dict[str, str]) -> str:
    """The facets, and the toggle that shows them on a narrow screen, where they filled
    the first screen: a checkbox and its label, so it works without the script."""
    chosen = sum(len(query.chosen(field)) for field in FACET_LABELS)
    label = f"Filters ({chosen} chosen)" if chosen else "Filters"
    return (
        "<div class='filters'><input type='checkbox' id='filters-open' class='filters-open'>"
        f"<label for='filters-open' class='filters-toggle'>{label}</label>"
        f"{_facets(query, result, titles)}</div>"
    )


def _facets(query: Query, result: SearchResult, titles: dict[str, str]) -> str:
    groups: list[str] = []
    for field, label in FACET_LABELS.items():
        values = result.facets.get(field, [])
        chosen = query.chosen(field)
        items = [(v, c) for v, c in values if c > 0 or v in chosen]
        items += [(v, 0) for v in chosen if v not in {x for x, _ in items}]
        if not items:
            continue
        kind = "checkbox" if field == "content_hints" else "radio"
        rows = []
        for value, count in items:
            name = titles.get(value, value) if field == "doc_id" else value
            if field == "contains_table":
                name = "with a table" if value == "true" else "without a table"
            checked = " checked" if value in chosen else ""
            rows.append(
                f"<label title='{esc(name)}'><input type='{kind}' name='{query.param(field)}' "
                f"value='{esc(value)}'{checked}> {esc(name)} <span class='count'>{count}"
                "</span></label>"
            )
        if kind == "radio" and chosen:
            rows.append(
                f"<label><input type='radio' name='{query.param(field)}' value=''> any</label>"
            )
        groups.append(
            f"<fieldset class='facet' data-facet='{field}'><legend>{esc(label)}</legend>"
            + "".join(rows)
            + "</fieldset>"
        )
    return (
        "<form class='facets' action='/' method='get' aria-label='Filters'>"
        f"<input type='hidden' name='q' value='{esc(query.text)}'>"
        + "".join(groups)
        + "<button type='submit' class='apply'>Apply filters</button>"
        + (f" <a href='/?{urlencode({'q': query.text})}'>clear</a>" if query.any() else "")
        + "</form>"
    )


def _pager(query: Query, result: SearchResult) -> str:
    links = []
    if result.page > 1:
        links.append(f"<a rel='prev' href='/?{query.url(page=result.page - 1)}'>← previous</a>")
    if result.page * result.per_page < result.found:
        links.append(f"<a rel='next' href='/?{query.url(page=result.page + 1)}'>next →</a>")
    return f"<nav class='pager'>{' '.join(links)}</nav>"


def source_links(doc_id: str, source: str, page: int | None) -> str:
    """Open the file at the page: through the reader (a browser will not follow a file:
    link from an http page), and its file: URI to copy."""
    anchor = f"#page={page}" if page is not None and source.lower().endswith(".pdf") else ""
    uri = Path(source).as_uri() + anchor
    return (
        f"<a id='open-source' href='/source/{esc(doc_id)}{anchor}' target='_blank' "
        f"rel='noopener'>Open the file{esc(' at p. ' + str(page)) if anchor else ''}</a> · "
        f"<a class='file-uri' href='{esc(uri)}'>{esc(uri)}</a>"
    )


def section_page(shown: Shown, hit: Shown | None) -> str:
    c, chunk = shown.citation, shown.chunk
    title = chunk.section_title or chunk.breadcrumb[-1]
    match = ""
    if hit is not None:
        match = (
            "<aside class='match'><h2>The match</h2>"
            f"<p class='pages'>{esc(pages_text(hit.citation.page_start, hit.citation.page_end))}"
            f"</p>{_MARKDOWN.render(hit.chunk.text)}</aside>"
        )
    body = (
        f"<nav class='crumbs'>{crumbs(chunk.breadcrumb)}</nav>"
        f"<h1>{esc(title)}</h1>"
        f"<p class='meta'>{_section_meta(chunk, c)}</p>"
        f"<p class='source'>{source_links(chunk.doc_id, c.source, c.page_start)}</p>"
        f"{_citation(c)}{_neighbours(shown)}{match}"
        f"<article class='text'>{_MARKDOWN.render(chunk.text)}</article>"
        f"{_neighbours(shown)}"
    )
    return layout(title, body)


def _section_meta(chunk: Hit, c: Citation) -> str:
    """Document · pages · tier and id, leaving out the pages a document has none of (the
    line read "… · · section 1a2b3c4d")."""
    pages = pages_text(c.page_start, c.page_end)
    parts = [
        f"<a href='/documents/{esc(chunk.doc_id)}'>{esc(chunk.doc_title)}</a>",
        f"<span id='pages'>{esc(pages)}</span>" if pages else "",
        f"{esc(chunk.tier)} {esc(chunk.id[:8])}",
    ]
    empty = "" if pages else "<span id='pages' hidden></span>"  # #pages is always there
    return " · ".join(p for p in parts if p) + empty


def _citation(c: Citation) -> str:
    as_json = json.dumps(asdict(c), ensure_ascii=False, indent=1)
    return (
        "<section class='citation' aria-label='Citation'>"
        f"<p>Cite as: <code id='citation'>{esc(citation_text(c))}</code></p>"
        f"<details><summary>As an agent gets it (JSON)</summary><pre>{esc(as_json)}</pre>"
        "</details></section>"
    )


def _neighbours(shown: Shown) -> str:
    def link(h: Hit | None, rel: str, label: str) -> str:
        if h is None:
            return f"<span class='none'>{label}: none</span>"
        return (
            f"<a rel='{rel}' href='/section/{esc(h.id)}'>{label}: "
            f"{esc(h.section_title or h.breadcrumb[-1])}</a>"
        )

    return (
        f"<nav class='neighbours'>{link(shown.previous, 'prev', '← previous')} "
        f"{link(shown.next, 'next', 'next →')}</nav>"
    )


def documents_page(docs: Iterable[DocumentInfo], counts: LibraryCounts) -> str:
    statuses = ", ".join(f"{esc(k)} {v}" for k, v in sorted(counts.statuses.items()))
    # The path in full, wrapping where it must: `direction: rtl` (to elide its start)
    # moved its leading slash to the end. Format and counts give way on a phone.
    rows = "".join(
        f"<tr><td><a href='/documents/{esc(d.doc_id)}'>{esc(d.title or Path(d.path).name)}</a>"
        f"</td><td>{esc(d.status)}</td><td class='wide'>{esc(d.format)}</td>"
        f"<td class='n'>{esc(d.pages or '')}</td><td class='n wide'>{d.sections}</td>"
        f"<td class='n wide'>{d.snippets}</td><td class='path'>{esc(d.path)}"
        f"{'<br><span class=error>' + esc(d.error) + '</span>' if d.error else ''}</td></tr>"
        for d in docs
    )
    body = (
        f"<h1>Documents</h1><p class='summary' id='counts'>{statuses} · {counts.sections} "
        f"sections · {counts.snippets} snippets</p>"
        "<div class='table-wrap'><table class='docs'><thead><tr><th>title</th><th>status</th>"
        "<th class='wide'>format</th><th>pages</th><th class='wide'>sections</th>"
        "<th class='wide'>snippets</th><th>path</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></div>"
    )
    return layout("Documents", body)


def document_page(doc: DocumentInfo, entries: Sequence[OutlineEntry]) -> str:
    items = []
    for e in entries:  # each heading once (Library.outline), linked to its section
        depth = min(5, max(0, e.level - 1))
        items.append(
            f"<li class='depth-{depth}'><a href='/section/{esc(e.id)}'>"
            f"{esc(e.section_title or e.breadcrumb[-1])}</a> "
            f"<span class='pages'>{esc(pages_text(e.page_start, e.page_end))}</span></li>"
        )
    body = (
        f"<h1>{esc(doc.title or Path(doc.path).name)}</h1>"
        f"<p class='meta'>{esc(doc.status)} · {esc(doc.format)} · "
        f"{esc(str(doc.pages) + ' pages · ' if doc.pages else '')}{doc.sections} sections · "
        f"{doc.snippets} snippets</p>"
        f"<p class='source'>{source_links(doc.doc_id, doc.path, None)}</p>"
        f"<h2>Outline</h2><ol class='outline'>{''.join(items)}</ol>"
    )
    return layout(doc.title or "Document", body)


def error_page(status: int, message: str) -> str:
    return layout("Error", f"<h1>{status}</h1><p class='error'>{esc(message)}</p>")
