"""A search-only API key for agents: created once with the admin key, kept 0600 under
``FOLIO_HOME``, and handed out as a short-lived scoped key that can never write."""

from __future__ import annotations

import hashlib
import time

from .server import write_secret
from .settings import folio_home
from .store import Store

SCOPED_KEY_SECONDS = 7 * 24 * 3600


def search_only_key(admin: Store) -> str:
    """A scoped key derived from a persistent search-only parent key of this server."""
    where = ",".join(sorted(n.url() for n in admin.nodes))
    home = folio_home()
    path = home / f"search-key-{hashlib.sha256(where.encode()).hexdigest()[:12]}"
    parent = path.read_text(encoding="ascii").strip() if path.exists() else ""
    if not parent:
        created = admin.call(
            "create a search-only key",
            lambda: admin.client.keys.create(
                {
                    "description": "folio: search only (agents, MCP)",
                    "actions": ["documents:search"],
                    "collections": ["*"],
                }
            ),
        )
        parent = str(created["value"])
        write_secret(path, parent)
    scoped = admin.client.keys.generate_scoped_search_key(
        parent, {"expires_at": int(time.time()) + SCOPED_KEY_SECONDS}
    )
    return scoped.decode() if isinstance(scoped, bytes) else str(scoped)
