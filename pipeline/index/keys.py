"""A search-only API key for agents: created once per store with the admin key, kept
0600 under ``FOLIO_HOME``, and handed out as a short-lived scoped key that can never
write, minted again before it expires."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

from ..errors import StoreError
from ..shared.home import folio_home
from .server import write_secret
from .store import Store

SCOPED_KEY_SECONDS = 7 * 24 * 3600
DESCRIPTION = "folio: search only (agents, MCP)"


@dataclass(slots=True)
class ScopedKey:
    """A scoped key of ``parent`` that lives ``lifetime`` seconds; ``current()`` mints
    the next one once less than a quarter of that is left (local: an HMAC, no request)."""

    store: Store
    parent: str
    lifetime: int = SCOPED_KEY_SECONDS
    value: str = ""
    expires_at: int = 0

    def current(self) -> str:
        now = time.time()
        if now >= self.expires_at - self.lifetime / 4:
            self.expires_at = int(now) + self.lifetime
            scoped = self.store.client.keys.generate_scoped_search_key(
                self.parent, {"expires_at": self.expires_at}
            )
            self.value = scoped.decode() if isinstance(scoped, bytes) else str(scoped)
        return self.value


def parent_key(admin: Store) -> str:
    """This store's search-only key: the one kept under ``FOLIO_HOME`` while the server
    still knows it, else a new one. Other Folio search keys on the server (older
    Folios minted one per server start) are revoked, so they do not pile up."""
    path = folio_home() / f"search-key-{admin.identity()}"
    kept = path.read_text(encoding="ascii").strip() if path.is_file() else ""
    listed = admin.call("list API keys", lambda: admin.client.keys.retrieve())["keys"]
    ours = [k for k in listed if k.get("description") == DESCRIPTION]
    keep = next((k for k in ours if kept and kept.startswith(str(k["value_prefix"]))), None)
    if keep is None:
        created = admin.call(
            "create a search-only key",
            lambda: admin.client.keys.create(
                {"description": DESCRIPTION, "actions": ["documents:search"], "collections": ["*"]}
            ),
        )
        kept, keep = str(created["value"]), created
        write_secret(path, kept)
    for old in ours:
        if old["id"] != keep["id"]:
            with contextlib.suppress(StoreError):
                admin.call("revoke an old search key", admin.client.keys[old["id"]].delete)
    return kept


def renewing_key(admin: Store, lifetime: int = SCOPED_KEY_SECONDS) -> ScopedKey:
    """A renewing scoped key derived from this store's search-only key."""
    return ScopedKey(admin, parent_key(admin), lifetime)


def search_only_key(admin: Store) -> str:
    """A scoped key, valid for ``SCOPED_KEY_SECONDS``, of this store's search-only key."""
    return renewing_key(admin).current()
