"""marker-pdf backend (optional): layout models → markdown, pages and outline kept.

``pip install 'folio-pipeline[marker]'`` installs marker-pdf; its models must already be
on this machine (Folio never downloads them on its own during ``auto``). The converter
is created once per process and reused.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

from ...errors import EmptyDocumentError, MarkerUnavailableError
from ...model import Document, OutlineEntry, Page, SourceInfo
from ..boilerplate import detect_boilerplate

log = logging.getLogger("folio.extract")

INSTALL_HINT = "pip install 'folio-pipeline[marker]'"
# marker's paginated markdown: "\n\n{PAGE_ID}------------------------------------------------\n\n"
_PAGE_MARK = re.compile(r"(?:^|\n)\{(\d+)\}-{48}[ \t]*(?:\n|$)")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_ATX = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_converter: Any = None


def marker_importable() -> bool:
    try:
        return importlib.util.find_spec("marker") is not None
    except (ImportError, ValueError):
        return False


def _model_dirs() -> list[Path]:
    dirs: list[Path] = []
    env = os.environ.get("MODEL_CACHE_DIR")
    if env:
        dirs.append(Path(env))
    try:
        from surya.settings import settings  # type: ignore[import-not-found,unused-ignore]

        dirs.append(Path(settings.MODEL_CACHE_DIR))
    except Exception:  # surya missing or its settings changed: look in the usual places
        pass
    home = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    dirs.append(home / "datalab" / "models")
    return dirs


def models_available() -> tuple[bool, str]:
    """Whether marker's layout/recognition models are on disk (no network is touched)."""
    for d in _model_dirs():
        try:
            if d.is_dir() and any(p.is_dir() and any(p.iterdir()) for p in d.iterdir()):
                return True, f"models in {d}"
        except OSError:
            continue
    hub = Path(os.environ.get("HF_HUB_CACHE", Path.home() / ".cache" / "huggingface" / "hub"))
    try:
        if hub.is_dir() and any(
            p.name.startswith(("models--vikp--surya", "models--datalab-to--"))
            for p in hub.iterdir()
        ):
            return True, f"models in {hub}"
    except OSError:
        pass
    return False, "marker models are not downloaded on this machine"


def resolve_backend(requested: str, source: str = "") -> tuple[str, str]:
    """The PDF backend to use and why: ``("pdfium"|"pypdf"|"marker", reason)``."""
    if requested in ("pdfium", "pypdf"):
        return requested, "requested"
    importable = marker_importable()
    ok, why = models_available() if importable else (False, "marker-pdf is not installed")
    if requested == "marker":
        if not importable:
            raise MarkerUnavailableError(
                source, f"the marker backend needs marker-pdf: {INSTALL_HINT}"
            )
        if not ok:
            raise MarkerUnavailableError(
                source, f"the marker backend is installed but {why}; run marker once to fetch them"
            )
        return "marker", f"requested; {why}"
    if importable and ok:
        return "marker", f"auto: marker installed, {why}"
    return "pdfium", f"auto: {why}"


def _default_converter() -> Callable[[str], Any]:
    global _converter
    if _converter is None:
        try:
            from marker.converters.pdf import (  # type: ignore[import-not-found,unused-ignore]
                PdfConverter,
            )
            from marker.models import (  # type: ignore[import-not-found,unused-ignore]
                create_model_dict,
            )
        except ImportError as exc:
            raise MarkerUnavailableError(
                "", f"marker-pdf is not importable: {INSTALL_HINT}"
            ) from exc
        _converter = PdfConverter(
            artifact_dict=create_model_dict(),
            config={
                "paginate_output": True,
                "output_format": "markdown",
                "disable_image_extraction": True,
            },
        )
    conv: Callable[[str], Any] = _converter
    return conv


def split_pages(markdown: str) -> list[tuple[int, str]]:
    """``(page_index, markdown)`` per page of marker's paginated output."""
    marks = list(_PAGE_MARK.finditer(markdown))
    if not marks:
        return [(0, markdown)]
    out: list[tuple[int, str]] = []
    head = markdown[: marks[0].start()]
    if head.strip():
        out.append((int(marks[0].group(1)), head))
    for k, m in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(markdown)
        out.append((int(m.group(1)), markdown[m.end() : end]))
    return out


def _pdf_facts(path: Path) -> tuple[int | None, str]:
    """The page count and the information dictionary's title, as PDFium reads them (each
    unknown when PDFium cannot say: marker's own output still stands)."""
    from .document import PdfiumFile

    try:
        with PdfiumFile.open(path, None) as pdf:
            return pdf.n_pages, pdf.metadata()["Title"]
    except Exception:
        return None, ""


