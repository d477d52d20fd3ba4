"""Where the Typesense server is: the embedded one, or one given by env / config file."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .. import config_files
from ..errors import ConfigError


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


def folio_home() -> Path:
    """State and embedded-server data: ``$FOLIO_HOME``, else the user data directory."""
    env = os.environ.get("FOLIO_HOME")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("folio", appauthor=False))


def secure_home(home: Path) -> None:
    """``home`` readable by this user only: created 0700, and an existing one (made
    by an older Folio, or before a umask change) tightened, everything in it included:
    the library's text and the server's keys live there."""
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    for root, dirs, files in os.walk(home):  # a shallow tree: os.walk's recursion is safe
        for name in (".", *dirs, *files):
            _private(os.path.join(root, name))


def _private(path: str) -> None:
    try:
        st = os.lstat(path)
        if st.st_mode & 0o077 and not stat.S_ISLNK(st.st_mode):
            os.chmod(path, stat.S_IMODE(st.st_mode) & ~0o077)
    except OSError:  # gone meanwhile, or not ours: nothing to tighten
        pass


def parse_url(raw: str, key: str = "TYPESENSE_URL") -> Node:
    parts = urlsplit(raw if "://" in raw else f"http://{raw}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(key, f"got {raw!r}; expected http(s)://host:port")
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
