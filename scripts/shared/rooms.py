"""Every room of ``scripts/`` on ``sys.path``, so that a script imports the shared helpers
and the modules of other rooms by their names (``from common import text_table``,
``from eval_retrieval import embedded_store``) however it runs: ``python
scripts/<room>/<name>.py`` from any folder, or loaded by the tests (``tests/helpers.py``).

A script that imports another puts ``scripts/shared`` on the path and imports this
module, two lines::

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
    import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)

The rooms are listed here and, for mypy, in ``pyproject.toml`` (``mypy_path``)."""

from __future__ import annotations

import sys
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent.parent
ROOMS = ("shared", "eval", "devsets", "bench", "check", "cluster")

for _room in ROOMS:
    # in front, as the script's own folder is: a room's module wins over an installed one
    if str(SCRIPTS / _room) not in sys.path:
        sys.path.insert(1, str(SCRIPTS / _room))
