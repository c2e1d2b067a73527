"""Property-based test of tell: arbitrary orders, subsets and non-finite values (hypothesis)."""

import pickle

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from edamcc import EDAMCCStrategy

values = st.one_of(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    st.just(np.nan),
    st.just(np.inf),
    st.just(-np.inf),
)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**16), variant=st.sampled_from(["edamcc", "umdac", "eeda", "edamcc-gc", "mimic"]))
def test_any_tell_schedule_gives_the_same_run_as_one_tell_per_generation(data, seed, variant):
    n, M = 4, 12
    ref = EDAMCCStrategy(bounds=[(-3, 3)] * n, population_size=M, seed=seed, variant=variant, c=2)
    es = EDAMCCStrategy(bounds=[(-3, 3)] * n, population_size=M, seed=seed, variant=variant, c=2)
    for _ in range(4):
        x_ref = ref.ask()
        f = np.array(data.draw(st.lists(values, min_size=len(x_ref), max_size=len(x_ref))))
        ref.tell(x_ref, f)

        # the same generation, handed out in random chunks and told in random subsets
        asked = []
        while es.n_outstanding:
            asked.append(es.ask(data.draw(st.integers(1, M))))
        x = np.concatenate(asked)
        np.testing.assert_array_equal(x, x_ref)
        order = data.draw(st.permutations(range(len(x))))
        cuts = sorted(data.draw(st.lists(st.integers(0, len(x)), max_size=4)))
        for part in np.split(np.asarray(order, dtype=int), cuts):
            if data.draw(st.booleans()):
                es = pickle.loads(pickle.dumps(es))  # checkpoint anywhere
            es.tell(x[part], f[part])
        assert es.generation == ref.generation
        assert es.evaluations == ref.evaluations
        assert es.best_f == ref.best_f
        mean = getattr(es.model, "mean", None)
        if mean is not None:
            assert np.all(np.isfinite(mean))  # non-finite values never reach the model
    np.testing.assert_array_equal(es.ask(), ref.ask())
