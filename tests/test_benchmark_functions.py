"""F1-F13: optima, batch vs rows, hand-computed values, generated data, explicit data."""

import numpy as np
import pytest

from edamcc.benchmark_functions import (
    cec2005_instance,
    condition_two_matrix,
    get_function,
    list_functions,
    random_orthogonal,
    schwefel_206_on_bounds,
)

NAMES = [f"F{i}" for i in range(1, 14)]
BIASES = {"F2": -450.0, "F8": 390.0, "F9": -450.0, "F10": -310.0, "F12": -330.0, "F13": -130.0}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", [2, 10, 50, 100, 500])
def test_optimum_value_at_optimum_location(name, n):
    f = get_function(name, n, seed=3)
    assert f.optimum_value == pytest.approx(BIASES.get(name, 0.0), abs=1e-9 * max(1.0, abs(BIASES.get(name, 0.0))))
    assert f(f.optimum_x) == f.optimum_value
    assert np.all(f.optimum_x >= f.lower) and np.all(f.optimum_x <= f.upper)
    # the optimum is a minimum: random points of the box are worse
    x = np.random.default_rng(0).uniform(f.lower, f.upper, size=(64, n))
    assert np.all(f(x) > f.optimum_value)


@pytest.mark.parametrize("name", NAMES)
def test_batch_equals_row_by_row_and_returns_shape_k(name):
    f = get_function(name, 30, seed=1)
    x = np.random.default_rng(1).uniform(f.lower, f.upper, size=(17, 30))
    batch = f(x)
    assert batch.shape == (17,)
    np.testing.assert_allclose(batch, [f(row) for row in x], rtol=1e-12)
    assert isinstance(f(x[0]), float)


def test_domains_follow_the_table():
    domains = {f.name: (f.lower, f.upper) for f in (get_function(n, 5) for n in NAMES)}
    assert domains["F5"] == domains["F6"] == (-10, 10)
    assert domains["F7"] == (-100, 100)  # changed from Yao et al.'s [-30, 30]
    assert domains["F11"] == domains["F12"] == (-5, 5)  # changed from [-5.12, 5.12]
    assert domains["F13"] == (-3, 1)
    assert all(domains[n] == (-100, 100) for n in ("F1", "F2", "F3", "F4", "F8", "F9", "F10"))


def test_hand_computed_values():
    x = np.array([1.0, -2.0, 3.0])
    assert get_function("F1", 3)(x) == 14.0
    assert get_function("F3", 3)(x) == 3.0
    # F5: sum_i (x1 - xi^2)^2 + (xi - 1)^2 = (1-1)^2+0 + (1-4)^2+9 + (1-9)^2+4 = 0 + 18 + 68
    assert get_function("F5", 3)(x) == 86.0
    # F7: 100 (x2 - x1^2)^2 + (x1 - 1)^2 + 100 (x3 - x2^2)^2 + (x2 - 1)^2 = 900 + 0 + 100 + 9
    assert get_function("F7", 3)(x) == 1009.0
    # F11 at integers: sum x^2 (the cosine terms cancel the +10)
    assert get_function("F11", 3)(x) == pytest.approx(14.0, abs=1e-12)
    f2 = get_function("F2", 3, shift=[1.0, 1.0, 1.0])
    assert f2(x) == pytest.approx(0 + 9 + 4 - 450.0)
    f8 = get_function("F8", 2, shift=[0.0, 0.0])  # z = x + 1
    assert f8([0.0, 0.0]) == pytest.approx(100 * (1 - 1) ** 2 + 0 + 390.0)
    assert f8([-1.0, -1.0]) == pytest.approx(100 * (0 - 0) ** 2 + 1 + 390.0)
    # F13 at z = 0: each term F8(F2(0, 0)) = F8(1) = 1/4000 - cos(1) + 1
    f13 = get_function("F13", 4, shift=np.ones(4) - 1.0)  # z = x - o + 1 = x + 1 ... choose x = -1
    assert f13(-np.ones(4)) == pytest.approx(4 * (1 / 4000 - np.cos(1.0) + 1) - 130.0)
    # F9 with identity rotation: weights 1e6^((i-1)/(n-1)) = 1, 1e3, 1e6
    f9 = get_function("F9", 3, shift=np.zeros(3), rotation=np.eye(3))
    assert f9(np.ones(3)) == pytest.approx(1 + 1e3 + 1e6 - 450.0)
    # F10 with identity A: max |x - o| after putting o on the bounds
    f10 = get_function("F10", 4, shift=np.zeros(4), matrix=np.eye(4))
    np.testing.assert_array_equal(f10.optimum_x, [-100, 0, 100, 100])
    assert f10(np.zeros(4)) == pytest.approx(100.0 - 310.0)


