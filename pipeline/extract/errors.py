"""Extraction error types, re-exported from ``pipeline.errors`` for the extractors."""

from __future__ import annotations

from ..errors import (
    CorruptFileError,
    DrmProtectedError,
    EncryptedError,
    MarkerUnavailableError,
    NoTextLayerError,
)

__all__ = [
    "CorruptFileError",
    "DrmProtectedError",
    "EncryptedError",
    "MarkerUnavailableError",
    "NoTextLayerError",
]
