"""The search box (edamcc.bounds): the forms users write, and repair."""

import numpy as np
import pytest
from scipy.optimize import Bounds

from edamcc.bounds import parse_bounds, repair


def test_every_accepted_form_gives_the_same_box():
    for given, dim in (([(-1, 2)] * 3, None), ((-1, 2), 3), (Bounds(-1, 2), 3), (Bounds([-1] * 3, [2] * 3), None)):
        lo, hi = parse_bounds(given, dim)
        assert lo.tolist() == [-1.0] * 3 and hi.tolist() == [2.0] * 3


@pytest.mark.parametrize(
    "given, dim, message",
    [((-1, 1), None, "dimension"), ([(-1, 1)] * 2, 3, "dimension"), ([(0, 0)], None, "low < high"),
     ([(0, np.inf)], None, "finite"), ("abc", None, "bounds"), (np.zeros((2, 3)), None, "shape"),
     (Bounds(np.zeros((2, 2)), np.ones((2, 2))), None, "bounds: expected lb and ub as scalars or 1-D")],
)  # fmt: skip
def test_bad_bounds_name_the_argument(given, dim, message):
    with pytest.raises((ValueError, TypeError), match=message):
        parse_bounds(given, dim)


def test_clip_reflect_and_none():
    lo, hi = np.zeros(2), np.ones(2)
    x = np.array([[-0.25, 1.5], [3.2, 0.5]])
    clipped = x.copy()
    repair(clipped, lo, hi, "clip")
    assert clipped.tolist() == [[0.0, 1.0], [1.0, 0.5]]
    reflected = x.copy()
    repair(reflected, lo, hi, "reflect")
    np.testing.assert_allclose(reflected, [[0.25, 0.5], [0.8, 0.5]])
    same = x.copy()
    repair(same, lo, hi, "none")
    assert same.tolist() == x.tolist()


def test_widths_whose_squares_leave_the_doubles_are_refused():
    parse_bounds([(-1e-150 / 2, 1e-150 / 2), (0.0, 1e150)])  # the extremes are fine
    for bounds in ([(-1e150, 1e150)], [(0.0, 1e-151)], [(-1.7e308, 1.7e308)]):
        with pytest.raises(ValueError, match=r"^bounds: every width high - low must be between 1e-150 and 1e\+150.*variables \[0\]"):
            parse_bounds(bounds)
