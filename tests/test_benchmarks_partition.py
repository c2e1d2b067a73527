"""benchmarks/partition_bench.py: the block-rotated ellipsoid and the on/off report."""

import json

import numpy as np
import pytest
from scipy.linalg import block_diag

import partition_bench
from partition_bench import BlockRotatedEllipsoid


def test_block_rotated_ellipsoid_is_an_ellipsoid_rotated_block_by_block():
    f = BlockRotatedEllipsoid(20, 5)
    assert f(f.shift) == 0.0 and f.name == "BlockEllipsoid5"
    rotation = block_diag(*f.rotations)
    np.testing.assert_allclose(rotation @ rotation.T, np.eye(20), atol=1e-12)
    x = np.random.default_rng(0).uniform(-5, 5, size=(7, 20))
    expected = (((x - f.shift) @ rotation) ** 2) @ f.weights
    np.testing.assert_allclose(f(x), expected, rtol=1e-12)
    assert f(x[0]) == pytest.approx(expected[0], rel=1e-12)
    assert f.weights[:5].tolist() == pytest.approx([1.0, 10**1.5, 1e3, 10**4.5, 1e6])  # condition 1e6 in every block
    assert np.array_equal(BlockRotatedEllipsoid(20, 5).rotations, f.rotations)  # a fixed instance
    with pytest.raises(ValueError, match="block"):
        BlockRotatedEllipsoid(20, 6)


def test_report_compares_each_learned_configuration_with_its_default_twin(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    cells = {("edamcc-adaptive", "F1"): [1.0] * 5, ("edamcc-adaptive-learned", "F1"): [0.1] * 5,
             ("edamcc-adaptive", "F2"): [0.0] * 5, ("edamcc-adaptive-learned", "F2"): [1e-13] * 5,
             ("edamcc-adaptive", "BlockEllipsoid5"): [1.0, 2, 3, 4, 5],
             ("edamcc-adaptive-learned", "BlockEllipsoid5"): [2.0, 3, 4, 5, 6]}  # fmt: skip
    for (alg, fname), errors in cells.items():
        for seed, e in enumerate(errors):
            run = {"algorithm": alg, "function": fname, "dim": 100, "budget": 100_000, "seed": seed, "error": e,
                   "wall_seconds": 1.0}  # fmt: skip
            if fname.startswith("BlockEllipsoid"):
                run |= {"mean_strong": 10.0 + seed, "grouped_pairs_inside_blocks": 0.5, "block_pairs_grouped": 0.25}
            (runs / f"{alg}__{fname}__100__b100000__s{seed}.json").write_text(json.dumps(run))
    text = partition_bench.report(tmp_path)
    assert "ahead*" in text.split("| F1 |")[1].split("\n")[0]  # 5 against 5 runs, all lower: p = 0.008
    assert "| F2 | 0.00e+00 | 0.00e+00 | 5/5 | 1 | tied |" in text  # below 1e-12 is 0 on both sides
    assert "edamcc-adaptive-learned against edamcc-adaptive: ahead on 1, tied on 1, behind on 0 of 2; with p < 0.05" in text
    assert "behind on 1 of 1" in text.split("## block-rotated ellipsoids")[1]
    assert "| BlockEllipsoid5 | edamcc-adaptive-learned | 12.0 | 50.0% | 4.0% | 25.0% |" in text  # chance: 4 / 99
