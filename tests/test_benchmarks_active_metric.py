"""benchmarks/active_metric.py: the active term's removal read in two metrics."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "active_metric.py"


def _rows(*args: str) -> list[list[float]]:
    out = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=True).stdout
    rows = [line for line in out.splitlines() if line.startswith("| ") and line[2].isdigit()]
    return [[float(x) for x in line.strip("|").split("|")[k].split("/")] for line in rows for k in (2, 3, 4)]


def test_without_a_direction_or_groups_the_two_metrics_are_one():
    # every variable weak (theta near 1) and no direction: the model's whitening is the diagonal's
    cells = _rows("F9", "--dim", "10", "--variant", "edamcc-sep-cc", "--theta", "0.9999", "--generations", "40", "--every", "20", "--smallest", "2")
    assert len(cells) == 6
    for diagonal, whole in zip(cells[0::3], cells[1::3]):
        np.testing.assert_allclose(diagonal, whole, rtol=1e-9)


def test_beside_a_direction_the_two_metrics_differ():
    cells = _rows("F9", "--dim", "10", "--variant", "edamcc-vd-lf0", "--generations", "40", "--every", "20", "--smallest", "2")
    assert len(cells) == 6 and np.all(np.isfinite(cells)) and np.all(np.array(cells) > 0)
    assert any(not np.allclose(d, w, rtol=1e-3) for d, w in zip(cells[0::3], cells[1::3]))


@pytest.mark.parametrize("args, message", [(["--smallest", "10"], "--smallest"), (["--variant", "edamcc-vd-wi"], "no active term")])
def test_bad_arguments_are_refused_before_the_run(args, message):
    done = subprocess.run([sys.executable, str(SCRIPT), "F9", "--dim", "10", *args], capture_output=True, text=True)
    assert done.returncode == 2 and message in done.stderr
