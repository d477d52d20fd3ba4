"""``python -m pipeline`` is the ``folio`` command."""

import sys

from .cli import main

sys.exit(main())
