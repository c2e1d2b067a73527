"""Atomic checkpoints of a ``minimize`` run, and resuming from them.

The file is a pickle of the strategy (its random generator included), the failures so far
and a fingerprint of the problem. It is written to a temporary file in the same directory,
flushed, fsynced and moved over the old one with :func:`os.replace`, so a crash leaves
either the old checkpoint or the new one, never half of one. The final checkpoint is kept
when the run ends; delete it to start afresh.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import secrets
import stat
import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .evaluation import Failure
from .settings import check_seconds
from .strategy import EDAMCCStrategy

FORMAT = 7  # 2: the fingerprint compares resolved settings and generator states; 3: a run's state is a Run; 4: the objective;
# 5: rows keep their numbers over the whole run (ties of the best value); 6: a Generator seed's state as passed;
# 7: the settings a variant does not use (theta, m_corr, c) are None


def fingerprint(strategy: EDAMCCStrategy, seed_key: Any, fun: Any = None) -> dict[str, Any]:
    """What a checkpoint must match to be resumed: dimension, bounds, seed, options and, for an
    objective that names its instance (``fun.instance_key``, as the F1–F13 of
    :mod:`edamcc.benchmark_functions` do), that instance. Another callable cannot be compared:
    resuming with the same one is the caller's part.

    Equal arguments give equal fingerprints: the algorithm's parameters are compared as the
    strategy's :class:`~edamcc.Settings` resolved them (a default passed explicitly, or a NumPy
    integer for an int, is the same run), and so are the box and the structure record (on or
    off, every how many generations, pair counts or not): ``record_every=1`` named, or scalar
    bounds with ``dimension=``, is the same run as without; every option of the strategy is one
    of these (another keyword is refused when the strategy is built). ``seed_key`` is
    :func:`seed_key` of the seed, read before the strategy is built: a ``Generator`` seed is
    compared by its state as the caller passed it, so a generator made the same way again
    (``np.random.default_rng(1)``) resumes the run whatever the strategy drew from it (the first
    generation's size can follow the budget). The budget and the target are not part of it: a
    budget-limited run may be resumed with a larger budget.
    """
    low, high = strategy.bounds
    settings = strategy.settings
    record = strategy.structure
    return {
        "dimension": strategy.dimension,
        "lower": low.tolist(),
        "upper": high.tolist(),
        "seed": seed_key,
        "settings": {name: repr(getattr(settings, name)) for name in settings.names()},
        "record": None if record is None else {"every": record.every, "pairs": record.pair_counts is not None},
        "objective": _objective_key(fun),
    }


def _objective_key(fun: Any) -> str | None:
    key = getattr(fun, "instance_key", None)
    return key if isinstance(key, str) else None


def seed_key(seed: Any) -> Any:
    """The seed as a checkpoint compares it: None, the repr of a ``SeedSequence`` (its entropy
    and spawn key), the state of a ``Generator``, or the integer."""
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return None if seed is None else repr(seed)  # its entropy and spawn key
    if isinstance(seed, np.random.Generator):
        return f"Generator {seed.bit_generator.state!r}"
    return int(seed)


def check_path(path: Any, name: str = "checkpoint", *, in_place: bool = False, optional: bool = False) -> None:
    """Raise before a run if no file can be written at ``path`` (nothing is created).

    :func:`save` writes a temporary file in the checkpoint's directory and moves it over
    ``path``, so that directory must exist and be writable; ``path`` must not be a directory.
    ``in_place=True`` is for a file written where it stands (the CLI's ``--json`` and
    ``--plot``): an existing file must be writable itself, a new one needs a writable directory.
    ``name`` is the argument named in the messages (``"--checkpoint"`` for the CLI);
    ``optional``: the argument may also be None (then the caller does not call this).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name}: expected a file path{' or None' if optional else ''}; got {path!r}")
    path = os.fspath(path)
    if isinstance(path, bytes):  # os.PathLike may give bytes; the temporary name beside it is a str
        raise TypeError(f"{name}: expected a str path; got bytes {path!r}")
    if not path:
        raise ValueError(f"{name}: expected a file path; got an empty one")
    if os.path.isdir(path):
        raise ValueError(f"{name}: {path!r} is a directory; expected a file path")
    if os.path.basename(path) in ("", os.curdir, os.pardir):  # "r.json/", "r.json/.", "out/.."
        raise ValueError(f"{name}: {path!r} names a directory, not a file; expected a file path")
    # the directory as the system will resolve it, ".." after the names before it (not abspath's text)
    directory = os.path.dirname(path) or os.curdir
    if not os.path.isdir(directory):
        raise ValueError(f"{name}: directory {directory!r} does not exist")
    if in_place and os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise ValueError(f"{name}: {path!r} is not writable")
    elif not os.access(directory, os.W_OK | os.X_OK):
        how = "" if in_place else " (a checkpoint is written there, then moved into place)"
        raise ValueError(f"{name}: directory {directory!r} is not writable{how}")


