"""One exception hierarchy for everything Folio reports."""

from __future__ import annotations


class FolioError(Exception):
    """Base class of every error Folio raises on purpose."""


class ConfigError(FolioError, ValueError):
    """A configuration key is unknown or its value is out of range."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"config key {key!r}: {message}")
        self.key = key


class ExtractionError(FolioError):
    """A file could not be turned into a document."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.reason = message


class UnsupportedFormatError(ExtractionError):
    """The file is of a kind Folio does not read."""


class EncodingError(ExtractionError):
    """A text file is not valid UTF-8 (nor a detectable encoding)."""


class EmptyDocumentError(ExtractionError):
    """The file holds no text at all."""


class EncryptedError(ExtractionError):
    """The file is password protected (or its encryption cannot be opened)."""


class CorruptFileError(ExtractionError):
    """The file is damaged or truncated and cannot be parsed."""


class NoTextLayerError(ExtractionError):
    """A PDF whose pages are images only (a scan without OCR)."""


class DrmProtectedError(ExtractionError):
    """An e-book whose content is encrypted with DRM."""


class MarkerUnavailableError(ExtractionError):
    """The marker backend was requested but marker-pdf or its models are missing."""


class LockBusy(FolioError):
    """Another command held the library lock for longer than we were willing to wait."""


class StoreError(FolioError):
    """Typesense could not be reached or refused a request."""


class IncompleteImport(StoreError):
    """An import answered 200 without one result per document (seen from Typesense 0.24.1
    in a cluster: an empty body). Upserts with explicit ids are idempotent: re-send."""


class EmbeddedServerError(FolioError):
    """The embedded Typesense server could not be started or reached."""


class RetrievalError(FolioError):
    """A search or retrieval request could not be served."""


class DenseUnavailableError(FolioError):
    """Dense embedding was asked for, but its packages or model weights are missing."""


class InvalidInput(FolioError, ValueError):
    """A caller (command line, Python API, MCP tool) sent an id, query or option that
    cannot be served; refused before anything reaches Typesense."""
