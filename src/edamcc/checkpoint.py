"""Atomic checkpoints of a ``minimize`` run, and resuming from them.

The file is a pickle of the strategy (its random generator included), the failures so far
and a fingerprint of the problem. It is written to a temporary file in the same directory,
flushed, fsynced and moved over the old one with :func:`os.replace`, so a crash leaves
either the old checkpoint or the new one, never half of one. The final checkpoint is kept
when the run ends; delete it to start afresh.
"""

from __future__ import annotations

import os
import pickle
import tempfile
import time
from typing import Any

import numpy as np

from .evaluation import Failure
from .strategy import EDAMCCStrategy

FORMAT = 1


def fingerprint(strategy: EDAMCCStrategy, seed: Any, options: dict[str, Any]) -> dict[str, Any]:
    """What a checkpoint must match to be resumed: dimension, bounds, seed and options.

    The budget and the target are not part of it: a budget-limited run may be resumed with a
    larger budget.
    """
    low, high = strategy.bounds
    seed_key = int(seed) if isinstance(seed, (int, np.integer)) else (None if seed is None else repr(seed))
    return {
        "dimension": strategy.dimension,
        "lower": low.tolist(),
        "upper": high.tolist(),
        "seed": seed_key,
        "options": {k: repr(v) for k, v in sorted(options.items())},
    }


def check_path(path: Any, name: str = "checkpoint", *, in_place: bool = False) -> None:
    """Raise before a run if no file can be written at ``path`` (nothing is created).

    :func:`save` writes a temporary file in the checkpoint's directory and moves it over
    ``path``, so that directory must exist and be writable; ``path`` must not be a directory.
    ``in_place=True`` is for a file written where it stands (the CLI's ``--json`` and
    ``--plot``): an existing file must be writable itself, a new one needs a writable directory.
    ``name`` is the argument named in the messages (``"--checkpoint"`` for the CLI).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name}: expected a file path or None; got {path!r}")
    path = os.fspath(path)
    if os.path.isdir(path):
        raise ValueError(f"{name}: {path!r} is a directory; expected a file path")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ValueError(f"{name}: directory {directory!r} does not exist")
    if in_place and os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise ValueError(f"{name}: {path!r} is not writable")
    elif not os.access(directory, os.W_OK | os.X_OK):
        how = "" if in_place else " (a checkpoint is written there, then moved into place)"
        raise ValueError(f"{name}: directory {directory!r} is not writable{how}")


def save(path: str | os.PathLike[str], strategy: EDAMCCStrategy, failures: list[Failure], key: dict[str, Any]) -> None:
    """Write the checkpoint atomically (temporary file, fsync, ``os.replace``)."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    payload = {"format": FORMAT, "key": key, "strategy": strategy, "failures": list(failures)}
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(payload, fh, protocol=pickle.HIGHEST_PROTOCOL)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def load(path: str | os.PathLike[str], key: dict[str, Any]) -> tuple[EDAMCCStrategy, list[Failure]]:
    """The strategy and failures saved at ``path``; ``ValueError`` if it is another problem's."""
    with open(path, "rb") as fh:
        payload = pickle.load(fh)
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ValueError(f"checkpoint {os.fspath(path)!r}: not an edamcc checkpoint (format {FORMAT})")
    saved = payload["key"]
    if saved != key:
        diff = sorted(k for k in set(saved) | set(key) if saved.get(k) != key.get(k))
        raise ValueError(
            f"checkpoint {os.fspath(path)!r} belongs to another problem (differs in: {', '.join(diff)}); "
            "remove it or pass another checkpoint path"
        )
    return payload["strategy"], payload["failures"]


class Checkpointer:
    """Saves every generation (``every=None``) or at most every ``every`` seconds."""

    def __init__(self, path: str | os.PathLike[str], every: float | None, key: dict[str, Any]) -> None:
        if every is not None and (isinstance(every, bool) or not isinstance(every, (int, float)) or not every > 0):
            raise ValueError(f"checkpoint_every: expected positive seconds or None; got {every!r}")
        self.path = path
        self.every = every
        self.key = key
        self._last = time.monotonic()

    def maybe_save(self, strategy: EDAMCCStrategy, failures: list[Failure], generation_closed: bool) -> None:
        now = time.monotonic()
        due = generation_closed if self.every is None else now - self._last >= self.every
        if due:
            save(self.path, strategy, failures, self.key)
            self._last = now
