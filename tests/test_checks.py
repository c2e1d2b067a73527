"""What counts as a number in argument checks (edamcc.checks)."""

from fractions import Fraction

import numpy as np

from edamcc.checks import is_int, is_real


def test_integers_and_reals_include_numpy_and_exclude_bools():
    for value in (0, -3, np.int64(5), np.uint8(2)):
        assert is_int(value) and is_real(value)
    for value in (1.5, np.float32(2.0), Fraction(1, 3)):
        assert is_real(value) and not is_int(value)
    for value in (True, False, np.bool_(True), "3", None, 1 + 0j, np.array(3)):
        assert not is_int(value) and not is_real(value)
