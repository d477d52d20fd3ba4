"""EPUB container checks made before anything is parsed: zip bombs and DRM."""

from __future__ import annotations

import zipfile
from pathlib import Path

from ...errors import CorruptFileError, DrmProtectedError
from .dom import attr, local, parse_xml

FONT_OBFUSCATION = frozenset(
    {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
)
# zip-bomb guards, checked on the declared sizes before anything is inflated (zipfile
# never inflates an entry past its declared size, so the declared sizes bound memory)
MAX_ENTRY_BYTES = 256 << 20
MAX_TOTAL_BYTES = 1 << 30
MAX_ENTRIES = 50_000
MAX_RATIO = 200  # uncompressed / compressed, for entries over RATIO_FLOOR
RATIO_FLOOR = 16 << 20


def check_zip(path: Path) -> None:
    """Raise ``CorruptFileError`` for a zip bomb (by declared sizes and ratios).

    Nothing is ever extracted to disk: entries are read into memory by name, so an
    entry named ``../../x`` or ``/etc/x`` is only a name.
    """
    src = str(path)
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise CorruptFileError(src, f"damaged EPUB zip ({exc})") from exc
    if len(infos) > MAX_ENTRIES:
        raise CorruptFileError(src, f"zip bomb? {len(infos)} entries (limit {MAX_ENTRIES})")
    total = 0
    for info in infos:
        size = info.file_size
        total += size
        if size > MAX_ENTRY_BYTES:
            raise CorruptFileError(
                src,
                f"zip bomb? entry {info.filename!r} declares {size >> 20} MB uncompressed "
                f"(limit {MAX_ENTRY_BYTES >> 20} MB)",
            )
        if size > RATIO_FLOOR and size > MAX_RATIO * max(1, info.compress_size):
            raise CorruptFileError(
                src,
                f"zip bomb? entry {info.filename!r} inflates {size // max(1, info.compress_size)}"
                f"x to {size >> 20} MB",
            )
    if total > MAX_TOTAL_BYTES:
        raise CorruptFileError(
            src,
            f"zip bomb? {total >> 20} MB uncompressed in all (limit {MAX_TOTAL_BYTES >> 20} MB)",
        )


def check_drm(path: Path) -> None:
    """Raise ``DrmProtectedError`` when content (not just fonts) is encrypted."""
    src = str(path)
    try:
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            if "META-INF/rights.xml" in names:
                raise DrmProtectedError(src, "DRM-protected EPUB (META-INF/rights.xml)")
            if "META-INF/encryption.xml" not in names:
                return
            root = parse_xml(zf.read("META-INF/encryption.xml"))
    except zipfile.BadZipFile as exc:
        raise CorruptFileError(src, f"damaged EPUB zip ({exc})") from exc
    if root is None:
        raise DrmProtectedError(src, "EPUB with an unreadable META-INF/encryption.xml")
    algos = {attr(el, "Algorithm") for el in root.iter() if local(el) == "encryptionmethod"}
    if algos - FONT_OBFUSCATION:
        raise DrmProtectedError(src, "DRM-protected EPUB (content encrypted)")
