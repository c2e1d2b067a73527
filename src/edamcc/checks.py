"""What counts as a number in the package's argument checks (one rule for every module).

Booleans are not numbers here, although Python makes ``bool`` a subclass of ``int``:
``population_size=True`` is a mistake, not 1. NumPy integers and floats are numbers.
"""

from __future__ import annotations

import numbers
from typing import Any


def is_int(value: Any) -> bool:
    """True for Python and NumPy integers, False for bools."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_real(value: Any) -> bool:
    """True for Python and NumPy reals (integers included), False for bools."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)
