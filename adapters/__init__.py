"""Adapters that plug EDA-MCC into other libraries; installed as ``edamcc.adapters``.

* :mod:`edamcc.adapters.nevergrad_optimizer`: ``ng.optimizers.registry["EDAMCC"]``.
* :mod:`edamcc.adapters.optuna_sampler`: ``EDAMCCSampler`` for Optuna studies.
  :mod:`edamcc.adapters.optuna_study` holds what it reads of a study.

Each imports its library only when imported itself, so the core needs neither.
"""
