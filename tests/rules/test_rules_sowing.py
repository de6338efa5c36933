"""The shared sowing helpers: precomputed laps, sowing with and without events, never-ending sowings."""

import random

from rules import sowing
from rules.sowing import MAX_LAPS, WATCH_FROM, never_ends, sow, track_path

LABELS = tuple("ABCDEFSabcdefN")


def step(pit: int) -> int:
    return (pit + 1) % 14


def test_track_path_leaves_out_off_track_pits_and_a_skipped_start():
    path = track_path(step, 12, off_track=(13,))  # from f: N off the track, f itself last
    assert path.drops == (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
    assert path.skipped[0] == (13,) and path.wrap == (13,)
    skipping = track_path(step, 2, off_track=(13,), skip_start=True)
    assert 2 not in skipping.drops and len(skipping.drops) == 12
    assert skipping.wrap == (2,)


def test_sowing_by_arithmetic_equals_sowing_seed_by_seed():
    rnd = random.Random(3)
    for _ in range(300):
        start = rnd.randrange(13)
        pits = [rnd.randrange(5) for _ in range(14)]
        pits[start] = rnd.randrange(1, 60)
        path = track_path(step, start, off_track=(13,), skip_start=rnd.random() < 0.5)
        quick, logged, events = list(pits), list(pits), []
        last_quick = sow(quick, start, path, None, LABELS)
        last_logged = sow(logged, start, path, events, LABELS)
        assert quick == logged and last_quick == last_logged
        drops = [e for e in events if e["type"] == "drop"]
        assert len(drops) == pits[start] and drops[-1]["pit"] == LABELS[last_quick]
        assert all(e["pit"] != "N" for e in drops)
        assert (events[0]["type"], events[0]["seeds"]) == ("lift", pits[start])


def test_skip_events_name_the_pits_passed_over():
    pits = [0] * 14
    pits[12] = 15
    events = []
    sow(pits, 12, track_path(step, 12, off_track=(13,), skip_start=True), events, LABELS)
    assert [e["pit"] for e in events if e["type"] == "skip"] == ["N", "f", "N"]


def test_a_relay_is_logged_as_a_lap():
    pits = [3] + [0] * 13
    events = []
    sow(pits, 0, track_path(step, 0), events, LABELS, relay=True)
    assert events[0] == {"type": "lap", "pit": "A", "seeds": 3}


def test_never_ends_on_a_repeated_lift_or_past_the_lap_cap():
    seen: set = set()
    assert not never_ends(seen, WATCH_FROM, [1, 2, 3], 1, 2)
    assert not never_ends(seen, WATCH_FROM + 1, [1, 2, 3], 2, 3)
    assert never_ends(seen, WATCH_FROM + 2, [1, 2, 3], 1, 2)  # the same lift again
    assert not never_ends(set(), MAX_LAPS, [9], 0, 9)
    assert never_ends(set(), MAX_LAPS + 1, [9], 0, 9)  # 10,000 laps without an end


def test_memo_forgets_everything_when_full():
    memo = sowing.Memo(limit=2)
    memo.remember("a", 1)
    memo.remember("b", 2)
    assert memo.remember("c", 3) == 3 and dict(memo) == {"c": 3}
