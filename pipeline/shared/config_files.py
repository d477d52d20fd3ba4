"""Where settings come from: the YAML config files, found and read in one place.

Later layers win: the user config directory's ``folio.yaml`` (platformdirs), then
``./folio.yaml`` (the library you work in is more specific than the user), then the file
named by ``--config``/``$FOLIO_CONFIG``; flags and environment variables come last, where
the settings are used. Every value keeps the file it came from, for ``folio config show``
and for paths relative to that file."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import ConfigError
from .config import FIELDS, ChunkConfig, make_config
from .inputs import did_you_mean

FILE_NAME = "folio.yaml"
TYPESENSE_KEYS = ("url", "nodes", "api_key", "timeout_seconds", "retries", "retry_interval_seconds")
DENSE_KEYS = ("model",)
KNOWN: dict[str, tuple[str, ...]] = {
    "chunk": FIELDS,
    "typesense": TYPESENSE_KEYS,
    "dense": DENSE_KEYS,
}


@dataclass(frozen=True, slots=True)
class Setting:
    value: Any
    origin: str  # the file it was read from


@dataclass(frozen=True, slots=True)
class ConfigFiles:
    """The files read (lowest precedence first) and each section's merged settings."""

    files: tuple[Path, ...]
    sections: Mapping[str, Mapping[str, Setting]]

    def values(self, section: str) -> dict[str, Any]:
        return {k: s.value for k, s in self.sections.get(section, {}).items()}

    def get(self, section: str, key: str) -> Setting | None:
        return self.sections.get(section, {}).get(key)


def user_config_file() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("folio", appauthor=False)) / FILE_NAME


def locate(explicit: str | Path | None = None) -> tuple[Path, ...]:
    """The config files that exist, lowest precedence first; ``explicit`` (else
    ``$FOLIO_CONFIG``) must exist."""
    found = [p for p in (user_config_file(), Path.cwd() / FILE_NAME) if p.is_file()]
    named = explicit or os.environ.get("FOLIO_CONFIG") or None
    if named:
        path = Path(named).expanduser()
        if not path.is_file():
            raise ConfigError("config", f"cannot read {path}: no such file")
        found.append(path)
    unique = dict.fromkeys(p.resolve() for p in found)
    return tuple(unique)


def read(explicit: str | Path | None = None) -> ConfigFiles:
    """Every config file in force, validated section by section."""
    files = locate(explicit)
    merged: dict[str, dict[str, Setting]] = {name: {} for name in KNOWN}
    for path in files:
        for section, block in _read_file(path).items():
            merged[section].update({k: Setting(v, str(path)) for k, v in block.items()})
    return ConfigFiles(files, merged)


def _read_file(path: Path) -> dict[str, dict[str, Any]]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError("config", f"cannot read {path}: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError("config", f"{path} is not valid YAML: {exc}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError("config", f"{path} must hold a mapping at the top level")
    out: dict[str, dict[str, Any]] = {}
    for section, block in data.items():
        name = str(section)
        if name not in KNOWN:
            raise ConfigError(name, f"unknown section in {path}{did_you_mean(name, KNOWN)}")
        if block is None:
            continue
        if not isinstance(block, dict):
            raise ConfigError(name, f"{path}: must be a mapping")
        for key in block:
            if str(key) not in KNOWN[name]:
                raise ConfigError(
                    f"{name}.{key}", f"unknown key in {path}{did_you_mean(str(key), KNOWN[name])}"
                )
        out[name] = {str(k): v for k, v in block.items()}
    return out


def load_config(
    path: str | Path | None = None, overrides: Mapping[str, Any] | None = None
) -> ChunkConfig:
    """The ``chunk:`` settings of the config files (``path`` or ``$FOLIO_CONFIG`` last),
    then ``overrides`` (flags; ``None`` values skipped)."""
    values = read(path).values("chunk")
    values.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return make_config(values)


def dense_model(path: str | Path | None = None) -> Path | None:
    """The ``dense.model`` directory (a sentence-transformers folder of a BERT), taken
    relative to the config file that names it, so a project can carry its model beside it."""
    setting = read(path).get("dense", "model")
    if setting is None or setting.value is None:
        return None
    return (Path(setting.origin).parent / Path(str(setting.value)).expanduser()).resolve()
