"""A document's file, as ``/source/<doc>`` serves it: only while it is the file that was
ingested. The recorded path was resolved at ingest, so a link on it now is new (a file
replaced by ``ln -s /etc/passwd``); and the bytes served are the bytes hashed, so a
rewritten file (or one swapped between the check and the read) is not served as the
document either."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from collections.abc import Collection, Iterator
from typing import IO

from ..errors import FolioError, RetrievalError

CHUNK = 1 << 20
IN_MEMORY = 16 << 20  # bigger files are copied to a temporary file while they are hashed


class SourceChanged(FolioError):
    """The document's file is not the one that was ingested (HTTP 409)."""


def checked_copy(path: str, sha256: str, library: Collection[str]) -> tuple[IO[bytes], int]:
    """The bytes of the file at ``path`` (rewound) and their number, when they hash to
    ``sha256`` and the path leads to that file, or to another file of the ``library``
    (the paths of its documents), through no link; else ``SourceChanged`` saying what
    changed."""
    if not os.path.lexists(path):
        raise RetrievalError(f"the file is gone: {path}")
    target = os.path.realpath(path)
    if target != path and target not in library:
        raise SourceChanged(
            f"{path} is now a link to {target}, which is not a file of the library: not "
            "served (run `folio ingest` on its folder to index what is there now)"
        )
    copy, digest, size = _copy(target)
    if digest != sha256:
        copy.close()
        raise SourceChanged(
            f"{path} changed since it was ingested (its bytes are not the indexed "
            "document's): not served; run `folio ingest` to index it again"
        )
    return copy, size


def _copy(path: str) -> tuple[IO[bytes], str, int]:
    """One read of the file: a copy of its bytes, their SHA-256 and size. Opened without
    following a link or blocking (a link or FIFO put there since ``realpath``)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise SourceChanged(f"{path} cannot be opened as the file: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as src:
        if not stat.S_ISREG(os.fstat(src.fileno()).st_mode):
            raise SourceChanged(f"{path} is not a regular file any more: not served")
        copy = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY)  # noqa: SIM115 (returned)
        digest = hashlib.sha256()
        for block in iter(lambda: src.read(CHUNK), b""):
            digest.update(block)
            copy.write(block)
    size = copy.tell()
    copy.seek(0)
    return copy, digest.hexdigest(), size


def stream(copy: IO[bytes]) -> Iterator[bytes]:
    """The copy's bytes for a streaming response; it is closed at the end."""
    try:
        yield from iter(lambda: copy.read(CHUNK), b"")
    finally:
        copy.close()
