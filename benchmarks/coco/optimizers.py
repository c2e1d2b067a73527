"""The registered optimizers: ``entry(problem, lower, upper, budget, seed)``.

``problem`` is a :class:`~benchmarks.coco.problem.BatchProblem` (callable on one point or a
batch; ``.done`` once the budget is spent or COCO's final target is hit). Every entry runs
until its own stop, the budget, or the final target, whichever comes first.

The peers start from ``x0`` drawn uniformly in [-4, 4]^n from the seed with ``sigma0 = 2``,
COCO's usual choice for its [-5, 5]^n domain (a fifth of the domain's width).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from typing import Callable

import numpy as np

from .problem import BatchProblem, ProblemDone

SIGMA0 = 2.0


@dataclass(frozen=True)
class Entry:
    name: str
    run: Callable[[BatchProblem, np.ndarray, np.ndarray, int, int], None]
    package: str
    description: str
    max_dim: int | None = None
    modules: tuple[str, ...] = ()  # imported before the clock starts


REGISTRY: dict[str, Entry] = {}


def register(name: str, package: str, description: str, max_dim: int | None = None, modules: tuple[str, ...] = ()):
    def wrap(fn):
        REGISTRY[name] = Entry(name, fn, package, description, max_dim, modules or (package,))
        return fn

    return wrap


def _x0(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-4.0, 4.0, n)


def _stop_on_target(problem: BatchProblem):
    return lambda intermediate: bool(problem.problem.final_target_hit)


def _edamcc(problem, lower, upper, budget, seed, **options) -> None:
    """``edamcc.minimize`` on the batch problem, stopped on COCO's final target."""
    import edamcc

    problem.strict = False
    edamcc.minimize(problem, list(zip(lower, upper)), budget=budget, seed=seed, vectorized=True,
                    callback=_stop_on_target(problem), **options)


@register("edamcc-paper", "edamcc", "edamcc.minimize, variant edamcc, M=200, tau=0.5, theta=0.3, c=20 (paper settings)")
def edamcc_paper(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, variant="edamcc", population_size=200, selection_ratio=0.5, theta=0.3, c=20)


@register("edamcc-default", "edamcc", "edamcc.minimize with its defaults (variant edamcc-sep-cc since 0.7, edamcc-csa from 0.3 to 0.6) and repair='none': "
          "the box [-5,5]^n is COCO's region of interest, not a constraint, and the peers run unbounded")
def edamcc_default(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, repair="none")


@register("edamcc-tpa", "edamcc", "edamcc.minimize, variant edamcc-tpa (two-point step size), repair='none' as edamcc-default: "
          "the default with the step-size rule pycma uses from n = 300 on")
def edamcc_tpa(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, variant="edamcc-tpa", repair="none")


@register("edamcc-sep-cc", "edamcc", "edamcc.minimize, variant edamcc-sep-cc (sep-CMA-ES's rate for the rank-one path), "
          "repair='none' as edamcc-default")
def edamcc_sep_cc(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, variant="edamcc-sep-cc", repair="none")


@register("edamcc-exact-theta", "edamcc", "edamcc.minimize with its defaults and repair='none' as edamcc-default, but theta='exact': "
          "WI's threshold from the exact null law of |corr| instead of Fisher's z (opt-in, not the default)")
def edamcc_exact_theta(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, repair="none", theta="exact")


# The edamcc-tolfun-1e-13 experiment: the default with the restart test on flat values
# (edamcc.restarts.RESTART_TOL_FUN, pycma's tolfun, 1e-11) at 1e-13, the setting
# benchmarks/restart_tolerance.py calls tolfun-1e-13. Not the package's rule.
LOW_RESTART_TOL_FUN = 1e-13


@contextmanager
def restart_tolerances(tol_std: float | None = None, tol_fun: float | None = None) -> Iterator[None]:
    """:mod:`edamcc.restarts`' ``TOL_STD`` and ``RESTART_TOL_FUN`` set for the block (None: as
    they are), in this process only, and put back after it, also when it fails; the benchmarks'
    restart experiments run in it. ``restart_reason`` reads them at each call."""
    import edamcc.restarts as restarts

    before = restarts.TOL_STD, restarts.RESTART_TOL_FUN
    restarts.TOL_STD = before[0] if tol_std is None else tol_std
    restarts.RESTART_TOL_FUN = before[1] if tol_fun is None else tol_fun
    try:
        yield
    finally:
        restarts.TOL_STD, restarts.RESTART_TOL_FUN = before


