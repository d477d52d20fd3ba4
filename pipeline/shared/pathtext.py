"""File names that are not valid UTF-8, as text that is.

A Linux file name is bytes. Python reads the bytes that are not UTF-8 as lone surrogates
(U+DC80 to U+DCFF, PEP 383), which opens the file but which no JSON encoder, Typesense
nor terminal takes: ``bad\\xff\\xfename.md`` failed at stage ``index`` on every run and
``folio ingest --json`` wrote invalid UTF-8. Inside Folio a path stays as Python reads
it (so it opens); where it leaves Folio (a record in Typesense, JSON output) it is in
``stored`` form, and shown to a person through ``shown``. ``resolved`` is the one
absolute path a file is known by, to ingest and to a lookup by path alike.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_ANY_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPE = re.compile(r"\\(x[89a-f][0-9a-f]|\\|\")")
# What ``stored`` makes of a path that is not UTF-8: quotes around plain characters and
# its three escapes.
_QUOTED = re.compile(r'"((?:[^\\"]|\\\\|\\"|\\x[89a-f][0-9a-f])*)"')


def is_text(value: str) -> bool:
    """``value`` encodes as UTF-8 (it holds no lone surrogate). Asked of every text field
    of every chunk an ingest stores: encoding, which fails on a surrogate alone, is
    about 6x faster than searching for one."""
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _escape(c: str) -> str:
    if c in '\\"':
        return "\\" + c
    code = ord(c)
    # A byte read as a surrogate is written as that byte; any other lone surrogate
    # (from a caller, not a file name) as its own code point's two bytes, not reversed.
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"\\u{code:04x}"


def stored(path: str) -> str:
    """``path`` as Folio stores and prints it: unchanged when it is valid UTF-8 (every
    path that already was); otherwise in double quotes, with each byte that is not UTF-8
    as ``\\xHH`` and ``\\`` and ``"`` escaped, as git quotes a path. Folio records
    absolute paths, which begin with ``/``, so a quoted one is never a path as it
    stands: ``os_path`` gives the file back."""
    if is_text(path):
        return path
    return '"' + re.sub('[\\\\"\ud800-\udfff]', lambda m: _escape(m.group()), path) + '"'


def os_path(text: str) -> str:
    """The path to open for a ``stored`` one (its inverse; other text is returned as it
    is)."""
    quoted = _QUOTED.fullmatch(text)
    if quoted is None:
        return text

    def byte(m: re.Match[str]) -> str:
        escape = m.group(1)
        return chr(0xDC00 + int(escape[1:], 16)) if escape.startswith("x") else escape

    path = _ESCAPE.sub(byte, quoted.group(1))
    # ``stored`` quotes only what is not UTF-8: anything else in quotes is a name as is.
    return text if is_text(path) else path


def shown(text: str) -> str:
    """``text`` for a person (titles, reasons, the terminal): each byte that is not
    UTF-8 as ``\\xHH``; not reversible (a backslash is left as it is)."""
    if is_text(text):
        return text
    return _ANY_SURROGATE.sub(lambda m: _escape(m.group()), text)


def resolved(path: Path) -> Path:
    """The absolute path with symlinks resolved; a path that cannot be resolved (a
    symlink loop, a dangling link) stays absolute as named, for the read to report."""
    try:
        return Path(os.path.realpath(path, strict=True))
    except OSError:
        return Path(os.path.abspath(path))


def gone(path: str) -> bool:
    """Whether ``path`` is known not to exist. A file that cannot be looked at (a folder
    without permission, an I/O error) may still be there: ``os.path.exists`` says False
    for it, and ``--prune`` forgot the books of a folder it could not read."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False
