"""edamcc: EDA-MCC, the Estimation of Distribution Algorithm with Model Complexity Control.

Dong, Chen, Tino and Yao, "Scaling Up Estimation of Distribution Algorithms for Continuous
Optimization". An ask/tell strategy (:class:`EDAMCCStrategy`), a SciPy-style
:func:`minimize`, the paper's benchmark functions F1-F13 (:mod:`edamcc.functions`), and the
structure record that tells which variables depend on each other.
"""

from .optimize import minimize
from .record import StructureRecord, aggregate
from .strategy import EDAMCCStrategy
from .variants import VARIANTS, Variant, get_variant

__all__ = [
    "EDAMCCStrategy",
    "StructureRecord",
    "VARIANTS",
    "Variant",
    "aggregate",
    "get_variant",
    "minimize",
]
__version__ = "0.1.0"
