"""Where Folio keeps its state on this machine: the embedded server's data, locks, keys,
the lexical side index and the built embedding models, all private to the user."""

from __future__ import annotations

import os
import stat
from pathlib import Path


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
