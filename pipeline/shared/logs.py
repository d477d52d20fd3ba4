"""Log lines about files: each names the file it is about (not the private copy that
was read), worker processes send theirs to the parent instead of writing over its
progress bar, and a notice that only repeats is said once."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

# The file being read here: its path as the user named it, and the copy actually read.
_reading: ContextVar[tuple[str, str] | None] = ContextVar("folio_reading", default=None)


@contextlib.contextmanager
def about(path: str, copy: str = "") -> Iterator[None]:
    """Log records made inside are about ``path`` (read as ``copy``)."""
    token = _reading.set((path, copy))
    try:
        yield
    finally:
        _reading.reset(token)


class NameTheFile(logging.Filter):
    """Sets ``record.folio_file`` to the file being read, and takes the file's name (or
    its copy's) out of the message: libraries log "EOF marker not found" naming nothing,
    our readers name the private copy."""

    def filter(self, record: logging.LogRecord) -> bool:
        here = _reading.get()
        if here is not None and not getattr(record, "folio_file", ""):
            path, copy = here
            message = record.getMessage()
            for name in (path, copy):
                if name:
                    message = message.removeprefix(f"{name}: ").replace(name, path)
            record.msg, record.args, record.folio_file = message, None, path
        return True


class Forward(logging.Handler):
    """A worker's handler: each record goes to the parent as ``(level, logger, file,
    message)``, where ``replay`` logs it again."""

    def __init__(self, send: Callable[[tuple[int, str, str, str]], None]) -> None:
        super().__init__()
        self.send = send
        self.addFilter(NameTheFile())

    def emit(self, record: logging.LogRecord) -> None:
        file = str(getattr(record, "folio_file", ""))
        with contextlib.suppress(Exception):  # a lost log line must not lose the file
            self.send((record.levelno, record.name, file, record.getMessage()))


def forward(send: Callable[[tuple[int, str, str, str]], None]) -> None:
    """In a worker process: every log record goes to the parent through ``send``."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.addHandler(Forward(send))


def replay(payload: Any) -> None:
    """In the parent: log a record a worker forwarded."""
    level, name, file, message = payload
    logger = logging.getLogger(name)
    if logger.isEnabledFor(level):
        logger.handle(
            logging.makeLogRecord(
                {
                    "name": name,
                    "levelno": level,
                    "levelname": logging.getLevelName(level),
                    "msg": message,
                    "folio_file": file,
                }
            )
        )


class Once(logging.Filter):
    """Drops what was said before: the same warning about the same file, and the same
    notice (below warning: "PDF backend pdfium (auto: …)") about any file."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[tuple[int, str, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        warning = record.levelno >= logging.WARNING
        file = str(getattr(record, "folio_file", "")) if warning else ""
        key = (record.levelno, file, record.getMessage())
        if key in self.seen:
            return False
        self.seen.add(key)
        return True


def line(record: logging.LogRecord, message: str) -> str:
    """``message`` with the file it is about in front."""
    file = str(getattr(record, "folio_file", ""))
    return f"{file}: {message}" if file else message
