"""``python -m mechanisms.excavator run ...`` (see :mod:`mechanisms.excavator.cli`)."""

import sys

from .cli import main

sys.exit(main())
