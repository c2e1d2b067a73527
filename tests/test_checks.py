"""What counts as a number, and as a flag, in argument checks (edamcc.checks)."""

from fractions import Fraction

import numpy as np

import pytest

from edamcc.checks import check_dimension, check_flag, is_int, is_real


def test_integers_and_reals_include_numpy_and_exclude_bools():
    for value in (0, -3, np.int64(5), np.uint8(2)):
        assert is_int(value) and is_real(value)
    for value in (1.5, np.float32(2.0), Fraction(1, 3)):
        assert is_real(value) and not is_int(value)
    for value in (True, False, np.bool_(True), "3", None, 1 + 0j, np.array(3)):
        assert not is_int(value) and not is_real(value)


def test_a_flag_is_true_or_false_and_nothing_else():
    assert check_flag(True, "disp") is True and check_flag(np.bool_(False), "disp") is False
    for value in ("no", "False", 0, 1, None, np.array([True])):  # read by its truth value, "no" would switch on
        with pytest.raises(TypeError, match="disp: expected True or False"):
            check_flag(value, "disp")


def test_a_dimension_is_a_positive_integer_for_every_entry_point():
    assert check_dimension(np.int64(3)) == 3 and type(check_dimension(np.int64(3))) is int
    for value in (0, -2, 2.5, True, "3", None):
        with pytest.raises(ValueError, match="^dimension: expected a positive integer; got"):
            check_dimension(value)