def test_official_rotation_convention_multiplies_row_vectors():
    m = np.array([[1.0, 2.0], [0.0, 1.0]])  # not symmetric: x M differs from M x
    f = get_function("F12", 2, shift=np.zeros(2), rotation=m)
    x = np.array([0.25, 0.0])
    z = x @ m  # (0.25, 0.5)
    expected = np.sum(z**2 - 10 * np.cos(2 * np.pi * z) + 10) - 330.0
    assert f(x) == pytest.approx(expected)


def test_generated_rotations_are_orthogonal_and_condition_two():
    rng = np.random.default_rng(0)
    for n in (2, 10, 100):
        q = random_orthogonal(n, rng)
        np.testing.assert_allclose(q @ q.T, np.eye(n), atol=1e-12)
        m = condition_two_matrix(n, rng)
        assert np.linalg.cond(m) == pytest.approx(2.0, rel=1e-9)
    f9 = get_function("F9", 50, seed=2)
    np.testing.assert_allclose(f9.data["rotation"] @ f9.data["rotation"].T, np.eye(50), atol=1e-12)
    assert np.linalg.cond(get_function("F12", 50, seed=2).data["rotation"]) == pytest.approx(2.0)


def test_f10_data_follows_the_official_procedure():
    f = get_function("F10", 10, seed=4)
    a, o = f.data["matrix"], f.optimum_x
    assert np.all(a == np.round(a)) and np.abs(a).max() <= 100
    assert np.linalg.matrix_rank(a) == 10
    # 1-based: o(1:ceil(D/4)) = -100 and o(max(floor(0.75 D), 1):D) = 100
    np.testing.assert_array_equal(o[:3], -100.0)
    np.testing.assert_array_equal(o[6:], 100.0)
    assert np.all(np.abs(o[3:6]) < 100)
    np.testing.assert_array_equal(schwefel_206_on_bounds(np.zeros(1)), [100.0])


def test_generated_shifts_lie_in_the_cec_ranges():
    ranges = {"F2": 100, "F4": 100, "F8": 90, "F9": 100, "F12": 5}
    for name, r in ranges.items():
        o = get_function(name, 1000, seed=1).optimum_x
        assert np.abs(o).max() <= r and np.abs(o).max() > 0.9 * r
    o13 = get_function("F13", 1000, seed=1).optimum_x
    assert o13.min() >= -1 and o13.max() <= 0


def test_same_seed_same_instance_different_seed_different_instance():
    a, b, c = get_function("F12", 20, seed=5), get_function("F12", 20, seed=5), get_function("F12", 20, seed=6)
    np.testing.assert_array_equal(a.optimum_x, b.optimum_x)
    np.testing.assert_array_equal(a.data["rotation"], b.data["rotation"])
    assert not np.array_equal(a.optimum_x, c.optimum_x)


def test_explicit_data_is_honoured_and_truncated_to_the_dimension():
    shift = np.linspace(-50, 50, 100)  # like an official 100-value data row
    f = get_function("F2", 10, shift=shift)
    np.testing.assert_array_equal(f.optimum_x, shift[:10])
    rot = random_orthogonal(10, np.random.default_rng(0))
    g = get_function("F9", 10, shift=shift, rotation=rot)
    np.testing.assert_array_equal(g.data["rotation"], rot)
    # a rotation is used whole: the 10 x 10 block of a 30 x 30 rotation is not orthogonal
    for bad in (random_orthogonal(30, np.random.default_rng(0)), np.eye(10, 11)):
        with pytest.raises(ValueError, match=r"^rotation: expected a matrix of shape \(10, 10\)"):
            get_function("F9", 10, rotation=bad)


def test_a_shift_that_puts_the_optimum_outside_the_box_is_refused():
    with pytest.raises(ValueError, match=r"^shift: the optimum must lie in F2's box \[-100, 100\]; variables \[0\]"):
        get_function("F2", 3, shift=[500.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"^shift: the optimum must lie in F10's box"):
        get_function("F10", 8, shift=[0.0, 0.0, 0.0, 101.0, 0.0, 0.0, 0.0, 0.0])  # the middle is not put on the bounds
    assert get_function("F2", 3, shift=[100.0, -100.0, 0.0]).optimum_x.tolist() == [100.0, -100.0, 0.0]  # on the bound is inside


def test_registry_lookup_by_name_and_alias_and_errors():
    assert [n for n, _, _ in list_functions()] == NAMES
    assert get_function("shifted_rosenbrock", 5).name == "F8"
    assert get_function("f8", 5).name == "F8"
    with pytest.raises(ValueError, match="unknown function"):
        get_function("F14", 5)
    with pytest.raises(ValueError, match="dimension"):
        get_function("F1", 0)
    with pytest.raises(ValueError, match="at least 2"):
        get_function("F7", 1)
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="^seed: expected a non-negative integer or None"):
            get_function("F1", 5, seed=bad)
    with pytest.raises(ValueError, match="rotation"):
        get_function("F2", 5, rotation=np.eye(5))
    with pytest.raises(ValueError, match="shift: expected a vector of at least 5"):
        get_function("F2", 5, shift=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"x: F1 is 5-dimensional"):
        get_function("F1", 5)(np.zeros((2, 4)))


