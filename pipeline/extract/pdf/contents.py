"""A PDF's printed table of contents as evidence for its headings.

The boilerplate pass takes a contents page's entries out of the text; their titles and
section numbers still say which lines of the body the author counts as headings. Font
evidence alone cannot tell an unnumbered heading that is in the contents (a chapter's
"Exercises") from one that is not (a starred section, a dedication, the contents page's
own title).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...text.titles import norm_title
from ..boilerplate import CONTENTS_TITLE

# an entry's dot leaders and page number ("1.2 Metric spaces . . . . 6", "Preface vii")
_PAGE_REF = re.compile(r"(?:\s*[.·…])*\s+(?:\d{1,4}|[ivxlc]{1,7}|[IVXLC]{1,7})$")
# a multi-part number run into its title when wider than the box LaTeX sets it in
# ("47.10VTeX's driver")
_GLUED_NUMBER = re.compile(r"^((?:\d+|[A-Z])(?:\.\d+)+)(?=[^\W\d_])")
# a section number opening an entry or a heading: "3.1", "A.2", "Chapter 3", "Appendix B"
_NUMBER = re.compile(
    r"^(?:(?:chapter|part|appendix|kapitel|teil|anhang)\s+)?((?:\d+|(?-i:[A-Z]))(?:\.\d+)*)"
    r"\.?\s+\S",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Contents:
    """The title keys (``norm_title``) and section numbers a printed contents lists."""

    keys: frozenset[str] = frozenset()
    numbers: frozenset[str] = frozenset()
    # (title key or section number, printed page number) of each entry with an arabic page
    pages: frozenset[tuple[str, int]] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.keys)

    def printed_pages(self, title: str) -> set[int]:
        """The printed page numbers the contents gives for ``title`` (by its title or its
        section number); empty when it lists none."""
        names = {norm_title(title), section_number(title)}
        return {page for name, page in self.pages if name in names}

    def lists(self, title: str) -> bool:
        """Whether a heading ``title`` is one of the entries: the same title, or the same
        section number (the contents may print a short title for a long one)."""
        if norm_title(title) in self.keys:
            return True
        number = section_number(title)
        return number is not None and number in self.numbers


# the title of a list of floats: its entries are captions ("2.2 Best Animations . . 10"),
# whose numbers and words say nothing about the headings
_FLOATS_TITLE = re.compile(
    r"^(?:list\s+of\s+(?:figures|tables|listings|algorithms|illustrations|plates|exhibits"
    r"|examples|code|maps|charts|boxes)|abbildungsverzeichnis|tabellenverzeichnis"
    r"|table\s+des\s+figures|liste\s+des\s+(?:figures|tableaux))$",
    re.IGNORECASE,
)


def heading_entries(pages: Iterable[Sequence[tuple[str, bool]]]) -> list[str]:
    """The contents entries that list headings, from each page's lines in reading order as
    ``(text, is_entry)``: the entries of a list of figures, tables or listings are left
    out. Such a list runs from its title (an entry line or not) to a contents title or to
    the first page holding no entry; a title page of one list may follow another's. The
    first line of a page reading "Contents xv" is the contents' running head, not an
    entry listing the contents page (which may be one further down a page)."""
    out: list[str] = []
    floats = False
    for lines in pages:
        if not any(entry for _, entry in lines):
            floats = False
            continue
        for k, (text, entry) in enumerate(lines):
            title = " ".join(text.split())
            if k == 0 and entry and CONTENTS_TITLE.match(_PAGE_REF.sub("", title)):
                continue
            if _FLOATS_TITLE.match(title):
                floats = True
            elif CONTENTS_TITLE.match(title):
                floats = False
            elif entry and not floats:
                out.append(text)
    return out


def section_number(title: str) -> str | None:
    m = _NUMBER.match(title.strip())
    return m.group(1).upper() if m is not None else None


def printed_contents(lines: Iterable[str]) -> Contents:
    """The contents from its entry lines, in reading order. An entry without a page
    number continues on the next line (a title wrapped in a narrow column)."""
    keys: set[str] = set()
    numbers: set[str] = set()
    pages: set[tuple[str, int]] = set()
    pending = ""
    for raw in lines:
        text = _GLUED_NUMBER.sub(r"\1 ", " ".join(raw.split()))
        title = _PAGE_REF.sub("", text)
        names = [norm_title(title)]
        if pending:
            joined = pending[:-1] + title if pending.endswith("-") else f"{pending} {title}"
            names.append(norm_title(joined))
        pending = text if title == text else ""  # no page number: the title may go on
        keys.update(names)
        number = section_number(title)
        if number is not None:
            numbers.add(number)
            names.append(number)
        page = text[len(title) :].strip(" .·…")
        if page.isdigit():
            pages.update((name, int(page)) for name in names if name)
    keys.discard("")
    return Contents(frozenset(keys), frozenset(numbers), frozenset(pages))


__all__ = ["Contents", "heading_entries", "printed_contents", "section_number"]
