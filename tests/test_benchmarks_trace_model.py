"""benchmarks/trace_model.py: one run's model, row by row, as the command line prints it."""

import subprocess
import sys
from pathlib import Path

import numpy as np

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "trace_model.py"


def _rows(*args: str) -> tuple[str, list[list[str]]]:
    out = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=True).stdout
    lines = [line for line in out.splitlines() if line.startswith("|")]
    return lines[0], [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]


def test_a_direction_variant_adds_the_length_of_v_and_its_largest_component():
    header, rows = _rows("F1", "--dim", "10", "--variant", "edamcc-vd-lf0", "-M", "0", "-c", "0", "--theta", "auto",
                         "--budget", "1500", "--every", "20")  # fmt: skip
    assert header.endswith("| M | sigma | condition | abs(v) | max abs(v_i) |")
    assert rows and all(len(row) == 13 for row in rows)
    length, largest = (np.array([float(row[k]) for row in rows]) for k in (11, 12))
    assert np.all(np.isfinite(length)) and np.all(length > 0)  # v is learned from the first mean step on
    assert np.all(largest <= length + 1e-12) and np.all(largest <= 10.0)  # a component within |v| and the cap


def test_a_variant_without_a_direction_prints_no_such_columns():
    header, rows = _rows("F1", "--dim", "10", "--variant", "edamcc-sep-cc", "-M", "0", "-c", "0", "--theta", "auto",
                         "--budget", "600", "--every", "20")  # fmt: skip
    assert header.endswith("| M | sigma | condition |") and rows and all(len(row) == 11 for row in rows)