def test_instance_data_never_share_an_optimizers_random_stream():
    # an optimizer seeded s draws default_rng(s).uniform(...) first; the optimum must not be that
    for seed in (0, 1, 7):
        o = get_function("F2", 10, seed=seed).optimum_x
        first = np.random.default_rng(seed).uniform(-100, 100, size=(5, 10))
        assert not np.any(np.isclose(first, o).all(axis=1))


def _write_cec2005_files(directory, rng):
    """Files in the official format: 100 values per row, F10's o then its 100 x 100 A."""
    np.savetxt(directory / "sphere_func_data.txt", rng.uniform(-80, 80, (1, 100)))
    np.savetxt(directory / "rastrigin_func_data.txt", rng.uniform(-5, 5, (1, 100)))
    np.savetxt(directory / "rastrigin_M_D10.txt", rng.standard_normal((10, 10)))
    o = rng.uniform(-100, 100, (1, 100))
    a = rng.integers(-100, 101, (100, 100)).astype(float)
    np.savetxt(directory / "schwefel_206_data.txt", np.vstack([o, a]))
    return o[0], a


def test_cec2005_instance_reads_the_official_files(tmp_path):
    o, a = _write_cec2005_files(tmp_path, np.random.default_rng(3))
    f10 = get_function("F10", 30, **cec2005_instance("F10", 30, tmp_path))
    np.testing.assert_array_equal(f10.data["matrix"], a[:30, :30])
    np.testing.assert_array_equal(f10.optimum_x, schwefel_206_on_bounds(o[:30]))
    assert f10.error(f10(f10.optimum_x)) == 0.0
    sphere_row = np.loadtxt(tmp_path / "sphere_func_data.txt")
    np.testing.assert_array_equal(get_function("F2", 50, **cec2005_instance("F2", 50, tmp_path)).optimum_x, sphere_row[:50])
    # a rotation file for the dimension is used; without one the generator is (as officially)
    f12 = get_function("F12", 10, **cec2005_instance("F12", 10, tmp_path))
    np.testing.assert_array_equal(f12.data["rotation"], np.loadtxt(tmp_path / "rastrigin_M_D10.txt"))
    assert "rotation" not in cec2005_instance("F12", 20, tmp_path)
    assert cec2005_instance("F11", 50, tmp_path) == {}  # not a CEC2005 function


def test_cec2005_instance_rejects_what_no_file_covers(tmp_path):
    _write_cec2005_files(tmp_path, np.random.default_rng(4))
    with pytest.raises(ValueError, match="dimension: the CEC2005 data files cover at most 100"):
        cec2005_instance("F10", 101, tmp_path)
    with pytest.raises(FileNotFoundError, match="directory: rosenbrock_func_data.txt not found"):
        cec2005_instance("F8", 50, tmp_path)
    with pytest.raises(ValueError, match="dimension: expected a positive integer"):
        cec2005_instance("F2", 0, tmp_path)
    # the distribution has F9's and F12's rotations at 2, 10, 30 and 50 variables: missing there, the directory is incomplete
    np.savetxt(tmp_path / "high_cond_elliptic_rot_data.txt", np.zeros((1, 100)))
    with pytest.raises(FileNotFoundError, match="directory: elliptic_M_D50.txt not found"):
        cec2005_instance("F9", 50, tmp_path)
    assert "rotation" not in cec2005_instance("F9", 40, tmp_path)  # no file exists at 40: the generator's, as officially
    (tmp_path / "rosenbrock_func_data.txt").write_text("1 2 x 4\n")
    with pytest.raises(ValueError, match="^directory: rosenbrock_func_data.txt in .* is not a CEC2005 data file"):
        cec2005_instance("F8", 4, tmp_path)  # the file named, not numpy's bare parse error
    (tmp_path / "rosenbrock_func_data.txt").write_text("")
    with pytest.raises(ValueError, match="^directory: rosenbrock_func_data.txt in .* has 0 values in a row; expected at least 4"):
        cec2005_instance("F8", 4, tmp_path)
    (tmp_path / "rosenbrock_func_data.txt").write_text("1 2 3\n")
    with pytest.raises(ValueError, match="^directory: rosenbrock_func_data.txt in .* has 3 values in a row; expected at least 4"):
        cec2005_instance("F8", 4, tmp_path)


def test_the_instance_key_names_the_function_its_dimension_and_its_data():
    key = get_function("F9", 10).instance_key
    assert key == get_function("F9", 10).instance_key  # a fresh object of the same instance
    others = [get_function("F9", 10, seed=1), get_function("F9", 11), get_function("F10", 10)]
    assert len({key, *(f.instance_key for f in others)}) == 4
