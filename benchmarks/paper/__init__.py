"""The paper reproduction, one concern a module.

``registry``: which runs make which table; ``execution``: running them, resumably;
``statistics``: best population size, Mann-Whitney markers, reproduction checks;
``render``: the Markdown report and figures; ``structure``: the WI figures;
``published``: the paper's own numbers. ``benchmarks/paper_runs.py`` is the command line.
"""
