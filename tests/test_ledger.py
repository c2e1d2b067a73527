"""The asked/told bookkeeping (edamcc.ledger): numbers, states, matching rows, closing blocks."""

import pickle

import numpy as np
import pytest

from edamcc.ledger import Ledger


def filled(M=4, n=2):
    ledger = Ledger(n, M)
    ledger.fill(np.arange(M * n, dtype=float).reshape(M, n))
    return ledger


def test_hand_out_in_order_and_tell_any_order():
    ledger = filled()
    a = ledger.hand_out(3)
    assert ledger.n_new == 1 and ledger.n_out == 3
    ledger.record(ledger.check_tell(a[::-1]), np.array([3.0, 2.0, 1.0]))
    assert not ledger.open_complete()
    b = ledger.hand_out(5)
    assert b.shape == (1, 2)
    ledger.record(ledger.check_tell(b), np.array([0.0]))
    assert ledger.open_complete()
    rows, values = ledger.pop_open()
    assert values.tolist() == [1.0, 2.0, 3.0, 0.0] and ledger.generation == 1 and ledger.free_slots() == 3


def test_handed_out_rows_are_a_fresh_array():
    ledger = filled()
    a = ledger.hand_out(3)
    kept = a.copy()
    a[:] = -1.0  # the caller's array: changing it changes nothing in the ledger
    np.testing.assert_array_equal(ledger.pending(), kept)
    ledger.record(ledger.check_tell(kept), np.zeros(3))
    assert ledger.n_out == 0


def test_extras_take_the_next_numbers_and_reduce_the_next_fill():
    ledger = filled()
    ledger.hand_out(4)
    ledger.add_extra(np.full((2, 2), 100.0) + np.arange(2)[:, None])
    ledger.record(ledger.check_tell(np.full((1, 2), 101.0)), np.array([7.0]))
    ledger.record(ledger.check_tell(ledger.pending()[:4]), np.zeros(4))
    ledger.pop_open()
    assert ledger.free_slots() == 1  # M - 1 = 3 rows, two of them extras
    assert ledger.n_out == 1  # extra 100 still in flight


def test_a_resize_numbers_the_rows_beyond_the_closed_generation_as_the_first_of_a_block_of_the_new_size():
    ledger = filled()
    ledger.hand_out(4)
    ledger.add_extra(np.full((2, 2), 100.0) + np.arange(2)[:, None])
    ledger.record(ledger.check_tell(np.full((1, 2), 101.0)), np.array([7.0]))  # an extra told before its block opens
    ledger.record(ledger.check_tell(ledger.pending()[:4]), np.zeros(4))
    ledger.pop_open()
    ledger.resize(6)
    assert ledger.generation == 0 and ledger.free_slots() == 4  # 6 rows, two of them the extras
    assert ledger.next_position() == 2 and ledger.n_out == 1  # extra 100 still in flight, extra 101 told
    ledger.fill(np.full((4, 2), 200.0) + np.arange(4)[:, None])
    ledger.record(ledger.check_tell(ledger.hand_out(4)), np.arange(4.0))
    assert not ledger.open_complete()  # extra 100 holds the new block open
    ledger.record(ledger.check_tell(np.full((1, 2), 100.0)), np.array([5.0]))
    rows, values = ledger.pop_open()
    assert rows[:2, 0].tolist() == [100.0, 101.0] and values.tolist() == [5.0, 7.0, 0.0, 1.0, 2.0, 3.0]
    assert ledger.free_slots() == 5  # then blocks of M - 1 = 5


def test_inject_replaces_rows_not_handed_out_first():
    ledger = filled()
    ledger.hand_out(1)
    ledger.inject(np.full((4, 2), -1.0) - np.arange(4)[:, None], np.arange(4.0))
    assert ledger.n_new == 0 and ledger.n_out == 1
    assert not ledger.open_complete()  # row 0 is in flight
    ledger.record(ledger.check_tell(np.array([[0.0, 1.0]])), np.array([9.0]))
    assert ledger.open_complete()
    rows, values = ledger.pop_open()
    assert values.tolist() == [9.0, 0.0, 1.0, 2.0]
    assert ledger.free_slots() == 2  # the fourth injected row is generation 1's first


@pytest.mark.parametrize(
    "rows, message",
    [
        (np.array([[99.0, 99.0]]), "never asked"),
        (np.array([[6.0, 7.0]]), "not handed out"),
        (np.array([[0.0, 1.0], [0.0, 1.0]]), "already told earlier in this call"),
    ],
)
def test_bad_tells_raise_and_change_nothing(rows, message):
    ledger = filled()
    ledger.hand_out(2)
    before = pickle.dumps(ledger)
    with pytest.raises(ValueError, match=message):
        ledger.check_tell(rows)
    assert pickle.dumps(ledger) == before


