"""A PDF's title when its metadata title does not name the document.

Metadata titles are often what a tool left behind: a filing number
(``0000764478-23-000006``), ``Microsoft Word - x.docx``, ``untitled``, the file name. Such
a title is replaced by one read from the first page(s): on an SEC filing cover the
registrant's name, form and period ("3M COMPANY — Form 10-K FY2018"), elsewhere the
largest short line(s) that are not cover boilerplate; the readable file stem is added
when that title lacks its words (retrieval questions name company and period the way
file names do), and is the title when the first page gives none.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from .layout import Line

_APP_TITLE = re.compile(r"^(?:microsoft\s+(?:word|excel|powerpoint)\b|untitled\b)", re.I)
_GENERIC_TITLE = re.compile(
    r"^(?:untitled|document|doc|book|presentation|slide|title|no title|cover|report|scan)"
    r"[\s_-]*\d*$",
    re.I,
)
_FILE_NAME = re.compile(
    r"\.(?:pdf|docx?|rtf|odt|txt|xlsx?|pptx?|indd|html?|tex|dvi|e?ps|qxd|pages)$", re.I
)
_HEX_ID = re.compile(r"[0-9a-f]{16,}", re.I)
# cover-page lines that are never the document's name
_BOILERPLATE = re.compile(
    r"^(?:united states|(?:united states )?securities and exchange commission.*"
    r"|washington,? d\.? ?c\..*|form \d[\w-]*|(?:table of )?contents|index"
    r"|for immediate release|\(mark one\)|.*\bpursuant to\b.*)$",
    re.I,
)
_REGISTRANT = re.compile(r"\(\s*exact name of registrant", re.I)
_RULE = re.compile(r"_{3,}")
# "MGM R ESORTS": a small-caps word split after its capital ("A" may be a word of its own)
_SMALL_CAPS = re.compile(r"\b([B-Z]) (?=[A-Z]{2,}\b)")
_SPACE_PUNCT = re.compile(r"\s+(?=[.,])")
_FORM = re.compile(r"\bFORM\s+(10-KT?|10-Q|8-K|20-F|40-F|6-K|S-1|S-4)\b", re.I)
_DATE = r"([A-Z][a-z]+\.? \d{1,2}, ?(\d{4}))"
_PERIODS = (  # (pattern, format): how a cover states the period it covers
    (re.compile(r"fiscal year ended:?\s+" + _DATE, re.I), "FY{year}"),
    # the date may come a few words later where a column of cover text interleaves
    (
        re.compile(r"quarterly period ended:?\s+(?:\S+\s+){0,3}?" + _DATE, re.I),
        "quarter ended {date}",
    ),
    (re.compile(r"date of report[^:]*:\s*" + _DATE, re.I), "{date}"),
)
_CORPORATE = frozenset(
    ["the", "and", "inc", "corp", "corporation", "company", "co", "plc", "ltd", "llc", "group"]
)
TITLE_SIZE_RATIO = 1.25  # a title line is this much larger than the page's body text
MAX_TITLE_CHARS = 120


def is_placeholder_title(title: str, stem: str = "") -> bool:
    """Whether a metadata title is an identifier or artefact rather than a name: empty,
    ``untitled``/``Document1``, ``Microsoft Word - …``, a file name (or the file's own
    stem), a number with no words (filing numbers), a hex string or UUID, or the SEC
    cover's header line."""
    t = " ".join(title.split())
    if not t or _GENERIC_TITLE.match(t) or _APP_TITLE.match(t) or _FILE_NAME.search(t):
        return True
    if stem and _squash(t) == _squash(stem):
        return True
    if " " not in t and "_" in t:  # one token joined by underscores: a file name
        return True
    if not re.search(r"[^\W\d_]", t):  # digits and punctuation only: a filing number
        return sum(ch.isdigit() for ch in t) >= 6
    if _HEX_ID.fullmatch(re.sub(r"[\s{}:._-]", "", t)):  # hex ids and UUIDs
        return True
    return _BOILERPLATE.match(t) is not None


