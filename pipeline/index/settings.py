"""Where the Typesense server is: the embedded one, or one given by env / config file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigError
from ..shared import config_files
from ..shared.inputs import quoted


@dataclass(frozen=True, slots=True)
class Node:
    host: str
    port: int
    protocol: str = "http"

    def url(self) -> str:
        return f"{self.protocol}://{self.host}:{self.port}"


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """``nodes`` empty means: use (and start if needed) the embedded server."""

    nodes: tuple[Node, ...] = ()
    api_key: str | None = None
    timeout_seconds: float = 120.0
    retries: int = 4
    retry_interval_seconds: float = 2.5

    @property
    def embedded(self) -> bool:
        return not self.nodes


def parse_url(raw: str, key: str = "TYPESENSE_URL") -> Node:
    parts = urlsplit(raw if "://" in raw else f"http://{raw}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(key, f"got {quoted(raw)}; expected http(s)://host:port")
    port = parts.port or (443 if parts.scheme == "https" else 8108)
    return Node(parts.hostname, port, parts.scheme)


def _nodes_from_config(block: dict[str, Any]) -> tuple[Node, ...]:
    nodes: list[Node] = []
    if "url" in block:
        nodes.extend(parse_url(u.strip(), "typesense.url") for u in str(block["url"]).split(","))
    for i, raw in enumerate(block.get("nodes") or []):
        if not isinstance(raw, dict) or "host" not in raw or "port" not in raw:
            raise ConfigError(f"typesense.nodes[{i}]", "needs host and port")
        protocol = str(raw.get("protocol", "http"))
        if protocol not in ("http", "https"):
            raise ConfigError(f"typesense.nodes[{i}].protocol", "allowed: http, https")
        nodes.append(Node(str(raw["host"]), int(raw["port"]), protocol))
    return tuple(nodes)


def load_server_settings(config_path: str | Path | None = None) -> ServerSettings:
    """The config files' ``typesense:`` settings, overridden by ``TYPESENSE_URL``
    (comma-separated for a cluster) and ``TYPESENSE_API_KEY``; nothing given means
    embedded."""
    block = config_files.read(config_path).values("typesense")
    nodes = _nodes_from_config(block)
    url = os.environ.get("TYPESENSE_URL")
    if url:
        nodes = tuple(parse_url(u.strip()) for u in url.split(",") if u.strip())
    api_key = os.environ.get("TYPESENSE_API_KEY") or block.get("api_key")
    if nodes and not api_key:
        raise ConfigError("TYPESENSE_API_KEY", "an external Typesense server needs an API key")
    return ServerSettings(
        nodes=nodes,
        api_key=str(api_key) if api_key else None,
        timeout_seconds=float(block.get("timeout_seconds", 120.0)),
        retries=int(block.get("retries", 4)),
        retry_interval_seconds=float(block.get("retry_interval_seconds", 2.5)),
    )