@register("edamcc-sep-cc-lf", "edamcc", "edamcc.minimize, variant edamcc-sep-cc-lf (edamcc-sep-cc with a line-free step-size path), "
          "repair='none' as edamcc-default")
def edamcc_sep_cc_lf(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, variant="edamcc-sep-cc-lf", repair="none")


@register("edamcc-vd", "edamcc", "edamcc.minimize, variant edamcc-vd (edamcc-sep-cc with one learned direction beyond its diagonal, "
          "edamcc.direction), repair='none' as edamcc-default")
def edamcc_vd(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, variant="edamcc-vd", repair="none")


def direction_only_variant(active: bool = True, direction_free_wi: bool = False):
    """The ``edamcc-vd-lf0`` experiment: ``edamcc-vd`` whose step-size path reads the mean's step as
    it is (``line_free_path=False``, the default's path), so that only the learned direction differs
    from the default. With ``active=False``, ``edamcc-vd-lf0-na``: the same without the active
    (negative-weight) term of the diagonal's update, which with the direction collapsed the diagonal
    on the rotated elliptic F9 (``trace_model.py``); with ``direction_free_wi`` too,
    ``edamcc-vd-lf0-na-wi``: WI reads the selected rows without the direction's share, the
    package's ``edamcc-vd-wi`` under the name its runs were made with. The other two are not
    registered variants of the package."""
    from dataclasses import replace

    from edamcc import VARIANTS

    base = replace(VARIANTS["edamcc-vd"], name="edamcc-vd-lf0", line_free_path=False,
                   description="edamcc-vd with the default's step-size path (line_free_path=False): the default plus one learned direction")  # fmt: skip
    if active:
        if direction_free_wi:
            raise ValueError("direction_free_wi: measured only without the active term (active=False)")
        return base
    if not direction_free_wi:
        return replace(base, name="edamcc-vd-lf0-na", active=False,
                       description="edamcc-vd-lf0 without the active term of the diagonal's update (active=False)")  # fmt: skip
    return replace(VARIANTS["edamcc-vd-wi"], name="edamcc-vd-lf0-na-wi",
                   description="edamcc-vd-lf0-na whose WI reads the selected rows without the direction's share (direction_free_wi=True): the registered edamcc-vd-wi")  # fmt: skip


def model_metric_variant():
    """The ``edamcc-vd-wi-am`` experiment: the package's ``edamcc-vd-wi`` with the active term back,
    each bad row's length read in the sampling model's metric (``active_metric="model"``: with the
    direction, where the diagonal's metric made the term collapse the diagonal on F9,
    ``active_metric.py``). Not a registered variant of the package."""
    from dataclasses import replace

    from edamcc import VARIANTS

    return replace(VARIANTS["edamcc-vd-wi"], name="edamcc-vd-wi-am", active=True, active_metric="model",
                   description="edamcc-vd-wi with the active term, its rows' lengths in the sampling model's metric (active_metric='model')")  # fmt: skip


def direction_experiments() -> dict:
    """The experiments of :func:`direction_only_variant` by name (``edamcc-vd-lf0``, ``-na`` and
    ``-na-wi``) and :func:`model_metric_variant`'s ``edamcc-vd-wi-am``."""
    return {v.name: v for v in (direction_only_variant(), direction_only_variant(active=False),
                                direction_only_variant(active=False, direction_free_wi=True), model_metric_variant())}  # fmt: skip


@register("edamcc-vd-lf0", "edamcc", "edamcc.minimize, edamcc-vd with the default's step-size path (line_free_path=False; "
          "direction_only_variant, an experiment, not a registered variant), repair='none' as edamcc-default")
def edamcc_vd_lf0(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, variant=direction_only_variant(), repair="none")


@register("edamcc-vd-lf0-na", "edamcc", "edamcc.minimize, edamcc-vd-lf0 without the active term of the diagonal's update "
          "(direction_only_variant(active=False), an experiment, not a registered variant), repair='none' as edamcc-default")
def edamcc_vd_lf0_na(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, variant=direction_only_variant(active=False), repair="none")


@register("edamcc-vd-lf0-na-wi", "edamcc", "edamcc.minimize, edamcc-vd-lf0-na whose WI reads the selected rows without the direction's "
          "share (direction_only_variant(active=False, direction_free_wi=True), an experiment), repair='none' as edamcc-default")
def edamcc_vd_lf0_na_wi(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, variant=direction_only_variant(active=False, direction_free_wi=True), repair="none")


@register("edamcc-vd-wi-am", "edamcc", "edamcc.minimize, edamcc-vd-wi with the active term, its bad rows' lengths in the sampling "
          "model's metric (model_metric_variant(), an experiment), repair='none' as edamcc-default")
