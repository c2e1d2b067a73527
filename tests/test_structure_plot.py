"""The three-panel picture of a run (edamcc.structure_plot)."""

import os

import numpy as np
import pytest

from edamcc import EDAMCCStrategy, StructureRecord
from edamcc.structure_plot import dependency_order, plot_structure

pytest.importorskip("matplotlib")


def _run(n, pairs, generations=8):
    es = EDAMCCStrategy(bounds=[(-5, 5)] * n, population_size=60, seed=3, record_pairs=pairs)
    errors = []
    for _ in range(generations):
        x = es.ask()
        es.tell(x, 100 * (x[:, 1] - x[:, 0] ** 2) ** 2 + np.sum(x[:, 2:] ** 2, axis=1))
        errors.append((es.evaluations, es.best_f))
    return es, errors


@pytest.mark.parametrize("pairs", [True, False])
def test_plot_writes_a_readable_png_with_and_without_pair_counts(tmp_path, pairs):
    import matplotlib.image

    es, errors = _run(12, pairs)
    path = tmp_path / "s.png"
    plot_structure(es.structure, errors=errors, m_corr=es.m_corr, theta=0.3, path=str(path), title="test run")
    image = matplotlib.image.imread(path)
    assert image.shape[0] > 600 and image.shape[1] > 1000  # large enough to read
    assert image[..., :3].std() > 0.05  # not blank


def test_plot_without_error_history_or_chance_line_and_refuses_an_empty_record(tmp_path):
    es, _ = _run(6, True, generations=3)
    plot_structure(es.structure, path=str(tmp_path / "s.png"))
    assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="no WI call was recorded"):
        plot_structure(StructureRecord(5), path=str(tmp_path / "e.png"))
    assert not (tmp_path / "e.png").exists()


def test_dependency_order_puts_each_block_together():
    rng = np.random.default_rng(0)
    n = 30
    blocks = [rng.permutation(n)[:5], None]
    blocks[1] = np.setdiff1d(rng.permutation(n), blocks[0])[:4]
    freq = rng.uniform(0, 0.01, (n, n))
    for b in blocks:
        freq[np.ix_(b, b)] = 0.6
    freq = (freq + freq.T) / 2
    order = dependency_order(freq)
    assert sorted(order.tolist()) == list(range(n))  # a permutation
    for b in blocks:
        positions = np.sort(np.flatnonzero(np.isin(order, b)))
        assert positions[-1] - positions[0] == b.size - 1  # contiguous


def test_dependency_groups_are_the_linked_sets():
    from edamcc.structure_plot import dependency_groups

    freq = np.zeros((8, 8))
    for i, j in [(0, 5), (5, 6), (2, 3)]:
        freq[i, j] = freq[j, i] = 0.3
    freq[1, 4] = freq[4, 1] = 0.01  # below the threshold
    assert [g.tolist() for g in dependency_groups(freq)] == [[0, 5, 6], [2, 3]]


def test_theta_must_be_the_number_wi_used(tmp_path):
    es = EDAMCCStrategy(bounds=[(-5, 5)] * 4, population_size=20, seed=0)
    for _ in range(3):
        x = es.ask()
        es.tell(x, np.sum(x**2, axis=1))
    with pytest.raises(ValueError, match="^theta: expected the number WI used"):
        plot_structure(es.structure, path=str(tmp_path / "t.png"), m_corr=6, theta="auto")
    for kwargs, message in (({"m_corr": "a", "theta": 0.3}, "^m_corr: expected the rows WI correlated"),
                            ({"m_corr": 6}, "^m_corr, theta: expected both"),  # alone it would draw no line, silently
                            ({"errors": np.array([10.0, 1.0, 20.0, 0.5])}, r"^errors: expected .* shape \(k, 2\)")):  # fmt: skip
        with pytest.raises(ValueError, match=message):
            plot_structure(es.structure, path=str(tmp_path / "t.png"), **kwargs)
    with pytest.raises(ValueError, match="^theta: expected the number WI used"):
        plot_structure(es.structure, path=str(tmp_path / "t.png"), m_corr=6, theta=1.5)
    assert os.listdir(tmp_path) == []


