"""Where the scripts find the evaluation data that is not part of the repository (real
documents, question sets, tokenizer files): the folder named by ``$FOLIO_DATA``, holding
``corpus/`` and ``tokenizers/``. Each script also takes the paths as options."""

from __future__ import annotations

import os
from pathlib import Path

ENV = "FOLIO_DATA"


def data_dir() -> Path:
    """``$FOLIO_DATA``; unset, a path named after the variable, so that a script that
    needs the data fails naming what to set."""
    return Path(os.environ.get(ENV) or f"${ENV}")
