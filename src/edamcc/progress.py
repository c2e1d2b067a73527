"""``disp=True`` progress lines: evaluations done, in flight, failed, best value, ETA."""

from __future__ import annotations

import time

from .strategy import EDAMCCStrategy


class Progress:
    """Prints a line every ``every_gens`` generations (or ``every_s`` seconds), and the final
    line, tagged "end" and with the reason the run stopped, exactly once (:meth:`final` is
    idempotent)."""

    def __init__(self, enabled: bool, every_gens: int = 10, every_s: float = 2.0) -> None:
        self.enabled = enabled
        self.every_gens = every_gens
        self.every_s = every_s
        self._t0 = time.monotonic()
        self._last_t = self._t0
        self._last_gen = 0
        self._final_done = False

    def _line(self, es: EDAMCCStrategy, n_failed: int, tag: str) -> str:
        elapsed = time.monotonic() - self._t0
        done = es.evaluations
        eta = "-"
        if es.budget is not None and done > 0:
            eta = f"{elapsed * max(0, es.budget - done) / done:.0f}s"
        return (f"{tag} gen {es.generation:6d}  nfev {done:9d}  in flight {es.n_in_flight:4d}  failed {n_failed:5d}  "
                f"best {es.best_f: .6e}  elapsed {elapsed:.0f}s  eta {eta}")

    def update(self, es: EDAMCCStrategy, n_failed: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if es.generation - self._last_gen >= self.every_gens or now - self._last_t >= self.every_s:
            self._last_gen = es.generation
            self._last_t = now
            print(self._line(es, n_failed, "  "), flush=True)

    def final(self, es: EDAMCCStrategy, n_failed: int, message: str) -> None:
        if not self.enabled or self._final_done:
            return
        self._final_done = True
        print(self._line(es, n_failed, "end") + f"  ({message})", flush=True)
