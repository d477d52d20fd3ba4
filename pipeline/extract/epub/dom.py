"""Reading the XML of an EPUB safely: no DTD, no entity expansion, no network."""

from __future__ import annotations

import re
from typing import Any

HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
BLOCK = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "body",
        "dd",
        "details",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "footer",
        "header",
        "hgroup",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "summary",
        "table",
        "ul",
        *HEADINGS,
    }
)
SKIP = frozenset({"head", "script", "style", "template", "svg", "math", "object", "iframe"})
WS = re.compile(r"[ \t\r\n\u00a0]+")


def local(el: Any) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1].lower()


def attr(el: Any, name: str) -> str:
    for k, v in el.attrib.items():
        if k == name or k.endswith("}" + name):
            return str(v)
    return ""


def parse_xml(data: bytes) -> Any:
    from lxml import etree, html  # type: ignore[import-untyped,unused-ignore]

    parser = etree.XMLParser(
        recover=True, resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False
    )
    try:
        root = etree.fromstring(data, parser=parser)
    except etree.XMLSyntaxError:
        root = None
    if root is None:
        try:
            root = html.fromstring(data)
        except (etree.ParserError, ValueError):
            return None
    return root


def text_of(el: Any) -> str:
    """An element's text, whitespace collapsed."""
    return WS.sub(" ", "".join(el.itertext())).strip()
