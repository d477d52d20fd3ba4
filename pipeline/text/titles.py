"""Heading titles: the key two titles are compared on, whatever format they came from."""

from __future__ import annotations

import html
import re

# matched at a position (``match(s, pos)``), so it has no "^": that would fail past the start
_NUMBERING = re.compile(
    r"(?:(?:chapter|part|section|appendix|lecture|kapitel|teil|anhang|chapitre|partie)\b\.?\s*)?"
    r"(?:(?:\d+|[ivxlc]+|[a-z])(?:[.\-]\d+)*\.?(?:\s+|$))?",
    re.IGNORECASE,
)
_NON_WORD = re.compile(r"[\W_]+")
_LEADING_NON_WORD = re.compile(r"^[\W_]+")
# the ASCII characters [\W_] matches: all but letters and digits
_ASCII_NON_WORD = bytes(c for c in range(128) if not chr(c).isalnum())


def _word_chars(s: str) -> str:
    """``s`` without the characters ``[\\W_]`` matches; an ASCII string through a byte
    table (a tenth of the pattern's time on a line of prose)."""
    if s.isascii():
        return s.encode("ascii").translate(None, _ASCII_NON_WORD).decode("ascii")
    return _NON_WORD.sub("", s)


def title_chars(text: str) -> str:
    """``text``'s word characters, case-folded: every key ``norm_title`` gives for a text
    ends it (the key is the word characters of a part that ends the text, or all of
    them), and that of texts joined by blanks is theirs one after the other (case folding
    and the word test go character by character)."""
    return _word_chars(text.casefold())


def norm_title(text: str) -> str:
    """Fold case, numbering, punctuation and spacing: the key headings match on."""
    s = text.casefold().strip()  # no blank at either end
    if not s[:1].isalnum():  # else nothing to drop: [\W_] is what str.isalnum is not
        s = _LEADING_NON_WORD.sub("", s)
    # each numbering is dropped by moving past it, and words after it are known from where
    # the last one is: copying and testing the rest per numbering dropped took a line of
    # many numbers ("1 2 3 …") its length squared
    at, last_word = 0, None
    while True:  # "Chapter 3 1.2 Foo" → "foo"; "A. Appendix" → "appendix"
        # an empty match leaves the title as it is (most lines)
        m = _NUMBERING.match(s, at)
        if m is None or m.end() == at:
            break
        after = m.end()  # past blanks, as the rest stripped would start (none at its end)
        while after < len(s) and s[after].isspace():
            after += 1
        if last_word is None:
            last_word = next((k for k in range(len(s) - 1, -1, -1) if s[k].isalnum()), -1)
        if after > last_word:  # no word after the numbering: it is the title
            break
        at = after
    key = _word_chars(s[at:])
    return key or _word_chars(text.casefold())


# tried only where a run of blanks begins: tried at each blank of a long run (pdftotext
# -layout's gaps), "\s*" ran to the run's end each time, the run's length squared
_FOOTNOTE_MARK = re.compile(r"(?<!\s)\s*\[(?:\d{1,3}|[a-z*†‡])\]$", re.IGNORECASE)


# "Chapter 1: ", "Part II: ": a numbering label and a colon before the title (an export's
# contents line for a body that sets "Chapter 1" and the title on two lines)
_LABEL_COLON = re.compile(
    r"^(?:chapter|part|section|appendix|lecture|book)\s+(?:\d+|[ivxlc]+|[a-z]):\s+",
    re.IGNORECASE,
)


def entry_key(text: str) -> str:
    """``norm_title`` as a contents entry and the heading it names are compared: a
    trailing footnote mark aside ("Stone" names "STONE.[8]"), a label's colon aside
    ("Chapter 1: What Is an Index?" names "What Is an Index?")."""
    text = text.strip()
    if text.endswith("]"):  # the mark ends the text; most titles end otherwise
        text = _FOOTNOTE_MARK.sub("", text)
    return norm_title(_LABEL_COLON.sub("", text))


def same_words(a: str, b: str) -> bool:
    """The same words, case and punctuation aside ("Georgia" and "GEORGIA", "Moby-Dick" and
    "MOBY DICK."); numbering counts (unlike ``norm_title``: "1 Georgia" is a chapter)."""
    words = re.findall(r"\w+", a.casefold())
    return bool(words) and words == re.findall(r"\w+", b.casefold())


_ENTITY = re.compile(r"&(?:#\d{1,7}|#x[0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def plain_title(text: str) -> str:
    """A title as plain text: entities left escaped by the source decoded, spacing collapsed."""
    return " ".join(_ENTITY.sub(lambda m: html.unescape(m.group()), text).split())


_SMALL_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "but",
        "by",
        "for",
        "from",
        "in",
        "into",
        "nor",
        "of",
        "on",
        "or",
        "over",
        "per",
        "the",
        "to",
        "up",
        "via",
        "vs",
        "with",
    ]
)


def title_case(text: str) -> bool:
    """Whether every content word starts with a capital or a digit ("The Old Mint")."""
    words = [w.strip("()[]'\"“”‘’") for w in text.split()]
    content = [w for w in words if w and w.lower() not in _SMALL_WORDS]
    if not content:
        return False
    capital = sum(1 for w in content if w[0].isupper() or w[0].isdigit())
    return capital == len(content)
