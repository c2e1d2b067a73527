"""The paper's algorithms as configurations of one engine.

Every baseline and ablation of the paper is EDA-MCC with a different answer to three
questions: is WI applied, how is the strong set S grouped, and which multivariate model does
each group get. MIMIC_c^G is the one model outside that family (a chain, not groups).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields, replace

import numpy as np

from .checks import is_int, is_real
from .models import BLOCK_SCALINGS

GROUPINGS = ("random", "greedy", "single", "none")
SCALES = ("avs", "csa")
RANK_ONE_PATHS = ("cma", "separable")
ACTIVE_METRICS = ("diagonal", "model")  # the metric of the active term's row lengths (Variant.active_metric)
POPULATION_RULES = ("psa", "path")  # edamcc.population_size's rules of population size adaptation
TWO_POINT_FROM = 300  # pycma's TPA_dimension: two-point step size from n = 300 on, cumulative below


def check_population_rule(rule: str | None) -> None:
    """``population_adaptation``'s check: one of :data:`POPULATION_RULES`, or None for none."""
    if rule is not None and rule not in POPULATION_RULES:
        raise ValueError(f"population_adaptation: expected one of {POPULATION_RULES} or None; got {rule!r}")


@dataclass(frozen=True)
class Variant:
    """One algorithm of the paper.

    Attributes:
        name: registry key.
        description: what it is and where the paper uses it.
        identify_weak: apply WI (Fig. 3); otherwise every variable is in S.
        grouping: ``"random"`` (SM, Fig. 4), ``"greedy"`` (SM-GC, Fig. 11),
            ``"single"`` (all of S in one group) or ``"none"`` (no multivariate model at all).
        block_scaling: ``"eeda"`` or ``"emna"`` for the multivariate groups.
        chain: MIMIC_c^G's chain model instead of groups.
        adaptive: beyond the paper, its "future work": WI's threshold calibrated to the noise
            (``theta="auto"`` by default), a scale control and IPOP restarts (:mod:`edamcc.restarts`).
        scale: how the adaptive variants scale the fitted model: ``"avs"``, AMaLGaM's adaptive
            variance scaling with anticipated mean shift (:mod:`edamcc.adaptation`), or
            ``"csa"``, rank-weighted fits with a remembered shape and a cumulative step size
            (:mod:`edamcc.step_size`). Ignored by the paper's variants.
        two_point_from: ``scale="csa"`` only: from this dimension on, the step size follows the
            ranks of the two mean-shift samples (two-point step-size adaptation, Hansen 2008)
            instead of the length of the mean's path; None: never. pycma switches at 300.
        rank_one_path: ``scale="csa"`` only: the rate c_c of the mean's path p_c that feeds the
            rank-one term of the shape: ``"cma"``, (4 + mu_eff / n) / (n + 4 + 2 mu_eff / n)
            (Hansen's tutorial, about 4 / n), or ``"separable"``, pycma's rate for sep-CMA-ES,
            (1 + 1 / n + mu_eff / n) / (sqrt(n) + 1 / n + 2 mu_eff / n) (about 1 / sqrt(n)).
        active: ``scale="csa"`` only: the shape's rank-mu term also takes the rows ranked below
            the selection, with negative weights (active CMA, Jastrebski and Arnold 2006, with
            the weights of Hansen's tutorial, 2016): variances shrink along the bad rows' steps.
        line_free_path: ``scale="csa"`` only: the step-size path reads the mean's step without
            the share of the two mean-shift samples, rescaled so that under random selection it
            is distributed as a step of the model's own samples
            (:meth:`edamcc.step_size.StepSize.path_step`). A number a in [0, 1] mixes the two
            readings, (1 - a) (the step) + a (the step without that share); True is 1, False 0.
        learned_direction: ``scale="csa"`` only: the model has one learned direction beyond its
            diagonal, C = sigma^2 D S (R + v v^T) S D with S = diag(1 / sqrt(1 + v_i^2)), so each
            variance stays sigma^2 D_i^2; v is learned by VD-CMA's natural gradient
            (:mod:`edamcc.direction`).
        direction_free_wi: ``learned_direction`` only: WI (and the structure record) correlate
            the selected rows mapped to the distribution of the model's factorized part
            (:meth:`edamcc.direction.DirectedGaussian.without_direction`), so that the
            correlations the direction itself draws do not make variables strong.
        active_metric: ``active`` only: the metric in which the active term reads each bad row's
            length, which rescales the row to a typical one: ``"diagonal"``, |y / D|^2, the
            step size's shape alone, or ``"model"``, the sampling model's own metric,
            (x - m)^T C^-1 (x - m), with its groups' correlations and learned direction
            (:meth:`edamcc.direction.DirectedGaussian.squared_lengths`).
        population_adaptation: ``scale="csa"`` only, None for none: the population grows where a
            generation's update is mostly noise and shrinks where updates agree, within a run
            (PSA-CMA-ES, Nishida and Akimoto 2018): ``"psa"``, PSA-CMA-ES's rate and step-size
            correction, or ``"path"``, the step-size path's rate and no correction
            (:mod:`edamcc.population_size`).
    """

    name: str
    description: str
    identify_weak: bool
    grouping: str
    block_scaling: str = "eeda"
    chain: bool = False
    adaptive: bool = False
    scale: str = "avs"
    two_point_from: int | None = None
    rank_one_path: str = "cma"
    active: bool = False
    line_free_path: bool | float = False
    population_adaptation: str | None = None
    learned_direction: bool = False
    direction_free_wi: bool = False
    active_metric: str = "diagonal"

    def __post_init__(self) -> None:
        """A variant is checked when it is made, so that a custom one fails before any run."""
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name: expected a non-empty string; got {self.name!r}")
        for field in ("identify_weak", "chain", "adaptive", "active", "learned_direction", "direction_free_wi"):
            if not isinstance(getattr(self, field), (bool, np.bool_)):  # a NumPy bool too, as checks.check_flag
                raise ValueError(f"{field}: expected True or False; got {getattr(self, field)!r}")
            object.__setattr__(self, field, bool(getattr(self, field)))  # stored as Python's bool
        if isinstance(self.line_free_path, np.bool_):
            object.__setattr__(self, "line_free_path", bool(self.line_free_path))
        if not (isinstance(self.line_free_path, bool) or (is_real(self.line_free_path) and 0.0 <= self.line_free_path <= 1.0)):
            raise ValueError(f"line_free_path: expected True, False or a weight in [0, 1]; got {self.line_free_path!r}")
        for field, allowed in (("grouping", GROUPINGS), ("block_scaling", BLOCK_SCALINGS), ("scale", SCALES), ("rank_one_path", RANK_ONE_PATHS)):
            if getattr(self, field) not in allowed:
                raise ValueError(f"{field}: expected one of {allowed}; got {getattr(self, field)!r}")
        if self.identify_weak and self.grouping == "none":
            raise ValueError("identify_weak: WI sorts the variables into weak ones and SM's groups, so it needs a grouping "
                             "other than 'none' (with grouping='none' every variable is univariate and WI never runs)")
        if self.grouping == "greedy" and not self.identify_weak:
            raise ValueError("grouping: 'greedy' (SM-GC, Fig. 11) clusters the strong set by WI's threshold theta, so it needs identify_weak=True")
        if self.chain and (self.grouping != "none" or self.identify_weak or self.adaptive):
            raise ValueError("chain: MIMIC's chain is a model of all variables and a paper baseline, so it needs "
                             "grouping='none', identify_weak=False and adaptive=False")
        csa = self.uses_step_size
        if self.two_point_from is not None:
            if not is_int(self.two_point_from) or self.two_point_from < 1:
                raise ValueError(f"two_point_from: expected a positive integer (a dimension) or None; got {self.two_point_from!r}")
            if not csa:
                raise ValueError("two_point_from: the two-point step size replaces the cumulative one, so it needs adaptive=True and scale='csa'")
        if self.rank_one_path != "cma" and not csa:
            raise ValueError("rank_one_path: the path feeds the remembered shape of scale='csa', so it needs adaptive=True and scale='csa'")
        if self.active and not csa:
            raise ValueError("active: the negative weights update the remembered shape of scale='csa', so it needs adaptive=True and scale='csa'")
        if self.line_free_path and not csa:
            raise ValueError("line_free_path: it changes the path of the step size of scale='csa', so it needs adaptive=True and scale='csa'")
        if self.learned_direction and not csa:
            raise ValueError("learned_direction: the direction is learned beside the step size's shape, so it needs adaptive=True and scale='csa'")
        if self.direction_free_wi and not (self.learned_direction and self.identify_weak):
            raise ValueError("direction_free_wi: WI's rows lose the learned direction's share, so it needs learned_direction=True and identify_weak=True")
        if self.active_metric not in ACTIVE_METRICS:
            raise ValueError(f"active_metric: expected one of {ACTIVE_METRICS}; got {self.active_metric!r}")
        if self.active_metric != "diagonal" and not self.active:
            raise ValueError("active_metric: it is the metric of the active term's row lengths, so it needs active=True")
        check_population_rule(self.population_adaptation)
        if self.population_adaptation is not None and not csa:
            raise ValueError("population_adaptation: it reads the step size's model of scale='csa', so it needs adaptive=True and scale='csa'")

    def __setstate__(self, state: dict) -> None:
        """Unpickling: a field added since the pickle was made (a checkpoint or a dumped optimizer
        of an earlier version) takes its default, so the variant runs as it did then."""
        for f in fields(self):
            if f.name not in state and f.default is not MISSING:
                state[f.name] = f.default
        self.__dict__.update(state)

    @property
    def uses_step_size(self) -> bool:
        """A self-adaptive variant with ``scale="csa"``: the step-size state of :mod:`edamcc.step_size`."""
        return self.adaptive and self.scale == "csa"

    @property
    def uses_capacity(self) -> bool:
        """SM splits S into groups of at most c (random, Fig. 4, or greedy, Fig. 11): the variants
        for which the setting ``c`` means something."""
        return self.grouping in ("random", "greedy")

    @property
    def unused_settings(self) -> tuple[str, ...]:
        """The :class:`~edamcc.Settings` this variant has no use for, which it refuses: WI's
        ``m_corr`` and ``theta`` without WI (SM-GC and the learned partition need WI too), SM's
        ``c`` without its groups."""
        return (() if self.identify_weak else ("m_corr", "theta")) + (() if self.uses_capacity else ("c",))


