import numpy as np

from edamcc import minimize


def sphere(x):
    return float(np.sum(x**2))


def test_disp_prints_counts_eta_and_the_final_line_once(capsys):
    minimize(sphere, [(-1, 1)] * 3, budget=410, population_size=20, seed=1, disp=True)
    lines = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("end") for line in lines) == 1 and lines[-1].startswith("end")
    assert all("in flight" in line and "failed" in line and "eta" in line for line in lines)
    assert "nfev       410" in lines[-1]
