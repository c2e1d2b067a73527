"""The search box (edamcc.bounds): the forms users write, and repair."""

import numpy as np
import pytest
from scipy.optimize import Bounds

from edamcc.bounds import parse_bounds, repair


def test_every_accepted_form_gives_the_same_box():
    for given, dim in (([(-1, 2)] * 3, None), ((-1, 2), 3), (Bounds(-1, 2), 3), (Bounds([-1] * 3, [2] * 3), None)):
        lo, hi = parse_bounds(given, dim)
        assert lo.tolist() == [-1.0] * 3 and hi.tolist() == [2.0] * 3
    assert parse_bounds(Bounds([-1], [2]), 1)[0].tolist() == [-1.0]  # one variable: dimension=1


@pytest.mark.parametrize(
    "given, dim, message",
    [((-1, 1), None, "dimension"), ([(-1, 1)] * 2, 3, "dimension"), ([(0, 0)], None, "low < high"),
     ([(0, np.inf)], None, "finite"), ("abc", None, "bounds"), (np.zeros((2, 3)), None, "shape"),
     (Bounds(np.zeros((2, 2)), np.ones((2, 2))), None, "bounds: expected lb and ub as scalars or 1-D"),
     (Bounds(-1, 2), None, "dimension: a scipy.optimize.Bounds with one lb and one ub"),  # was read as n = 1
     (Bounds([-1], [2]), None, "dimension")],  # the same object to SciPy
)  # fmt: skip
def test_bad_bounds_name_the_argument(given, dim, message):
    with pytest.raises((ValueError, TypeError), match=message):
        parse_bounds(given, dim)


def test_bools_strings_and_overflowing_bounds_are_refused_not_read_as_numbers():
    from decimal import Decimal
    from fractions import Fraction

    for given in ([(0, 1), (0, "2")], [(False, True)], (np.bool_(False), 1.0), [("0", "1")]):
        with pytest.raises(TypeError, match=r"^bounds: expected .* \(bounds are numbers, not bools or strings\)"):
            parse_bounds(given, 1 if len(given) == 2 and np.ndim(given[0]) == 0 else None)
    with pytest.raises(ValueError, match=r"^bounds: a bound is too large for a float"):
        parse_bounds([(0, 10**400)])
    lo, hi = parse_bounds([(Fraction(-1, 2), 0.5), (np.int8(-1), 2**53)])  # reals of any kind
    assert lo.tolist() == [-0.5, -1.0] and hi.tolist() == [0.5, 2.0**53]
    with pytest.raises(TypeError, match=r"^bounds: expected"):  # not a numbers.Real, as in the package's checks
        parse_bounds([(Decimal("-1"), 1.0)])
    for lb, ub in ((np.array(["0", "0"]), np.array(["1", "1"])), (np.array([False, False]), np.array([True, True]))):  # scipy's Bounds too
        with pytest.raises(TypeError, match=r"^bounds: expected a scipy.optimize.Bounds with real lb and ub.*not bools or strings"):
            parse_bounds(Bounds(lb, ub))
    lo, hi = parse_bounds([(np.array(-1.0), np.array(1))] * 2)  # 0-d arrays stand for their numbers
    assert lo.tolist() == [-1.0, -1.0] and hi.tolist() == [1.0, 1.0]


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
    parse_bounds([(-1e-75 / 2, 1e-75 / 2), (0.0, 1e75)])  # the extremes are fine
    for bounds in ([(-1e75, 1e75)], [(0.0, 1e-76)], [(0.0, 1e-150)], [(0.0, 1e150)], [(-1.7e308, 1.7e308)]):
        with pytest.raises(ValueError, match=r"^bounds: every width high - low must be between 1e-75 and 1e\+75.*variables \[0\]"):
            parse_bounds(bounds)


@pytest.mark.parametrize("variant", ["edamcc-sep-cc", "edamcc-vd-wi", "edamcc", "mimic"])
def test_the_widest_and_narrowest_accepted_widths_in_one_box_give_finite_points_in_the_box(variant):
    # widths 1e-150 and 1e150 in one box were accepted, and the default's first shape (a variance
    # over their mean) underflowed: every point asked after the first generation had a NaN
    from edamcc import EDAMCCStrategy

    widths = np.array([1e-75, 1e75, 1.0])
    lower, upper = np.zeros(3), widths
    es = EDAMCCStrategy(bounds=np.column_stack([lower, upper]), seed=0, budget=3000, variant=variant)
    with np.errstate(over="raise", divide="raise", invalid="raise"):  # an underflow to 0 is harmless
        while not es.should_stop():
            x = es.ask()
            assert np.all(np.isfinite(x)) and np.all((x >= lower) & (x <= upper))
            es.tell(x, np.sum((x / widths - 0.3) ** 2, axis=1))
    assert es.best_f < 1e-2  # it converges (the paper's variant, M = 100, has 30 generations)