# The default's variant; its opt-in relatives below are it with their own settings.
_SEP_CC = Variant(
    "edamcc-sep-cc",
    "edamcc-csa (WI and SM as in Fig. 6) with sep-CMA-ES's rate for the mean's path of the shape's rank-one "
    "term, pycma's cc_sep (about 1 / sqrt(n) instead of 4 / n)",
    True,
    "random",
    "emna",
    adaptive=True,
    scale="csa",
    rank_one_path="separable",
    active=True,
)


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        Variant("edamcc", "EDA-MCC: WI + random SM, UMDAc on W, EEDA on each group (Fig. 6)", True, "random"),
        Variant(
            "edamcc-adaptive",
            "self-adaptive EDA-MCC: WI with theta='auto', SM, variance scaling and mean shift, IPOP restarts "
            "(the paper's future work, Section IX; AMaLGaM, Bosman et al. 2008/2013)",
            True,
            "random",
            adaptive=True,
        ),
        Variant(
            "edamcc-csa",
            "self-adaptive EDA-MCC with a cumulative step size: WI with theta='auto' and SM as in Fig. 6, rank-weighted "
            "fits with a remembered shape, step-size adaptation (Hansen and Ostermeier 2001), two samples per "
            "generation on the mean's last step (Hansen 2008), IPOP restarts",
            True,
            "random",
            "emna",
            adaptive=True,
            scale="csa",
            active=True,
        ),
        Variant(
            "edamcc-tpa",
            "edamcc-csa with two-point step-size adaptation from n = 300 on, as pycma: the step size follows the ranks "
            "of the two samples on the mean's last step (Hansen 2008, Hansen et al. 2014) instead of the length of the "
            "mean's path; below n = 300 the same as edamcc-csa",
            True,
            "random",
            "emna",
            adaptive=True,
            scale="csa",
            two_point_from=TWO_POINT_FROM,
            active=True,
        ),
        _SEP_CC,
        replace(
            _SEP_CC,
            name="edamcc-sep-cc-lf",
            description=(
                "edamcc-sep-cc (WI and SM as in Fig. 6) whose cumulative step-size path (Hansen and Ostermeier 2001) reads "
                "the mean's step without the two mean-shift samples' share, rescaled to a step of the model's own samples"
            ),
            line_free_path=True,
        ),
        replace(
            _SEP_CC,
            name="edamcc-vd",
            description=(
                "edamcc-sep-cc (WI and SM as in Fig. 6) whose model has one learned direction beyond its diagonal, "
                "C = sigma^2 D S (R + v v^T) S D with each variance kept, v learned by VD-CMA's natural gradient (Akimoto, Auger and "
                "Hansen 2014), and "
                "whose step-size path reads the mean's step with a quarter of the mean-shift samples' share"
            ),
            line_free_path=0.75,
            learned_direction=True,
        ),
        replace(
            _SEP_CC,
            name="edamcc-vd-wi",
            description=(
                "edamcc-sep-cc (WI and SM as in Fig. 6) with edamcc-vd's learned direction, C = sigma^2 D S (R + v v^T) S D, "
                "whose WI correlates the selected rows without the direction's share, whose diagonal has no active term "
                "(beside the direction it collapsed the diagonal on the rotated elliptic F9) and whose step-size path is "
                "edamcc-sep-cc's"
            ),
            active=False,
            learned_direction=True,
            direction_free_wi=True,
        ),
        Variant(
            "edamcc-emna",
            "EDA-MCC with EMNA_global groups instead of EEDA (Table VIII)",
            True,
            "random",
            "emna",
        ),
        Variant("edamcc-gc", "EDA-MCC-GC: WI + greedy-clustering SM (Fig. 11, Table XII)", True, "greedy"),
        Variant("wi-only", "'WI only': WI, all of S in one EEDA model (Table XIII)", True, "single"),
        Variant("sm-only", "'SM only': no WI, random SM of all variables (Table XIII)", False, "random"),
        Variant("umdac", "UMDA_c^G: independent Gaussians, ML estimates (Table IV)", False, "none"),
        Variant("emna-global", "EMNA_global: one ML multivariate Gaussian (Table IV)", False, "single", "emna"),
        Variant("eeda", "EEDA: one multivariate Gaussian, smallest eigenvalue := largest (Wagner et al. 2004)", False, "single"),
        Variant("mimic", "MIMIC_c^G: chain-structured Gaussian (Larranaga et al. 2000; Table IX)", False, "none", chain=True),
    )
}


def get_variant(name: str | Variant) -> Variant:
    """Look a variant up by name (case-insensitive, ``_`` and ``-`` alike)."""
    if isinstance(name, Variant):
        return name
    if not isinstance(name, str):
        raise TypeError(f"variant: expected a name such as 'edamcc'; got {name!r}")
    key = name.strip().lower().replace("_", "-")
    if key not in VARIANTS:
        raise ValueError(f"variant: unknown name {name!r}; expected one of {sorted(VARIANTS)}")
    return VARIANTS[key]
