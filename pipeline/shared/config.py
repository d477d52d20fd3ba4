"""The one validated chunking configuration: presets and sizes (the files that set it:
``config_files``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import ConfigError
from .inputs import did_you_mean, quoted

Preset = Literal["small", "medium", "large"]
Overlap = Literal["none", "low", "medium", "high"]

# (section target, section max, snippet target, snippet max)
PRESETS: dict[str, tuple[int, int, int, int]] = {
    "small": (850, 1000, 210, 256),
    "medium": (1700, 2000, 420, 512),
    "large": (3400, 4000, 840, 1024),
}
# Overlap as a multiple of the medium amounts (120 tokens between sections of 1700,
# 80 between snippets of 420), scaled with the preset's targets.
OVERLAPS: dict[str, float] = {"none": 0.0, "low": 0.5, "medium": 1.0, "high": 2.0}
FRONTMATTER_MODES = ("metadata", "include", "strip")
MDX_MODES = ("auto", "on", "off")
BIASES = ("prose", "balanced", "code")
TOKENIZER_KINDS = ("auto", "wordpiece", "tiktoken")


@dataclass(frozen=True, slots=True)
class ChunkConfig:
    """Sizes are in tokens of the configured counter (the estimator by default)."""

    preset: Preset = "medium"
    overlap: Overlap = "medium"
    section_target: int = 1700
    section_max: int = 2000
    snippet_target: int = 420
    snippet_max: int = 512
    section_overlap: int = 120
    snippet_overlap: int = 80
    min_tokens: int = 48
    heading_depth: int = 6
    frontmatter: Literal["metadata", "include", "strip"] = "metadata"
    mdx: Literal["auto", "on", "off"] = "auto"
    estimator_bias: Literal["prose", "balanced", "code"] = "balanced"
    tokenizer: str | None = None  # path to tokenizer.json or a tiktoken BPE file
    tokenizer_kind: Literal["auto", "wordpiece", "tiktoken"] = "auto"
    concepts: int = 5

    def __post_init__(self) -> None:
        _check_choice("preset", self.preset, tuple(PRESETS))
        _check_choice("overlap", self.overlap, tuple(OVERLAPS))
        _check_choice("frontmatter", self.frontmatter, FRONTMATTER_MODES)
        _check_choice("mdx", self.mdx, MDX_MODES)
        _check_choice("estimator_bias", self.estimator_bias, BIASES)
        _check_choice("tokenizer_kind", self.tokenizer_kind, TOKENIZER_KINDS)
        _check_int("section_target", self.section_target, 32, 100_000)
        _check_int("section_max", self.section_max, self.section_target, 100_000)
        _check_int("snippet_target", self.snippet_target, 16, self.section_target)
        _check_int("snippet_max", self.snippet_max, self.snippet_target, self.section_max)
        _check_int("section_overlap", self.section_overlap, 0, self.section_target // 2)
        _check_int("snippet_overlap", self.snippet_overlap, 0, self.snippet_target // 2)
        _check_int("min_tokens", self.min_tokens, 0, self.snippet_target)
        _check_int("heading_depth", self.heading_depth, 1, 6)
        _check_int("concepts", self.concepts, 0, 20)
        if self.tokenizer is not None and not isinstance(self.tokenizer, str):
            raise ConfigError("tokenizer", "must be a file path")


FIELDS = tuple(f.name for f in dataclasses.fields(ChunkConfig))


def _check_choice(key: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ConfigError(key, f"got {quoted(value)}{did_you_mean(str(value), allowed)}")


def _check_int(key: str, value: object, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(key, f"got {quoted(value)}; expected an integer in [{low}, {high}]")
    if not low <= value <= high:
        raise ConfigError(key, f"got {value}; allowed range [{low}, {high}]")


def make_config(values: Mapping[str, Any] | None = None) -> ChunkConfig:
    """Build a config from plain values; ``preset``/``overlap`` fill the sizes they name.

    Explicit sizes win over the preset's; unknown keys raise ``ConfigError``.
    """
    values = dict(values or {})
    for key in values:
        if key not in FIELDS:
            raise ConfigError(key, f"unknown key{did_you_mean(key, FIELDS)}")
    preset = values.get("preset", "medium")
    overlap = values.get("overlap", "medium")
    _check_choice("preset", preset, tuple(PRESETS))
    _check_choice("overlap", overlap, tuple(OVERLAPS))
    sizes: dict[str, Any] = dict(
        zip(
            ("section_target", "section_max", "snippet_target", "snippet_max"),
            PRESETS[preset],
            strict=True,
        )
    )
    sizes.update(values)
    factor = OVERLAPS[overlap]
    sizes.setdefault("section_overlap", round(120 * factor * sizes["section_target"] / 1700))
    sizes.setdefault("snippet_overlap", round(80 * factor * sizes["snippet_target"] / 420))
    return ChunkConfig(**sizes)