def test_identical_rows_are_matched_in_flight_first():
    ledger = Ledger(2, 3)
    ledger.fill(np.ones((3, 2)))
    ledger.hand_out(3)
    ledger.record(ledger.check_tell(np.ones((2, 2))), np.zeros(2))
    with pytest.raises(ValueError, match="already told"):
        ledger.check_tell(np.ones((2, 2)))
    ledger.record(ledger.check_tell(np.ones((1, 2))), np.zeros(1))
    assert ledger.open_complete()


def test_pickle_drops_the_lookup_index_and_rebuilds_it():
    ledger = filled()
    ledger.hand_out(4)
    ledger.locate(np.zeros((1, 2)))
    copy = pickle.loads(pickle.dumps(ledger))
    assert copy.check_tell(np.array([[2.0, 3.0]])).tolist() == [1]


def test_rows_told_in_order_are_found_as_the_sorted_search_finds_them(monkeypatch):
    """The in-order tell's shortcut gives the positions the general search gives, duplicates
    (in flight and not) included, and is not taken for rows out of order."""
    rows = np.array([[1.0, 1.0], [2.0, 2.0], [1.0, 1.0], [3.0, 3.0], [1.0, 1.0], [1.0, 1.0]])
    ledger = Ledger(2, 6)
    ledger.fill(rows)
    out = ledger.hand_out(5)  # the sixth [1, 1] stays not handed out
    for told in (out, out[:3], out[:1], out[[1, 0]], out[::-1]):
        fast = ledger.locate(told)
        with monkeypatch.context() as patch:
            patch.setattr(Ledger, "_in_flight_prefix", lambda self, rows: None)
            slow = ledger.locate(told)
        np.testing.assert_array_equal(fast, slow)
    assert ledger.locate(out).tolist() == [0, 1, 2, 3, 4]
    assert ledger._in_flight_prefix(out[[1, 0]]) is None


def test_tell_stores_rows_in_flight_and_forgets_orphans_of_a_restart():
    ledger = filled()
    a = ledger.hand_out(4)
    assert not ledger.split_orphans(a).any()  # nothing retired: no row can be an orphan
    ledger.tell(a[:1], np.array([5.0]))
    ledger.restart(6)  # rows 1-3 were in flight: now orphans
    ledger.fill(np.full((6, 2), -7.0) - np.arange(6)[:, None])
    b = ledger.hand_out(2)
    ledger.tell(np.concatenate([a[2:3], b[1:]]), np.array([1.0, 2.0]))  # an orphan and a row of the new run
    assert ledger.split_orphans(a[1:]).tolist() == [True, False, True]  # row 2's orphan was told and forgotten
    assert ledger.n_out == 3  # b's first row and the orphans of rows 1 and 3
    with pytest.raises(ValueError, match="row 1 was never asked"):
        ledger.tell(np.concatenate([b[:1], a[2:3]]), np.array([0.0, 0.0]))  # row 2's orphan is gone
    assert ledger.n_out == 3  # the bad call stored nothing
    # an error names the row of the caller's call, also behind an orphan that call tells
    with pytest.raises(ValueError, match="row 2 was never asked"):
        ledger.tell(np.concatenate([a[1:2], b[:1], b[:1] + 1.0]), np.zeros(3))
    with pytest.raises(ValueError, match="row 2 was already told earlier in this call"):
        ledger.tell(np.concatenate([a[1:2], b[:1], b[:1]]), np.zeros(3))


def test_numbers_over_the_whole_run_go_on_across_closed_generations_injections_and_restarts():
    ledger = filled()  # rows 0-3
    a = ledger.hand_out(4)
    assert ledger.tell(a[[2, 0]], np.array([1.0, 2.0])).tolist() == [2, 0]
    assert ledger.tell(a[[3, 1]], np.array([1.0, 2.0])).tolist() == [3, 1]
    ledger.pop_open()
    ledger.fill(np.full((3, 2), 50.0) + np.arange(3)[:, None])  # rows 4-6
    b = ledger.hand_out(1)
    assert ledger.inject(np.full((3, 2), -9.0) - np.arange(3)[:, None], np.zeros(3)).tolist() == [5, 6, 7]
    ledger.restart(4)  # row 4, in flight, becomes an orphan; the new run's rows start at 8
    ledger.fill(np.full((4, 2), 80.0) + np.arange(4)[:, None])
    c = ledger.hand_out(2)
    assert ledger.tell(np.concatenate([c[1:], b]), np.array([0.0, 0.0])).tolist() == [9, 4]  # the orphan keeps its number


@pytest.mark.parametrize("x", [["0.5", "1", "-1"], [True, False, True], np.array([0.5, 1.0, -1.0], dtype=object)])
def test_rows_that_are_not_numbers_are_refused_as_values_are(x):
    from edamcc import EDAMCCStrategy

    es = EDAMCCStrategy(bounds=[(-2.0, 2.0)] * 3, population_size=10, seed=1)
    with pytest.raises(ValueError, match="^x: expected the rows ask\\(\\) returned, as float64 numbers"):
        es.inject(x, 1.0)
    assert es.evaluations == 0
    es.inject([0.5, 1, -1], 1.0)  # integers are numbers
    assert es.evaluations == 1
