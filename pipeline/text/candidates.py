"""The lines of a flat text that may be headings, gathered once with what each reads as
and where it sits; evidence and the decision read these records, not the lines again.

A candidate stands alone between blank lines, opens a page after a form feed (one
column, no running head), or carries a section number ("2.1 Package manager", as
pdftotext runs a heading into its text): the lines a contents entry or a heading's look
can name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from .entries import entry_length, is_prose, numbered_key, title_column
from .labels import MAX_TITLE_CHARS, bare_numeral, label_keyword, label_only
from .layout import heads_text, in_short_run, page_head, page_top, standalone
from .shapes import END_PUNCT, heading_level, numbered_title, series_keyword
from .titles import entry_key


@dataclass(frozen=True, slots=True)
class Candidate:
    line: int
    text: str  # the line, stripped
    after_blank: bool  # the first line, or a blank line or a form feed before it
    standalone: bool  # blank lines (or none) before and after it
    page_top: bool  # opens a page in one column, not a running head
    under_label: bool  # right under a label opening a page ("\\fChapter 1", then "Introduction")
    entry_sized: bool  # short enough to be named by a contents entry
    key: str  # the title key a contents entry matches (``titles.entry_key``)
    section_key: str | None  # its section number and title key ("2.1 packagemanager")
    label: bool  # only a numbering label: "CHAPTER I.", "II."
    keyword: str | None  # the series of a standalone label line: "chapter"
    numeral: int | None  # a standalone bare numeral's value: "XIV" 14
    # the line of a title's last words, set under the label beside it (``wrapped_round``)
    wrap_end: int | None = None
    # what a standalone line looks like and how it is set, read only when no contents
    # block names the headings (``with_looks``; None / False until then)
    shape: int | None = None  # the level its look gives (``shapes.heading_level``)
    numbered_title: int | None = None  # "2. Second Day.": its number
    short_run: bool = False  # in a run of short lines: a list, an index, verse
    prose: bool = False  # reads as a sentence or code
    heads_text: bool = False  # no wider margin below than above, text after it


def gather(
    lines: Sequence[str], start: int = 0, furniture: frozenset[int] = frozenset()
) -> dict[int, Candidate]:
    """The candidates from line ``start`` on, by line; ``furniture`` lines (running heads
    and feet) do not open a page."""
    out: dict[int, Candidate] = {}
    rests: set[int] = set()  # lines carrying on a title begun on the line before
    for i in range(start, len(lines)):
        line = lines[i]
        if i in rests:
            continue
        # a running head over its page's number is no candidate, unless a contents entry
        # of that number and title names it (``number_at_end``)
        head = page_head(lines, i)
        moved = None if i in furniture else number_at_end(lines, i, head=head)
        if head and moved is None:
            continue
        top = not head and page_top(line) and i not in furniture
        section = numbered_key(moved or line)
        wrap = None if moved else _rest_of_title(lines, i, top, section)
        alone = not head and (standalone(lines, i) or (wrap == i + 1 and _pair_alone(lines, i)))
        under = (
            not head
            and bool(line.strip())
            and (
                _page_label(lines, text_before(lines, i), furniture)
                or _split_label(lines, i, furniture)
            )
        )
        if not (alone or top or under or section):
            continue
        if wrap is not None:
            rests.add(wrap)
        text = line.strip() if wrap is None else f"{line.strip()} {lines[wrap].strip()}"
        text = moved or text
        out[i] = Candidate(
            line=i,
            text=text,
            after_blank=_opens_block(lines, i),
            standalone=alone,
            page_top=top,
            under_label=under,
            entry_sized=entry_length(text),
            key=entry_key(text),
            section_key=section if wrap is None else numbered_key(text),
            label=label_only(line),
            keyword=series_keyword(text) if alone else None,
            numeral=bare_numeral(text) if alone else None,
            wrap_end=wrap,
        )
    return out


# a chapter's title opening its page with the chapter's number far right of it, as
# pdftotext -layout prints a number set big in the margin: "\fIntroduction        1"
# the title ends on a non-space, so a long run of spaces is not tried at every start
_NUMBER_AT_END = re.compile(r"\f\s*([^\W\d_](?:[^\f]*?\S)?)\s{6,}(\d{1,2})\s*")


def number_at_end(lines: Sequence[str], i: int, *, head: bool = False) -> str | None:
    """A page-opening title with its chapter's number far right of it, or (``head``, a
    line ``layout.page_head`` reads as a running head) on a line of its own under it
    (plain pdftotext: "\\fConclusion", "", "5"), read number first ("5 Conclusion"), or
    None. Only a contents entry of that number and title names it, as it names "1
    Introduction" run into its text: a running head's number is its page's."""
    if head:
        j = next(j for j in range(i + 1, len(lines)) if lines[j].strip())
        return f"{lines[j].strip()} {lines[i].strip()}"
    m = _NUMBER_AT_END.fullmatch(lines[i])
    return f"{m.group(2)} {m.group(1)}" if m else None


def _rest_of_title(lines: Sequence[str], i: int, top: bool, section: str | None) -> int | None:
    """The line holding the rest of a title begun on line ``i``, if any: round its label
    (``_wrapped_round``), under its title column (``_hanging``) or on a second line of
    its own (``_two_lines``)."""
    if top and (wrap := _wrapped_round(lines, i)) is not None:
        return wrap
    if section:
        return _hanging(lines, i)
    return _two_lines(lines, i)


