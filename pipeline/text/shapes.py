"""What one line of flat text reads as, from its own characters only (no neighbours): a
part or chapter label, a numbered title, ALL CAPS, short Title Case, or an aside, a
speaker's line or an index entry that is never a heading. Its neighbours are
``layout``'s; what the rest of the text says about it is ``evidence``'s."""

from __future__ import annotations

import re

from .labels import MAX_HEADING_CHARS, NUMBER_WORDS, ORDINALS, ROMAN, label_keyword
from .titles import title_case

# what may follow a label's number: nothing, or its title after a space or a dash ("PART
# I.--DRILL.", "CHAPTER II.—THE RIVER", the old printers' way)
_TITLE_AFTER = r"(?:\s.*|\s*(?:--|—|–).*)?$"
# the divisions above chapters: "Part II", "BOOK THE FIRST", "Part First.", "Volume 2",
# "EPOCH THE THIRD."
PART = re.compile(
    r"(?i:part|book|volume|epoch)\s+"
    rf"(?:\d+|{ROMAN}|(?i:{NUMBER_WORDS})|(?i:(?:the\s+)?(?:{ORDINALS})))\b[.:]?{_TITLE_AFTER}"
)
CHAPTER = re.compile(
    rf"(?i:chapter|chap\.|appendix|section|lecture|lesson)\s*(?<=\s|\.)(?:\d+(?:\.\d+)*|{ROMAN}|[A-Z]|(?i:{NUMBER_WORDS}))\b[.:]?{_TITLE_AFTER}"
)
NUMBERED = re.compile(r"(\d{1,2}(?:\.\d{1,3}){0,4})\.?\s+([A-Z][^\n]{1,78})$")
_QUOTED_SENTENCE = re.compile(r"[.!?][\"”’']$")
_PAGE_REFERENCE = re.compile(r",\s*\d{1,4}(?:[-–]\d{1,4})?$")
END_PUNCT = (".", ",", ";", ":", "!", "?", "—", "-", '"', "”", ")")
# "THE PRESIDENT: That's the proposal.", "MR. SMITH: (Laughter.)": a speaker's name in
# capitals, a colon, then what is said (a sentence or a stage direction)
_SPEAKER = re.compile(r"(?:[A-Z][A-Z'’.\-]*\s+){0,3}[A-Z][A-Z'’.\-]+:\s+(?:\(|.*[.!?)\"”]$)")
# "... the wealthy. (Applause.)": a line that ends in a parenthetical sentence
_STAGE_DIRECTION = re.compile(r"\([^()]*[.!?]\)[.!?]?$")
_CLOSERS = {"(": ")", "[": "]"}
MAX_HEADING_WORDS = 12
MAX_NUMBERED_TITLE_WORDS = 6  # "2. Second Day.": a title; a longer one reads as a sentence


def numbering(text: str) -> bool:
    """Whether a line opens with a division's numbering: "Part II", "Chapter 7", "1.2 Scope"."""
    return bool(PART.match(text) or CHAPTER.match(text) or NUMBERED.match(text))


def heading_level(line: str) -> tuple[int, str] | None:
    """(level, title) if a standalone line looks like a heading, else None.

    Levels: Part 1; Chapter/Appendix/ALL CAPS 2; numbered ``1.2`` by depth + 1;
    Title Case 3. The caller rebases levels so the top one found becomes 1.
    """
    text = line.strip()
    if not text or len(text) > MAX_HEADING_CHARS or "\t" in text:
        return None
    if _PAGE_REFERENCE.search(text):
        return None  # "Bach, C.P.E., 180, 185": an index entry's page numbers
    if PART.match(text):
        return 1, text
    if CHAPTER.match(text):
        return 2, text
    if enclosed(text) or _SPEAKER.match(text) or _STAGE_DIRECTION.search(text):
        return None  # "(223 KB EPS).", "[Illustration]", dialogue: asides, not titles
    m = NUMBERED.match(text)
    if m and title_case(m.group(2)) and not m.group(2).rstrip().endswith((".", ",", ";")):
        return min(6, m.group(1).count(".") + 2), text
    words = text.split()
    letters = [c for c in text if c.isalpha()]
    caps = len(letters) >= 3 and all(c.isupper() for c in letters)
    if caps and len(words) <= 8 and text.endswith(".") and not text.endswith(".."):
        return 2, text  # "PREFACE.", "EPOCH THE FIRST.": capitals, a printer's period
    if _QUOTED_SENTENCE.search(text):
        return None  # 'IV. "Thunder-storm."': a quotation's sentence, not a title
    if len(words) > MAX_HEADING_WORDS or text.endswith(END_PUNCT[:6]):
        return None
    if len(letters) < 2:
        return None
    if caps:
        return 2, text
    if len(words) <= 8 and title_case(text) and words[0][:1].isupper():
        return 3, text
    return None


def enclosed(text: str) -> bool:
    """Whether a line is wholly in parentheses or brackets (a trailing period aside):
    "(223 KB EPS).", "(Applause.)", "[Illustration]" are asides, never titles; "(a) Scope"
    is not enclosed."""
    body = text.rstrip(".,;:!?")
    closer = _CLOSERS.get(body[:1])
    if closer is None:
        return False
    depth = 0
    for k, ch in enumerate(body):
        depth += (ch == body[0]) - (ch == closer)
        if depth == 0:
            return k == len(body) - 1
    return False


def numbered_title(line: str) -> int | None:
    """The number of a short Title Case line numbered "N." that ends with a period ("2.
    Second Day."), else None. Alone such a line may be a list item's sentence; in a
    sequence (1, 2, 3…, see ``numeral_sequences``) it is a chapter."""
    m = NUMBERED.match(line.strip())
    if m is None or "." in m.group(1):
        return None
    title = m.group(2).rstrip()
    short = len(title.split()) <= MAX_NUMBERED_TITLE_WORDS
    return int(m.group(1)) if short and title.endswith(".") and title_case(title) else None


_LABEL_DASH = re.compile(r"(\S+)\s+\S+?\.?\s*(?:--|—|–)\s*\S")


def series_keyword(line: str) -> str | None:
    """The keyword of a label line, alone ("CHAPTER IV.") or with its title after a dash
    ("PART I.--DRILL."): the series it belongs to. A label then a space is not enough:
    "Chapter 4 also covers…" opens a paragraph."""
    kw = label_keyword(line)
    if kw is not None:
        return kw
    text = line.strip()
    m = _LABEL_DASH.match(text)
    if m and (PART.match(text) or CHAPTER.match(text)):
        return m.group(1).casefold()
    return None


def family(title: str) -> int | None:
    """Rank of a title's numbering family: Part 1, Chapter/Appendix 2, ``N.M`` by depth."""
    if PART.match(title):
        return 1
    if CHAPTER.match(title):
        return 2
    m = NUMBERED.match(title)
    return m.group(1).count(".") + 2 if m else None
