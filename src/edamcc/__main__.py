"""``python -m edamcc``: the ``edamcc`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
