"""What counts as a number, and as a flag, in the package's argument checks (one rule for
every module).

Booleans are not numbers here, although Python makes ``bool`` a subclass of ``int``:
``population_size=True`` is a mistake, not 1. NumPy integers and floats are numbers. The other
way round, a flag is a bool: ``disp="no"`` is a mistake, not True.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np


def is_int(value: Any) -> bool:
    """True for Python and NumPy integers, False for bools."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_real(value: Any) -> bool:
    """True for Python and NumPy reals (integers included), False for bools."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_dimension(dimension: Any) -> int:
    """The number of variables: a positive integer."""
    if not is_int(dimension) or dimension < 1:
        raise ValueError(f"dimension: expected a positive integer; got {dimension!r}")
    return int(dimension)


def check_flag(value: Any, name: str) -> bool:
    """A switch: True or False (a NumPy bool too); ``name`` is the argument's name. A string such
    as ``"no"`` or a number is refused, not read by its truth value."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected True or False; got {value!r}")
    return bool(value)