def readable_stem(stem: str) -> str:
    """``3M_2018_10K`` → ``3M 2018 10K``; hyphens inside dates and numbers stay."""
    text = re.sub(r"[_.]+|(?<!\d)-|-(?!\d)", " ", stem)
    return " ".join(text.split())


def pdf_title(meta: str, pages: Sequence[Sequence[Line]], stem: str) -> str:
    """The metadata title when it names the document, else one read from the first
    page(s), with the readable file stem added when it brings words of its own."""
    cover = sec_cover(pages[:2])
    # on a filing's cover, a title that does not name the registrant is a filer's code
    if meta and not is_placeholder_title(meta, stem) and (cover is None or _names(meta, cover[0])):
        return meta
    first = next((lines for lines in pages[:2] if lines), ())
    found = " — ".join(p for p in cover if p) if cover else prominent_lines(first)
    readable = readable_stem(stem)
    if not found:
        return readable or meta
    if readable and not all(w in _squash(found) for w in map(_squash, readable.split())):
        return f"{found} — {readable}"
    return found


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).casefold()


def _names(title: str, registrant: str) -> bool:
    """Whether ``title`` carries a distinctive word of the registrant's name."""
    words = {w.casefold() for w in re.findall(r"\w{2,}", registrant)} - _CORPORATE
    have = {w.casefold() for w in re.findall(r"\w{2,}", title)}
    return bool(words & have)


def sec_cover(pages: Sequence[Sequence[Line]]) -> tuple[str, str] | None:
    """(registrant name, "Form 10-K FY2018"-style form and period) from an SEC cover."""
    for lines in pages:
        texts = [ln.text for ln in lines]
        name = _registrant(texts) or (prominent_lines(lines) if _form(texts) else "")
        if name:
            return name, " ".join(p for p in (_form(texts), _period(texts)) if p)
    return None


def _registrant(texts: Sequence[str]) -> str:
    """The name on the line above "(Exact name of registrant …)", or before it on its
    own line; rules of underscores separate it from other cover text."""
    for i, text in enumerate(texts):
        m = _REGISTRANT.search(text)
        if m is None:
            continue
        for candidate in (text[: m.start()], texts[i - 1] if i else ""):
            pieces = [p.strip() for p in _RULE.split(candidate) if p.strip()]
            if pieces and re.search(r"[^\W\d_]", pieces[-1]):
                name = _SPACE_PUNCT.sub("", _SMALL_CAPS.sub(r"\1", pieces[-1]))
                return name[:MAX_TITLE_CHARS]
        return ""
    return ""


def _form(texts: Sequence[str]) -> str:
    for text in texts:
        m = _FORM.search(text)
        if m:
            return f"Form {m.group(1).upper()}"
    return ""


def _period(texts: Sequence[str]) -> str:
    joined = " ".join(texts)
    for pattern, fmt in _PERIODS:
        m = pattern.search(joined)
        if m:
            return fmt.format(date=m.group(1), year=m.group(2))
    return ""


def prominent_lines(lines: Sequence[Line]) -> str:
    """The largest short lines of a page (adjacent ones joined), when clearly larger
    than its body text and not cover boilerplate; "" when no line stands out."""
    sizes: Counter[float] = Counter()
    for ln in lines:
        sizes[ln.size] += len(ln.text)
    if not sizes:
        return ""
    body = sizes.most_common(1)[0][0]
    candidates = [
        (i, ln)
        for i, ln in enumerate(lines)
        if ln.size >= body * TITLE_SIZE_RATIO
        and 2 <= len(ln.text) <= MAX_TITLE_CHARS
        and re.search(r"[^\W\d_]", ln.text)
        and not _BOILERPLATE.match(ln.text)
    ]
    if not candidates:
        return ""
    top = max(ln.size for _, ln in candidates)
    picked = [(i, ln) for i, ln in candidates if ln.size >= top - 0.5]
    run = [picked[0]]
    for i, ln in picked[1:]:  # a title set on two or three consecutive lines
        if i != run[-1][0] + 1 or len(run) == 3:
            break
        run.append((i, ln))
    return " ".join(ln.text for _, ln in run)[:MAX_TITLE_CHARS]


__all__ = ["is_placeholder_title", "pdf_title", "prominent_lines", "readable_stem", "sec_cover"]
