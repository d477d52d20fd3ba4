"""A document's title is not repeated as its own first heading: "GEORGIA" opening a book
titled "Georgia" folds into the title (breadcrumbs ``Georgia > Climate and Soils``, not
``Georgia > GEORGIA > Climate and Soils``), in every format, and its section stays, under
its own title, and is found by search."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from pipeline import IngestOptions, Library, chunk_document, chunk_markdown
from pipeline.extract.epub.reader import read_epub
from pipeline.index.store import Store
from pipeline.model import Chunk

from .test_extract_epub import LONG, make_book


def _repeats(chunks: list[Chunk]) -> list[tuple[str, ...]]:
    """Breadcrumbs that repeat an item in the next one, case and punctuation aside."""

    def words(s: str) -> list[str]:
        return re.findall(r"\w+", s.casefold())

    return [
        c.breadcrumb
        for c in chunks
        if any(words(a) == words(b) for a, b in itertools.pairwise(c.breadcrumb))
    ]


def georgia(tmp_path: Path) -> Path:
    return make_book(
        tmp_path / "georgia.epub",
        title="Georgia",
        nav='<li><a href="a.xhtml">GEORGIA</a></li>',
        files=[
            (
                "a.xhtml",
                "Georgia",
                "<h1>GEORGIA</h1><p>A state known for peaches and pecans.</p>"
                f"<h2>Climate and Soils</h2><p>Humid and warm. {LONG}</p>"
                f"<h2>History</h2><p>Founded as a colony. {LONG}</p>",
            )
        ],
    )


def test_an_epub_first_heading_equal_to_the_title_folds_into_it(tmp_path: Path) -> None:
    chunks = chunk_document(read_epub(georgia(tmp_path)))
    crumbs = {c.breadcrumb for c in chunks}
    assert ("Georgia", "Climate and Soils") in crumbs and ("Georgia", "History") in crumbs
    assert _repeats(chunks) == []
    # Nothing is lost: the heading's section is there, titled as written, its text kept.
    opening = next(c for c in chunks if c.section_title == "GEORGIA")
    assert opening.breadcrumb == ("Georgia",) and "peaches" in opening.text


def test_markdown_titles_fold_only_their_own_first_heading() -> None:
    body = LONG  # a few sections long: every heading has chunks of its own
    folded = chunk_markdown(
        f"---\ntitle: Georgia\n---\n# GEORGIA!\n\n{body}\n\n## Climate\n\n{body}\n"
    )
    assert {c.breadcrumb for c in folded} == {("Georgia",), ("Georgia", "Climate")}
    # A title taken from the first heading was always that heading, once.
    own = chunk_markdown(f"# Rust Notes\n\n{body}\n\n## Ownership\n\n{body}\n")
    assert {c.breadcrumb for c in own} == {("Rust Notes",), ("Rust Notes", "Ownership")}
    # Not the first heading, or other words (a number): a heading of its own.
    later = chunk_markdown(
        f"---\ntitle: Georgia\n---\n# Overview\n\n{body}\n\n# GEORGIA\n\n{body}\n\n"
        f"## Climate\n\n{body}\n\n# 1 Georgia\n\n{body}\n"
    )
    assert ("Georgia", "GEORGIA", "Climate") in {c.breadcrumb for c in later}
    numbered = chunk_markdown(f"---\ntitle: Georgia\n---\n# 1 Georgia\n\n{body}\n")
    assert {c.breadcrumb for c in numbered} == {("Georgia", "1 Georgia")}


def test_the_folded_section_is_indexed_and_found(store: Store, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    georgia(lib)
    library = Library(store)
    assert not library.ingest([lib], options=IngestOptions(workers=1)).failed
    hits = library.search("peaches pecans").hits
    assert hits and hits[0].section_title == "GEORGIA" and hits[0].breadcrumb == ("Georgia",)
    climate = library.search("humid").hits
    assert climate and climate[0].breadcrumb == ("Georgia", "Climate and Soils")


def test_a_series_line_over_the_title_heading_does_not_stop_the_fold() -> None:
    # issue 41: an encyclopedia article whose first heading is the publication's name, the
    # second the article's title, gave "Georgia > GEORGIA > Climate and Soils"
    body = LONG
    for series_level, title_level in (("#", "#"), ("#", "##")):
        chunks = chunk_markdown(
            f"---\ntitle: Georgia\n---\n{series_level} The Encyclopaedia Britannica\n\n"
            f"{title_level} GEORGIA\n\n{body}\n\n{title_level}# Climate and Soils\n\n{body}\n"
        )
        assert _repeats(chunks) == []
        assert not any("GEORGIA" in c.breadcrumb for c in chunks)
        assert any(c.breadcrumb[-1] == "Climate and Soils" for c in chunks)
