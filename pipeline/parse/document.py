"""The parse stage: a ``Document`` read into the structure every later stage uses:
its blocks, how its headings were decided, its front matter, its title and its
heading sections (the breadcrumbs)."""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from ..model import Block, Document, HeadingMode
from ..shared.config import ChunkConfig
from ..text.heading_lines import MIN_HEADINGS, TITLE_SEARCH_LINES, title_line
from ..text.titles import same_words
from .blocks import parse_markdown
from .headings import apply_heuristics, parse_text, stray_setext


@dataclass(frozen=True, slots=True)
class HeadingSection:
    """The blocks under one heading (or before the first): the unit of structure."""

    level: int  # 0 for the preamble before any heading
    title: str
    breadcrumb: tuple[str, ...]  # document title first
    first_block: int
    end_block: int  # exclusive


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """A document as the chunker reads it."""

    src: str
    blocks: list[Block]
    starts: array[int]  # line start offsets
    sections: list[HeadingSection]
    section_of: array[int]  # block index -> heading section index
    doc_id: str
    source: str
    title: str
    page_starts: list[int]
    page_numbers: list[int]
    frontmatter: Mapping[str, Any] | None
    heading_mode: HeadingMode


def uses_mdx(doc: Document, config: ChunkConfig) -> bool:
    """Whether ``doc`` is parsed with the MDX block rules under ``config``."""
    return config.mdx == "on" or (config.mdx == "auto" and doc.format == "mdx")


def parse(doc: Document, config: ChunkConfig | None = None) -> ParsedDocument:
    """Blocks, heading mode, title and heading sections: the structure that is chunked.
    Headings: those the extractor marked (``doc.heading_mode`` set), else the markdown
    headings when there are at least ``MIN_HEADINGS``, else the text heuristics."""
    config = config or ChunkConfig()
    src = doc.text
    mode: HeadingMode
    if doc.markup == "markdown":
        blocks, starts = parse_markdown(src, mdx=uses_mdx(doc, config))
        n_headings = sum(1 for b in blocks if b.kind == "heading")
        mode = doc.heading_mode or ("markdown" if n_headings >= MIN_HEADINGS else "heuristic")
        heuristic = doc.heading_mode is None and mode == "heuristic"
        # no markup at all (a stray setext underline aside): the heuristics guess every heading
        guessed = heuristic and all(stray_setext(b).kind != "heading" for b in blocks)
        if heuristic:
            blocks = apply_heuristics(src, blocks)
    else:
        guessed = False
        given = doc.heading_mode is not None
        blocks, starts, atx = parse_text(src, heuristics=False if given else None)
        mode = doc.heading_mode or ("markdown" if atx >= MIN_HEADINGS else "heuristic")
    frontmatter: Mapping[str, Any] | None = None
    if blocks and blocks[0].kind == "frontmatter":
        frontmatter = _read_frontmatter(src[blocks[0].start : blocks[0].end])
        if config.frontmatter == "strip":
            frontmatter = None
    title = _document_title(doc, src, blocks, frontmatter, guessed=guessed)
    sections, section_of = _heading_sections(blocks, title, config.heading_depth)
    return ParsedDocument(
        src=src,
        blocks=blocks,
        starts=starts,
        sections=sections,
        section_of=section_of,
        doc_id=doc.doc_id or hashlib.sha256(src.encode("utf-8", "surrogatepass")).hexdigest(),
        source=doc.source,
        title=title,
        page_starts=[p.char_start for p in doc.pages],
        page_numbers=[p.number for p in doc.pages],
        frontmatter=frontmatter,
        heading_mode=mode,
    )


def _read_frontmatter(raw: str) -> Mapping[str, Any]:
    """YAML between the fences; anything unreadable is kept raw rather than lost."""
    body = raw.split("\n", 1)[1] if "\n" in raw else ""
    body = body.rsplit("\n", 1)[0] if body.rstrip().endswith(("---", "...")) else body
    try:
        # libyaml's loader when PyYAML was built with it: ~10x faster on every document.
        data = yaml.load(body, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return {"_raw": body}
    if isinstance(data, dict):
        return {str(k): _jsonable(v) for k, v in data.items()}
    return {"_raw": body} if body.strip() else {}


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def _document_title(
    doc: Document,
    src: str,
    blocks: Sequence[Block],
    frontmatter: Mapping[str, Any] | None,
    *,
    guessed: bool = False,
) -> str:
    """Frontmatter's title, the extractor's, a flat text's title line, else the first
    top-level heading. A markdown file with no markup at all, whose headings the
    heuristics ``guessed``, is read as flat text: its title line, or a heading only when
    one opens it (one deep inside, "(223 KB EPS)." or "Materials and Methods", heads a
    part, and a wrong title is worse than the file's name)."""
    if frontmatter and isinstance(frontmatter.get("title"), str) and frontmatter["title"].strip():
        return str(frontmatter["title"]).strip()
    if doc.title:
        return doc.title
    text_title = doc.markup == "text" or guessed  # a flat text, marked up or not
    first = title_line(src.split("\n", TITLE_SEARCH_LINES)) if text_title else None
    if first is not None:
        return first[1]
    headings = [b for b in blocks if b.kind == "heading"]
    if guessed:
        body = [b for b in blocks if b.kind != "frontmatter"]
        headings = body[:1] if body and body[0].kind == "heading" else []
    for b in headings:
        if b.level == 1 and b.title:
            return b.title
    if headings and headings[0].title:
        return headings[0].title
    stem = doc.source.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return stem or "Untitled"


def _heading_sections(
    blocks: Sequence[Block], title: str, depth: int
) -> tuple[list[HeadingSection], array[int]]:
    """Breadcrumb stack: a heading of level L pops every open level >= L (so an H1
    clears the stack); skipped levels are kept as observed. The title is not repeated as
    the outermost heading: a heading equal to it, or the first heading with its words
    ("GEORGIA" in a book titled "Georgia"), folds into it (its section stays, titled as
    written, with the title's breadcrumb). Headings over it that head no text of their
    own (a publication or series line: "The Encyclopaedia Britannica", then "GEORGIA")
    do not stop the fold."""
    sections: list[HeadingSection] = []
    section_of = array("q", [0]) * len(blocks)
    stack: list[tuple[int, str, bool]] = []  # level, title, whether it is the title
    current = HeadingSection(0, title, (title,), 0, 0)
    opening = True  # no heading yet has text of its own, none has folded
    for i, b in enumerate(blocks):
        if b.kind == "heading" and 1 <= b.level <= depth:
            if current.end_block > current.first_block:
                sections.append(current)
            while stack and stack[-1][0] >= b.level:
                stack.pop()
            is_title = b.title == title or (opening and same_words(b.title, title))
            stack.append((b.level, b.title, is_title))
            opening = opening and not is_title
            crumb = (title, *(t for _, t, it in stack if not it))
            current = HeadingSection(b.level, b.title, crumb, i, i)
        elif stack:
            opening = False  # a heading's own text: what follows is the body
        current = HeadingSection(
            current.level, current.title, current.breadcrumb, current.first_block, i + 1
        )
        section_of[i] = len(sections)
    if current.end_block > current.first_block:
        sections.append(current)
    return sections, section_of