def _two_lines(lines: Sequence[str], i: int) -> int | None:
    """The second line of a title set alone on two (plain pdftotext: "Variables,
    expressions and", then "statements", blank lines around the pair): short, flush, going
    on in lower case, neither line ending a sentence."""
    if i + 1 >= len(lines) or not _pair_alone(lines, i):
        return None
    first, rest = lines[i].strip(), lines[i + 1]
    if not first or not rest[:1].islower():
        return None
    if len(first) + len(rest) > MAX_TITLE_CHARS or first.endswith(END_PUNCT[:3]):
        return None
    return None if rest.rstrip().endswith(END_PUNCT[:3]) else i + 1


def _pair_alone(lines: Sequence[str], i: int) -> bool:
    """Whether lines ``i`` and ``i + 1`` stand alone together, blank lines around them."""
    return _opens_block(lines, i) and (i + 2 >= len(lines) or not lines[i + 2].strip())


def _opens_block(lines: Sequence[str], i: int) -> bool:
    """Whether line ``i`` is the first, or follows a blank line or a form feed (a page
    break sets a line off as a blank line does: "\\f4   Frames and Overlays")."""
    return i == 0 or not lines[i - 1].strip() or lines[i].startswith("\f")


def _hanging(lines: Sequence[str], i: int) -> int | None:
    """The line under numbered title ``i`` that carries on its title, indented to where
    the title starts ("51      Encoding definition files for encodings of PDF", then
    "        strings"), if any (``gather`` asks only of numbered lines)."""
    if i + 1 >= len(lines):
        return None
    column = title_column(lines[i].lstrip("\f"))
    rest = lines[i + 1]
    words = rest.strip()
    indent = len(rest) - len(rest.lstrip(" "))
    if indent != column or not words or len(words) > MAX_TITLE_CHARS or numbered_key(words):
        return None
    return None if words.endswith(END_PUNCT[:3]) else i + 1


def _wrapped_round(lines: Sequence[str], i: int) -> int | None:
    """The line holding the rest of a chapter title that opens a page and wraps round its
    label: pdftotext -layout prints a typeset "Chapter 2" set beside the title's last line
    between the title's two lines ("Variables, expressions and", "      Chapter   2",
    "statements"). Only a short line going on in lower case, as a sentence-case title
    does, is the rest: a paragraph opens with a capital."""
    if i + 2 >= len(lines) or not lines[i + 1].startswith(" ") or not label_only(lines[i + 1]):
        return None
    rest = lines[i + 2]
    words = rest.strip()
    if not words[:1].islower() or rest[:1].isspace() or len(words) > MAX_TITLE_CHARS:
        return None
    return None if words.endswith(END_PUNCT[:3]) else i + 2


def _page_label(lines: Sequence[str], i: int | None, furniture: frozenset[int]) -> bool:
    """Whether line ``i`` is only a numbering label opening a page ("\\fChapter 1", "\\fPart
    I"): pdftotext prints a typeset chapter's label so, its title on the line under it
    (or the one after, plain pdftotext leaving a blank line between)."""
    return i is not None and page_top(lines[i]) and i not in furniture and label_only(lines[i])


def _split_label(lines: Sequence[str], i: int, furniture: frozenset[int]) -> bool:
    """Whether line ``i`` is the title under a label printed on two lines of its own that
    opens its page ("\\fChapter", "14", then "Files"): plain pdftotext sets a typeset
    chapter's word and number apart."""
    number = text_before(lines, i)
    if number is None:
        return False
    word = text_before(lines, number)
    if word is None or not page_top(lines[word]) or word in furniture:
        return False
    return label_keyword(f"{lines[word].strip()} {lines[number].strip()}") is not None


def text_before(lines: Sequence[str], i: int) -> int | None:
    """The line with text before line ``i``, at most one blank line between."""
    j = i - 1
    if j >= 0 and not lines[j].strip():
        j -= 1
    return j if j >= 0 and lines[j].strip() else None


def with_looks(lines: Sequence[str], candidates: Mapping[int, Candidate]) -> dict[int, Candidate]:
    """The candidates, the standalone ones with their look and their setting filled in
    (what decides a heading when no contents block names them: read only then, as it is
    most of the gathering's cost)."""
    return {i: _looks(lines, c) if c.standalone else c for i, c in candidates.items()}


def _looks(lines: Sequence[str], c: Candidate) -> Candidate:
    """A standalone candidate with its look and its setting filled in."""
    shape = heading_level(c.text)
    return replace(
        c,
        shape=None if shape is None else shape[0],
        numbered_title=numbered_title(c.text),
        short_run=in_short_run(lines, c.line),
        prose=is_prose(lines[c.line]),
        heads_text=heads_text(lines, c.line),
    )


LABEL_REACH = 4  # lines back (the label and the blank lines under it) to a title's label


def label_before(lines: Sequence[str], candidates: Mapping[int, Candidate], i: int) -> int | None:
    """The label line standing alone just before line ``i`` (blank lines between), if any."""
    p = i - 1
    while p >= 0 and i - p <= LABEL_REACH and not lines[p].strip():
        p -= 1
    c = candidates.get(p) if p != i - 1 else None
    return p if c is not None and c.standalone and c.label else None
