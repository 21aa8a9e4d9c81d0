"""``python -m mechanisms.machine run|compare|check|list ...`` (see :mod:`mechanisms.machine.cli`)."""

import sys

from .cli import main

sys.exit(main())