def test_the_pair_panels_colour_scale_is_a_fraction_and_two_rows_draw_a_chance_line(tmp_path, monkeypatch):
    """Few WI calls put chance's floor above 1 / 100: the scale's top was 100 times it (20 here),
    so a pair found in nearly every generation was drawn pale. And m_corr = 2 drew no line."""
    import matplotlib.axes

    es = EDAMCCStrategy(bounds=[(-5, 5)] * 8, population_size=40, seed=0, variant="edamcc", record_pairs=True)
    for _ in range(60):
        x = es.ask()
        es.tell(x, np.sum(x**2, axis=1) + 50 * (x[:, 0] - x[:, 1]) ** 2)
    seen = {}
    imshow, axhline = matplotlib.axes.Axes.imshow, matplotlib.axes.Axes.axhline
    monkeypatch.setattr(matplotlib.axes.Axes, "imshow", lambda ax, *a, **k: seen.update(norm=k["norm"]) or imshow(ax, *a, **k))
    monkeypatch.setattr(matplotlib.axes.Axes, "axhline", lambda ax, y, *a, **k: seen.update(line=y) or axhline(ax, y, *a, **k))
    plot_structure(es.structure, path=str(tmp_path / "p.png"))
    assert es.structure.pair_frequency()[0, 1] >= 0.9 and seen["norm"].vmax == 1.0 and seen["norm"].vmin < 0.5
    plot_structure(es.structure, path=str(tmp_path / "q.png"), m_corr=2, theta=0.3)
    assert seen["line"] == 8.0 and seen["norm"].vmin < seen["norm"].vmax <= 1.0  # every pair by chance


@pytest.mark.parametrize("name", ["run.xyz", "run"])  # no suffix: matplotlib would write run.png instead
def test_a_path_without_a_picture_format_is_refused_before_drawing(tmp_path, name):
    es, _ = _run(4, pairs=True, generations=2)
    with pytest.raises(ValueError, match="path: expected a file name ending in one of .*png"):
        plot_structure(es.structure, path=tmp_path / name)
    assert os.listdir(tmp_path) == []


def test_the_plot_leaves_matplotlibs_backend_and_pyplots_figures_alone(tmp_path):
    import matplotlib
    import matplotlib.pyplot as plt

    es, _ = _run(6, True, generations=3)
    before = matplotlib.get_backend()
    with matplotlib.rc_context({"backend": "svg"}):  # a backend other than the one the picture is written with
        matplotlib.use("svg")
        figures = plt.get_fignums()
        plot_structure(es.structure, path=str(tmp_path / "s.png"))
        assert matplotlib.get_backend() == "svg" and plt.get_fignums() == figures
    matplotlib.use(before)
    assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG"


def test_every_argument_is_checked_before_anything_is_drawn(tmp_path, monkeypatch):
    import matplotlib.figure

    es, errors = _run(6, True, generations=3)
    drawn = []
    monkeypatch.setattr(matplotlib.figure, "Figure", lambda *a, **k: drawn.append(1))  # drawing would start here
    cases = [
        (dict(record=es), TypeError, "record: expected a StructureRecord"),  # the strategy, not its record
        (dict(record=None), TypeError, "record: expected a StructureRecord"),  # record_structure=False
        (dict(path=str(tmp_path / "nodir" / "p.png")), ValueError, "path: directory"),
        (dict(path=str(tmp_path / "p.pgf")), ValueError, "path: expected a file name ending in one of"),  # needs TeX
        (dict(path=None), TypeError, "path: expected a file path; got None"),
        (dict(dpi=0), ValueError, "dpi: expected a positive finite number; got 0"),
        (dict(dpi=float("inf")), ValueError, "dpi: expected a positive finite number; got inf"),
        (dict(dpi="high"), ValueError, "dpi: expected a positive finite number"),
        (dict(errors=[(10, 5.0), (20, float("nan"))]), ValueError, "errors: expected best errors, not NaN; got NaN at 20"),
        (dict(errors=[(10, 5.0), (20, -994.0)]), ValueError, r"errors: expected best errors >= 0; got -994 at 20 evaluations: is F\(x\*\) right\?"),
    ]  # fmt: skip
    for change, kind, message in cases:
        kwargs = dict(record=es.structure, path=str(tmp_path / "p.png"), errors=errors) | change
        with pytest.raises(kind, match=message):
            plot_structure(kwargs.pop("record"), **kwargs)
    assert drawn == []
    umdac = EDAMCCStrategy(bounds=[(-5, 5)] * 4, variant="umdac", seed=0)
    x = umdac.ask()
    umdac.tell(x, np.sum(x**2, axis=1))
    with pytest.raises(ValueError, match=r"record: no WI call was recorded \(a variant without WI"):
        plot_structure(umdac.structure, path=str(tmp_path / "u.png"))


def test_a_zero_error_is_drawn_below_the_rest(tmp_path):
    es, _ = _run(6, True, generations=3)
    plot_structure(es.structure, errors=[(10, 5.0), (20, 0.0)], path=str(tmp_path / "z.png"))
    assert (tmp_path / "z.png").exists()
