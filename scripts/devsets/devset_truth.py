"""Heading truth of the flat-text dev set's RFCs, EPUBs, mdBook manuals and Texinfo
manuals, each from a source the flat-text heuristics never read (see
eval/flat-text/README.md). Gutenberg books are ``devset_gutenberg``. An entry is
``{"level": 1 = top, "title": str}``."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

from devset_sources import DevSetError
from lxml import etree

Entry = dict[str, Any]
XHTML = "{http://www.w3.org/1999/xhtml}"
OPF = {"o": "http://www.idpf.org/2007/opf"}
LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def squash(s: str) -> str:
    return " ".join(s.split())


# ---------- RFCs: the xml2rfc source's sections ----------


def rfc_truth(xml: bytes) -> list[Entry]:
    """The ``<section>``/``<references>`` names of ``<middle>`` and ``<back>``, nested, then
    the sections xml2rfc always prints: "Index" (when the source has ``<iref>``s) and the
    authors' addresses."""
    parser = etree.XMLParser(resolve_entities=False, load_dtd=False, no_network=True, recover=True)
    root = etree.fromstring(xml, parser)
    out: list[Entry] = []

    def walk(el: Any, level: int) -> None:
        for ch in el:
            if ch.tag in ("section", "references"):
                name = ch.find("name")
                raw = "".join(name.itertext()) if name is not None else ch.get("title", "")
                title = squash(raw)
                if ch.tag == "references" and not title:
                    title = "References"
                out.append({"level": level, "title": title})
                walk(ch, level + 1)

    for part in ("middle", "back"):
        if (p := root.find(part)) is not None:
            walk(p, 1)
    if root.find(".//iref") is not None:
        out.append({"level": 1, "title": "Index"})
    one = len(root.findall("front/author")) == 1
    out.append({"level": 1, "title": "Author's Address" if one else "Authors' Addresses"})
    return out


# ---------- EPUBs: the nav document's toc ----------


def _nav_document(z: zipfile.ZipFile) -> Any:
    container = z.read("META-INF/container.xml")
    m = re.search(rb'full-path="([^"]+)"', container)
    if m is None:
        raise DevSetError("EPUB container.xml names no package document")
    opf_path = m.group(1).decode()
    opf = etree.fromstring(z.read(opf_path))
    items = opf.findall(".//o:manifest/o:item", OPF)
    nav = [i for i in items if "nav" in (i.get("properties") or "").split()]
    if not nav:
        raise DevSetError(f"EPUB package {opf_path} has no nav item")
    base = opf_path.rsplit("/", 1)[0] + "/" if "/" in opf_path else ""
    return etree.fromstring(z.read(base + nav[0].get("href")))


def nav_truth(z: zipfile.ZipFile) -> list[Entry]:
    """The ``toc`` nav's nested lists, each entry with its ``href`` (the export drops the
    entries that point at the nav document itself)."""
    nav = _nav_document(z)
    navs = nav.iter(XHTML + "nav")
    toc = next((n for n in navs if n.get("{http://www.idpf.org/2007/ops}type") == "toc"), None)
    if toc is None or toc.find(XHTML + "ol") is None:
        raise DevSetError("EPUB nav document has no toc list")
    out: list[Entry] = []

    def walk(ol: Any, level: int) -> None:
        for li in ol.findall(XHTML + "li"):
            a = li.find(XHTML + "a")
            if a is None:
                a = li.find(XHTML + "span")
            if a is not None:
                title = squash("".join(a.itertext()))
                out.append({"level": level, "title": title, "href": a.get("href", "")})
            if (sub := li.find(XHTML + "ol")) is not None:
                walk(sub, level + 1)

    walk(toc.find(XHTML + "ol"), 1)
    return out


# ---------- mdBook manuals: SUMMARY.md ----------


def summary_entries(summary: str) -> Iterator[tuple[int, str, str]]:
    """``(level, title, chapter path)`` of each linked SUMMARY.md item, two spaces a level."""
    for line in summary.split("\n"):
        m = re.match(r"^(\s*)[-*]\s+\[(.+?)\]\(([^)]*)\)", line)
        if m and m.group(3).strip():
            level = len(m.group(1).expandtabs(4)) // 2 + 1
            yield level, squash(LINK.sub(r"\1", m.group(2)).replace("`", "")), m.group(3).strip()


# ---------- Texinfo manuals: sectioning commands ----------

TEXI_LEVEL = {
    **dict.fromkeys(("chapter", "unnumbered", "appendix"), 1),
    **dict.fromkeys(("section", "unnumberedsec", "appendixsec"), 2),
    **dict.fromkeys(("subsection", "unnumberedsubsec", "appendixsubsec"), 3),
    **dict.fromkeys(("subsubsection", "unnumberedsubsubsec", "appendixsubsubsec"), 4),
}
_CONDITIONAL = re.compile(
    r"@(ignore|ifhtml|iftex|ifdocbook|ifxml|iflatex|ifinfo|ifplaintext|ifnottex|ifnothtml"
    r"|ifnotinfo|ifnotplaintext|ifset|ifclear)\b\s*(\S*)"
)
# read by makeinfo --plaintext; the other conditionals are for other output formats
_PLAINTEXT_READS = ("ifinfo", "ifplaintext", "ifnottex", "ifnothtml")


def texi_title(t: str, values: dict[str, str]) -> str:
    """A sectioning line's argument as text: ``@value``s filled, markup commands dropped."""
    t = re.sub(r"@value\{([^}]*)\}", lambda m: values.get(m.group(1), m.group(1)), t)
    for _ in range(3):  # nested braces, innermost first
        t = re.sub(r"@[a-zA-Z]+\{([^{}]*)\}", r"\1", t)
    t = t.replace("@@", "@").replace("@{", "{").replace("@}", "}")
    return squash(re.sub(r"@[a-zA-Z]+\s*", "", t))


def _active(command: str, arg: str, values: dict[str, str]) -> bool:
    if command == "ifset":
        return arg in values
    if command == "ifclear":
        return arg not in values
    return command in _PLAINTEXT_READS


def texinfo_truth(main: str, read: Callable[[str], str]) -> list[Entry]:
    """The ``@chapter``/``@section``/``@unnumbered``/``@appendix`` family of the manual
    ``main`` (its ``@include``s read in place by ``read(name)``), levels by command;
    ``@top`` left out; conditionals as ``makeinfo --plaintext`` reads them."""
    out: list[Entry] = []
    values: dict[str, str] = {}
    stack: list[tuple[str, bool]] = []

    def lines(name: str) -> Iterator[str]:
        for line in read(name).split("\n"):
            inc = re.match(r"@include\s+(\S+)", line)
            if inc and all(a for _, a in stack):
                yield from lines(inc.group(1))
            else:
                yield line

    for line in lines(main):
        if m := _CONDITIONAL.match(line):
            stack.append((m.group(1), _active(m.group(1), m.group(2), values)))
            continue
        if (m := re.match(r"@end (\w+)", line)) and stack and stack[-1][0] == m.group(1):
            stack.pop()
            continue
        if not all(a for _, a in stack):
            continue
        if line.startswith("@bye"):
            break
        if m := re.match(r"@set\s+(\S+)\s*(.*)$", line):
            values[m.group(1)] = m.group(2)
        if (m := re.match(r"@(\w+)\s+(.*)$", line)) and m.group(1) in TEXI_LEVEL:
            out.append({"level": TEXI_LEVEL[m.group(1)], "title": texi_title(m.group(2), values)})
    return out