def document_from_marker(
    markdown: str,
    metadata: Mapping[str, Any],
    *,
    source: str,
    title: str = "",
    page_count: int | None = None,
    use_outline: bool = True,
) -> Document:
    """Turn marker's paginated markdown + metadata into a ``Document`` (pure)."""
    pages_md = split_pages(markdown)
    n_pages = max([page_count or 0, *(i + 1 for i, _ in pages_md)])
    per_page: list[list[str]] = [[] for _ in range(n_pages)]
    for idx, md in pages_md:
        per_page[idx].extend(md.strip("\n").split("\n"))
    bp = detect_boilerplate([_masked(lines) for lines in per_page])
    text, page_map = _join_pages(per_page, bp.removed_set())
    if not text.strip():
        raise EmptyDocumentError(source, "marker found no text in the PDF")
    toc: Sequence[Mapping[str, Any]] = metadata.get("table_of_contents") or []
    outline = _outline(text, page_map, toc if use_outline else ())
    return Document(
        text=text,
        source=source,
        format="pdf",
        markup="markdown",
        title=title,
        heading_mode="markdown",
        pages=page_map,
        outline=outline,
        info=SourceInfo("marker", page_count=n_pages, boilerplate=bp.removed),
    )


def _masked(lines: list[str]) -> list[str]:
    """A page's lines with code-fence contents and table rows blanked: boilerplate
    detection must not take a line of code or a row for a running head."""
    fence = False
    out: list[str] = []
    for ln in lines:
        if _FENCE.match(ln):
            fence = not fence
            out.append("")
        else:
            out.append("" if fence or ln.lstrip().startswith("|") else ln)
    return out


def _join_pages(
    per_page: list[list[str]], removed: AbstractSet[tuple[int, int]]
) -> tuple[str, tuple[Page, ...]]:
    """The pages' kept lines joined by blank lines (ending in a newline) and each
    page's character range in that text."""
    parts: list[str] = []
    pos = 0
    starts: list[int] = []
    for p, lines in enumerate(per_page):
        kept = [ln for i, ln in enumerate(lines) if (p + 1, i) not in removed]
        block = re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")
        if block and pos:
            parts.append("\n\n")
            pos += 2
        starts.append(pos)
        if block:
            parts.append(block)
            pos += len(block)
    text = "".join(parts) + "\n"
    n = len(per_page)
    pages = tuple(
        Page(i + 1, None, starts[i], starts[i + 1] if i + 1 < n else len(text)) for i in range(n)
    )
    return text, pages


def _outline(
    text: str, pages: tuple[Page, ...], toc: Sequence[Mapping[str, Any]]
) -> tuple[OutlineEntry, ...]:
    """Marker's table of contents located in the text (by title, in order), or without
    one the markdown headings."""

    def page_of(off: int) -> int:
        return next((pg.number for pg in pages if pg.char_start <= off < pg.char_end), len(pages))

    heads = [(m.start(), len(m.group(1)), m.group(2)) for m in _ATX.finditer(text)]
    if not toc:
        return tuple(OutlineEntry(lvl, t, page_of(off), off) for off, lvl, t in heads)
    outline: list[OutlineEntry] = []
    used: set[int] = set()
    for entry in toc:
        t = " ".join(str(entry.get("title", "")).split())
        if not t:
            continue
        page = entry.get("page_id")
        at = next((h for h in heads if h[0] not in used and " ".join(h[2].split()) == t), None)
        if at is not None:
            used.add(at[0])
        number = int(page) + 1 if isinstance(page, int) else (page_of(at[0]) if at else None)
        level = int(entry.get("heading_level") or 1)
        outline.append(OutlineEntry(level, t, number, at[0] if at else None))
    return tuple(outline)


def read_pdf_marker(
    path: str | Path,
    *,
    use_outline: bool = True,
    converter: Callable[[str], Any] | None = None,
) -> Document:
    """Convert with marker (``converter`` is injectable for tests)."""
    p = Path(path)
    conv = converter or _default_converter()
    rendered = conv(str(p))
    markdown = getattr(rendered, "markdown", None)
    if markdown is None:
        markdown = rendered.get("markdown", "") if isinstance(rendered, Mapping) else str(rendered)
    meta = getattr(rendered, "metadata", None)
    if meta is None and isinstance(rendered, Mapping):
        meta = rendered.get("metadata")
    page_count, info_title = _pdf_facts(p)
    return document_from_marker(
        str(markdown),
        meta or {},
        source=str(path),
        title=info_title.strip() or p.stem,
        page_count=page_count,
        use_outline=use_outline,
    )


__all__ = [
    "INSTALL_HINT",
    "document_from_marker",
    "marker_importable",
    "models_available",
    "read_pdf_marker",
    "resolve_backend",
    "split_pages",
]