def save(path: str | os.PathLike[str], strategy: EDAMCCStrategy, failures: list[Failure], key: dict[str, Any]) -> None:
    """Write the checkpoint atomically (temporary file, fsync, ``os.replace``).

    The file keeps the permissions of the one it replaces; a new one gets those of any file
    the process creates (0o666 less the umask), not ``mkstemp``'s owner-only 0o600, so that
    another account of a cluster group reads it as it would read the run's other output.
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    payload = {"format": FORMAT, "key": key, "strategy": strategy, "failures": list(failures)}
    fd, tmp = _create_temporary(path, directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(payload, fh, protocol=pickle.HIGHEST_PROTOCOL)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:  # KeyboardInterrupt too; once os.replace has run, the temporary file is the checkpoint
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _create_temporary(path: str, directory: str) -> tuple[int, str]:
    """A new file beside ``path`` (``NAME.<random>.tmp``), open for writing, with the mode of
    ``path`` if it exists, else 0o666 under the umask (``os.open`` applies it)."""
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = None
    while True:
        tmp = os.path.join(directory, f"{os.path.basename(path)}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        except FileExistsError:
            continue
        if mode is not None:
            try:
                os.chmod(tmp, mode)
            except BaseException:
                os.close(fd)
                os.unlink(tmp)
                raise
        return fd, tmp


def read(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The saved payload (``format``, ``key``, ``strategy``, ``failures``), unchecked against a
    problem; ``ValueError`` naming the file if it is not an edamcc checkpoint. A checkpoint is a
    pickle: read only files you or your runs wrote."""
    try:
        with open(path, "rb") as fh:
            payload = pickle.load(fh)
    except OSError:
        raise
    except Exception as exc:  # a damaged pickle can raise almost anything (KeyError, OverflowError, MemoryError, ...)
        raise ValueError(f"checkpoint {os.fspath(path)!r}: not an edamcc checkpoint ({type(exc).__name__}: {exc})") from exc
    if (not isinstance(payload, dict) or not {"format", "key", "strategy", "failures"} <= set(payload)
            or not isinstance(payload["key"], dict) or not isinstance(payload["strategy"], EDAMCCStrategy)):
        raise ValueError(f"checkpoint {os.fspath(path)!r}: not an edamcc checkpoint")
    return payload


def load(path: str | os.PathLike[str], key: dict[str, Any]) -> tuple[EDAMCCStrategy, list[Failure]]:
    """The strategy and failures saved at ``path``; ``ValueError`` if it is another problem's."""
    payload = read(path)
    if payload["format"] != FORMAT:
        raise ValueError(f"checkpoint {os.fspath(path)!r} was written by another version of edamcc (format {payload['format']}, "
                         f"this version reads format {FORMAT}); remove it or pass another checkpoint path")
    saved = payload["key"]
    if saved != key:
        diff = sorted(k for k in set(saved) | set(key) if saved.get(k) != key.get(k))
        raise ValueError(
            f"checkpoint {os.fspath(path)!r} belongs to another problem (differs in: {', '.join(diff)}); "
            "remove it or pass another checkpoint path"
        )
    return payload["strategy"], payload["failures"]


def open_run(path: str | os.PathLike[str], bounds: Any, seed: Any, budget: int | None, target: float | None,
             options: dict[str, Any], fun: Any = None) -> tuple[EDAMCCStrategy, list[Failure], dict[str, Any]]:
    """The strategy of a run of ``fun`` checkpointed at ``path``, its failures and its fingerprint:
    the saved run if the file exists (``ValueError`` if it is another problem's), else a new one."""
    seeded = seed_key(seed)  # before the strategy draws from a Generator seed
    strategy = EDAMCCStrategy(bounds=bounds, seed=seed, budget=budget, target=target, **options)
    key = fingerprint(strategy, seeded, fun)
    failures: list[Failure] = []
    if os.path.exists(path):
        strategy, failures = load(path, key)
        strategy.set_limits(budget=budget, target=target)
    return strategy, failures, key


def rerun_rows(strategy: EDAMCCStrategy) -> NDArray[np.float64]:
    """The rows in flight when the checkpoint was written that a resumed run evaluates again:
    none once the run has stopped (budget or target reached), never more than the budget leaves."""
    rows = strategy.pending()
    if strategy.stop_reason is not None:
        return rows[:0]
    left = None if strategy.budget is None else max(0, strategy.budget - strategy.evaluations)
    return rows if left is None else rows[:left]


class Checkpointer:
    """Saves every generation (``every=None``) or at most every ``every`` seconds."""

    def __init__(self, path: str | os.PathLike[str], every: float | None, key: dict[str, Any]) -> None:
        every = check_seconds(every, "checkpoint_every")
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