def edamcc_vd_wi_am(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, variant=model_metric_variant(), repair="none")


# The population size adaptation experiments (edamcc.population_size): the default with each rule
# of population_adaptation, built here (not registered variants of the package) for this runner and peers.py.
POPULATION_EXPERIMENTS = {"edamcc-sep-cc-psa": "psa", "edamcc-sep-cc-psa-path": "path"}


def population_variant(name: str):
    """The variant of a population size adaptation experiment: ``edamcc-sep-cc`` with that rule."""
    from dataclasses import replace

    from edamcc import VARIANTS

    rule = POPULATION_EXPERIMENTS[name]
    how = "PSA-CMA-ES's rate 0.4 and step-size correction" if rule == "psa" else "the step-size path's rate c_sigma, no step-size correction"
    return replace(VARIANTS["edamcc-sep-cc"], name=name, population_adaptation=rule,
                   description=f"edamcc-sep-cc whose population grows where a generation's update is mostly noise and shrinks where updates "
                               f"agree, within a run (PSA-CMA-ES, Nishida and Akimoto 2018; {how}), with IPOP restarts")  # fmt: skip


@register("edamcc-sep-cc-psa-path", "edamcc", "edamcc.minimize, edamcc-sep-cc with population size adaptation at the step-size path's "
          "rate (population_variant; an experiment, not a registered variant), repair='none' as edamcc-default")
def edamcc_psa_path(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, variant=population_variant("edamcc-sep-cc-psa-path"), repair="none")


@register("edamcc-tolfun-1e-13", "edamcc", "edamcc.minimize with its defaults and repair='none' as edamcc-default, its restart test on "
          f"flat values (RESTART_TOL_FUN) at {LOW_RESTART_TOL_FUN:g} instead of 1e-11 (an experiment, not the package's rule)")
def edamcc_tolfun_low(problem, lower, upper, budget, seed):
    with restart_tolerances(tol_fun=LOW_RESTART_TOL_FUN):
        _edamcc(problem, lower, upper, budget, seed, repair="none")


# The variant the edamcc-budget-pop experiment scales: the default when it was measured (0.6),
# named so that its committed runs stay reproducible after the default changed in 0.7.
BUDGET_POP_VARIANT = "edamcc-csa"


def budget_scaled_population(n: int, budget: int) -> int:
    """The first population of the ``edamcc-budget-pop`` experiment (not the package's rule):
    ``max(4 + 3 ln n, min(10 sqrt(n), budget / (10 n)))``, the default's 4 + 3 ln n up to about
    170 n evaluations at n = 100, then growing with the budget up to AMaLGaM's 10 sqrt(n) (100 at n = 100
    with 1000 n; 44 at n = 20 and 63 at n = 40). IPOP doubles it at each restart, as the default's."""
    return int(max(4 + 3 * np.log(n), min(10 * np.sqrt(n), budget / (10 * n))))


@register("edamcc-budget-pop", "edamcc", f"edamcc.minimize, variant {BUDGET_POP_VARIANT} (the default of 0.3 to 0.6), repair='none' "
          "as edamcc-default, its first population scaled with the budget (budget_scaled_population; an experiment, not the package's rule)")
def edamcc_budget_pop(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, variant=BUDGET_POP_VARIANT, repair="none",
            population_size=budget_scaled_population(len(lower), budget))


@register("edamcc-adaptive", "edamcc", "edamcc.minimize, variant edamcc-adaptive (the default of 0.2), its defaults otherwise "
          "(samples clipped to the box)")
def edamcc_adaptive(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, variant="edamcc-adaptive")


@register("edamcc-csa", "edamcc", "edamcc.minimize, variant edamcc-csa (cumulative step size), its defaults otherwise "
          "(samples clipped to the box)")
def edamcc_csa(problem, lower, upper, budget, seed):
    _edamcc(problem, lower, upper, budget, seed, variant="edamcc-csa")


def _cma_options(budget: int, seed: int, diagonal: bool) -> dict:
    return {"CMA_diagonal": diagonal, "maxfevals": budget, "seed": seed, "verbose": -9}


def _ask_tell(es, problem: BatchProblem) -> None:
    try:
        while not es.stop():
            X = es.ask()
            es.tell(X, problem(np.asarray(X)).tolist())
    except ProblemDone:
        return


