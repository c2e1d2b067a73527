"""edamcc: EDA-MCC, the Estimation of Distribution Algorithm with Model Complexity Control.

Dong, Chen, Tino and Yao, "Scaling Up Estimation of Distribution Algorithms for Continuous
Optimization", IEEE Trans. Evol. Comput. 17(6), 2013 (doi:10.1109/TEVC.2013.2247404). An
ask/tell strategy (:class:`EDAMCCStrategy`), a SciPy-style :func:`minimize`, the paper's
benchmark functions F1-F13 (:mod:`edamcc.benchmark_functions`), the settings every entry point
builds from (:class:`Settings`), and the structure record that tells which variables depend on
each other.
"""

from .bounds import parse_bounds, repair
from .evaluation import EvaluationError
from .generation import ClosedGeneration, block_of, block_size, block_start, close_generation, start_adaptation
from .models import UniformModel
from .optimize import minimize
from .settings import DEFAULT_VARIANT, PAPER_VARIANT, Resolved, Settings, check_budget, check_seed, default_population_size
from .strategy import EDAMCCStrategy
from .structure_record import PAIR_COUNTS_AUTO_LIMIT, StructureRecord, aggregate
from .variants import VARIANTS, Variant, get_variant

__all__ = [
    "DEFAULT_VARIANT",
    "PAIR_COUNTS_AUTO_LIMIT",
    "PAPER_VARIANT",
    "ClosedGeneration",
    "EDAMCCStrategy",
    "EvaluationError",
    "Resolved",
    "Settings",
    "StructureRecord",
    "UniformModel",
    "VARIANTS",
    "Variant",
    "aggregate",
    "block_of",
    "block_size",
    "block_start",
    "check_budget",
    "check_seed",
    "close_generation",
    "default_population_size",
    "get_variant",
    "minimize",
    "parse_bounds",
    "repair",
    "start_adaptation",
]
__version__ = "0.8.0"
