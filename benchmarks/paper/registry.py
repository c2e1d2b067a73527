"""Which runs make which table of the paper: the jobs, their run keys, the tables' names.

The protocol is the paper's: budget 10000 n (2.5e6 at 500D), tau = 0.5, elitism, and the best
of M in {200, 500, 1000, 2000} where the paper searched it (``popsizes="all"``);
``popsizes="paper"`` keeps only the M the paper reports as best for each cell.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from common import FUNCTIONS, paper_budget
from edamcc.benchmark_functions import CEC2005_DATA_FILES, CEC2005_MAX_DIMENSION

from . import published as paper

POPSIZES = (200, 500, 1000, 2000)
TABLES = ("solution", "500d", "f10", "umda_large", "additional", "theta_c", "gc", "wism")


@dataclass(frozen=True)
class Job:
    table: str
    column: str  # the table's column this run belongs to
    variant: str
    function: str
    dim: int
    population_size: int
    c: int
    theta: float
    seed: int
    budget: int
    instance: str = "generated"  # or "cec2005": the official data files (--cec2005-data)

    @property
    def key(self) -> str:
        tag = "" if self.instance == "generated" else f"__{self.instance}"
        return (f"{self.table}__{self.column}__{self.function}__{self.dim}__M{self.population_size}"
                f"__c{self.c}__t{self.theta}__s{self.seed}{tag}")  # fmt: skip


def instance_for(function: str, dim: int, cec2005: bool) -> str:
    """"cec2005" where official data define the function at this dimension, else "generated"."""
    return "cec2005" if cec2005 and function in CEC2005_DATA_FILES and dim <= CEC2005_MAX_DIMENSION else "generated"


def generated(run: dict) -> bool:
    """Whether a run file is on a generated instance (files from before instances existed are)."""
    return run.get("instance", "generated") == "generated"


def jobs_for(table: str, runs: int, popsizes: str, functions: list[str] | None, dims: list[int] | None) -> Iterator[Job]:
    fsel = (lambda f: functions is None or f in functions)
    dsel = (lambda d: dims is None or d in dims)

    def sizes(cell_m: int) -> tuple[int, ...]:
        return (cell_m,) if popsizes == "paper" else POPSIZES

    for seed in range(runs):
        if table == "solution":
            for (fn, dim), cells in paper.POPSIZE_RESULTS.items():
                if fsel(fn) and dsel(dim):
                    for col, m in cells.items():
                        for big_m in sizes(m):
                            yield Job(table, col, col, fn, dim, big_m, 20, 0.3, seed, paper_budget(dim))
        elif table == "500d":
            for fn in FUNCTIONS:
                if fsel(fn) and dsel(500):
                    yield Job(table, "edamcc", "edamcc", fn, 500, paper.EDAMCC_500D_POPSIZE[fn], 100, 0.3, seed, paper_budget(500))
                    yield Job(table, "umdac", "umdac", fn, 500, 2000, 100, 0.3, seed, paper_budget(500))
                    yield Job(table, "mimic", "mimic", fn, 500, 2000, 100, 0.3, seed, paper_budget(500))
        elif table == "f10":
            for dim, cells in paper.F10_EEDA_VS_EDAMCC.items():
                if dsel(dim):
                    for col, (_, m) in cells.items():
                        for big_m in sizes(m):
                            yield Job(table, col, col, "F10", dim, big_m, 20, 0.3, seed, paper_budget(dim))
        elif table == "umda_large":
            for fn in paper.UMDA_LARGE_POPSIZE:
                fn = fn[0]
                if fsel(fn) and dsel(100):
                    for big_m in (4000, 8000, 16000):
                        yield Job(table, f"umdac-{big_m}", "umdac", fn, 100, big_m, 20, 0.3, seed, paper_budget(100))
        elif table == "additional":
            for fn, dim in paper.ADDITIONAL_EXP:
                if fsel(fn) and dsel(dim):
                    for big_m in sizes(2000):
                        yield Job(table, "umdac", "umdac", fn, dim, big_m, 20, 0.3, seed, paper_budget(dim))
                    for variant, tag in (("edamcc", "edamcc"), ("edamcc-emna", "edamcc-emna")):
                        for c in (20, 2):
                            for big_m in sizes(2000):
                                yield Job(table, f"{tag}-c{c}", variant, fn, dim, big_m, c, 0.3, seed, paper_budget(dim))
        elif table == "theta_c":
            for fn, big_m in (("F2", 1000), ("F8", 500)):
                if fsel(fn) and dsel(100):
                    for theta in (0.2, 0.25, 0.3, 0.35, 0.4):
                        for c in (5, 10, 20, 30, 40, 50):
                            yield Job(table, f"t{theta}-c{c}", "edamcc", fn, 100, big_m, c, theta, seed, paper_budget(100))
        elif table == "gc":
            for (fn, dim), cell in paper.EDAMCC_GC.items():
                if fsel(fn) and dsel(dim):
                    for variant in ("edamcc-gc", "edamcc"):
                        yield Job(table, variant, variant, fn, dim, cell["M"], cell["c"], 0.3, seed, paper_budget(dim))  # type: ignore[arg-type]
        elif table == "wism":
            for (fn,) in paper.WISM_VS_SM_VS_WI:
                m = paper.POPSIZE_RESULTS[(fn, 100)]["edamcc"]
                if fsel(fn) and dsel(100):
                    for variant in ("edamcc", "sm-only", "wi-only"):
                        yield Job(table, variant, variant, fn, 100, m, 20, 0.3, seed, paper_budget(100))
        else:
            raise SystemExit(f"--table: unknown table {table!r}")


def campaign(tables: list[str], runs: int, popsizes: str, functions: list[str] | None = None, dims: list[int] | None = None,
             columns: list[str] | None = None, cec2005: bool = False) -> list[Job]:  # fmt: skip
    """The jobs of ``tables``, only ``columns`` if given; with ``cec2005``, only the cells the
    official data files define, on those instances (the generated ones are the default campaign's)."""
    jobs = [j for t in tables for j in jobs_for(t, runs, popsizes, functions, dims)]
    if columns:
        jobs = [j for j in jobs if j.column in columns]
    if cec2005:
        jobs = [replace(j, instance=instance_for(j.function, j.dim, True)) for j in jobs]
        jobs = [j for j in jobs if j.instance == "cec2005"]
    return jobs
