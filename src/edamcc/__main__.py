"""``python -m edamcc``: the ``edamcc`` command."""

import sys

from .cli import main

sys.exit(main())