@register("sep-cma", "cma", "pycma CMAEvolutionStrategy with CMA_diagonal=True, one run, x0 ~ U[-4,4]^n, sigma0=2")
def sep_cma(problem, lower, upper, budget, seed):
    import cma

    _ask_tell(cma.CMAEvolutionStrategy(_x0(seed, problem.dimension), SIGMA0, _cma_options(budget, seed, True)), problem)


@register("sep-cma-ipop", "cma", "pycma fmin2 with CMA_diagonal=True, IPOP restarts (incpopsize=2), x0 ~ U[-4,4]^n per restart, sigma0=2")
def sep_cma_ipop(problem, lower, upper, budget, seed):
    import cma

    rng = np.random.default_rng(seed)
    n = problem.dimension
    try:
        cma.fmin2(problem, lambda: rng.uniform(-4.0, 4.0, n), SIGMA0, _cma_options(budget, seed, True),
                  restarts=100, incpopsize=2, parallel_objective=lambda X: problem(np.asarray(X)).tolist())
    except ProblemDone:
        return


@register("vd-cma", "cma", "pycma CMAEvolutionStrategy with GaussVDSampler (VD-CMA: C = D (I + v v^T) D, Akimoto, Auger and "
          "Hansen, GECCO 2014), one run, x0 ~ U[-4,4]^n, sigma0=2")
def vd_cma(problem, lower, upper, budget, seed):
    import cma
    from cma.restricted_gaussian_sampler import GaussVDSampler

    options = GaussVDSampler.extend_cma_options(_cma_options(budget, seed, False))
    _ask_tell(cma.CMAEvolutionStrategy(_x0(seed, problem.dimension), SIGMA0, options), problem)


@register("cma-full", "cma", "pycma CMAEvolutionStrategy, full covariance, one run, x0 ~ U[-4,4]^n, sigma0=2; n <= 160", max_dim=160)
def cma_full(problem, lower, upper, budget, seed):
    import cma

    _ask_tell(cma.CMAEvolutionStrategy(_x0(seed, problem.dimension), SIGMA0, _cma_options(budget, seed, False)), problem)


@register("cmaes-sep", "cmaes", "cmaes.SepCMA, one run, x0 ~ U[-4,4]^n, sigma0=2")
def cmaes_sep(problem, lower, upper, budget, seed):
    from cmaes import SepCMA

    opt = SepCMA(mean=_x0(seed, problem.dimension), sigma=SIGMA0, seed=seed)
    try:
        while not opt.should_stop():
            X = np.array([opt.ask() for _ in range(opt.population_size)])
            opt.tell(list(zip(X, problem(X))))
    except ProblemDone:
        return


def _pypop7(cls, problem, lower, upper, budget, seed):
    spec = {"fitness_function": problem, "ndim_problem": problem.dimension,
            "lower_boundary": lower, "upper_boundary": upper}
    options = {"max_function_evaluations": budget, "seed_rng": seed, "mean": _x0(seed, problem.dimension),
               "sigma": SIGMA0, "verbose": False}
    try:
        cls(spec, options).optimize()
    except ProblemDone:
        return


@register("pypop7-lmmaes", "pypop7", "pypop7 LMMAES (its default restarts), mean ~ U[-4,4]^n, sigma=2",
          modules=("pypop7.optimizers.es.lmmaes",))
def pypop7_lmmaes(problem, lower, upper, budget, seed):
    from pypop7.optimizers.es.lmmaes import LMMAES

    _pypop7(LMMAES, problem, lower, upper, budget, seed)


@register("pypop7-mmes", "pypop7", "pypop7 MMES (its default restarts), mean ~ U[-4,4]^n, sigma=2",
          modules=("pypop7.optimizers.es.mmes",))
def pypop7_mmes(problem, lower, upper, budget, seed):
    from pypop7.optimizers.es.mmes import MMES

    _pypop7(MMES, problem, lower, upper, budget, seed)


def applies(name: str, dim: int) -> bool:
    entry = REGISTRY[name]
    return entry.max_dim is None or dim <= entry.max_dim


def versions(names) -> dict[str, str]:
    """Versions of the packages behind ``names``, plus COCO's and NumPy's (edamcc: the imported one)."""
    import edamcc

    packages = sorted({REGISTRY[n].package for n in names} | {"coco-experiment", "cocopp", "numpy"})
    out = {}
    for package in packages:
        if package == "edamcc":
            out[package] = edamcc.__version__
            continue
        try:
            out[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            out[package] = "not installed"
    return out


def available(name: str) -> bool:
    import importlib.util

    package = REGISTRY[name].package
    return importlib.util.find_spec({"coco-experiment": "cocoex"}.get(package, package)) is not None
