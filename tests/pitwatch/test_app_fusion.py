"""Fusion of camera and sensor Readings, and the stable-board gate."""

from __future__ import annotations

import pytest

from pitwatch.fusion import Fusion, StableGate, pool
from rules import PitReading, Reading, pit_reading

LABELS = ("A", "B")


def reading(source: str, a, b, **notes) -> Reading:
    return Reading({"A": a, "B": b}, source=source, notes=notes)


def test_agreeing_sources_get_surer():
    p = pit_reading([0.1, 0.8, 0.1])
    fused = pool([(1.0, p), (1.0, p)])
    assert fused.most_likely == 1 and fused.counts[1] > 0.8


def test_the_surer_source_wins_a_disagreement_and_weights_matter():
    camera = pit_reading([0.05, 0.6, 0.35])   # unsure between 1 and 2
    sensors = pit_reading([0.01, 0.04, 0.95])  # sure it is 2
    assert pool([(1.0, camera), (1.0, sensors)]).most_likely == 2
    assert pool([(1.0, camera), (0.05, sensors)]).most_likely == 1


def test_one_source_cannot_veto_a_count():
    fused = pool([(1.0, PitReading.exact(3)), (1.0, PitReading.exact(4))])
    assert fused.counts[3] > 0 and fused.counts[4] > 0


def test_white_chips_are_pooled_too():
    a = pit_reading([0, 0, 1], [0.3, 0.7])
    b = pit_reading([0, 0, 1], [0.2, 0.8])
    assert pool([(1.0, a), (1.0, b)]).most_likely_white == 1


def test_unseen_pit_in_one_source_is_taken_from_the_other():
    f = Fusion(LABELS, {"camera": 1.0, "sensors": 1.0})
    f.update("camera", reading("camera", None, PitReading.exact(2)), now=0.0)
    f.update("sensors", reading("sensors", PitReading.exact(5), PitReading.exact(2)), now=0.0)
    fused = f.fused(0.1)
    assert fused.most_likely_counts() == {"A": 5, "B": 2}
    assert fused.notes["sources"] == ["camera", "sensors"] and fused.notes["dropped"] == {}


def test_a_failing_source_is_dropped_and_reported():
    f = Fusion(LABELS, {"camera": 1.0, "sensors": 1.0}, stale_after=1.0)
    f.update("camera", reading("camera", PitReading.exact(1), PitReading.exact(1)), now=0.0)
    f.update("sensors", reading("sensors", PitReading.exact(4), PitReading.exact(4)), now=0.0)
    f.update("camera", None, now=0.5, status="camera lost")
    fused = f.fused(0.6)
    assert fused.most_likely_counts() == {"A": 4, "B": 4}
    assert fused.notes["dropped"] == {"camera": "camera lost"}
    assert f.fused(5.0) is None  # both stale now
    assert f.statuses(5.0)["sensors"].startswith("no reading for")


def test_a_reading_that_says_what_its_source_missed_is_pooled_and_says_so():
    """A marker under a cup, one broken pit sensor: the rest of what the source sees still counts."""
    f = Fusion(LABELS, {"camera": 1.0, "sensors": 1.0})
    camera = Reading({"A": PitReading.exact(3), "B": PitReading.exact(2)}, "camera", status="ok (marker near-left not seen)")
    sensors = Reading({"A": None, "B": PitReading.exact(2)}, "sensors", status="sensor fault: A read beyond every count")
    f.update("camera", camera, now=0.0)
    f.update("sensors", sensors, now=0.0)
    fused = f.fused(0.1)
    assert fused.most_likely_counts() == {"A": 3, "B": 2}
    assert fused.notes["sources"] == ["camera", "sensors"] and fused.notes["dropped"] == {}
    assert f.statuses(0.1) == {"camera": "ok (marker near-left not seen)", "sensors": "sensor fault: A read beyond every count"}
    f.update("sensors", None, now=0.2, status="microcontroller lost")  # a source that fails is still dropped
    assert f.fused(0.3).notes["dropped"] == {"sensors": "microcontroller lost"}


def test_a_lasting_disagreement_is_pooled_with_confidence_lowering_a_source_weight():
    f = Fusion(("A",), {"camera": 1.0, "sensors": 1.0}, stale_after=1.0)
    camera = Reading({"A": pit_reading([0.0, 0.3, 0.7])}, "camera", notes={"confidence": 1.0})
    sensors = Reading({"A": pit_reading([0.0, 0.9, 0.1])}, "sensors", notes={"confidence": 0.1})
    f.update("camera", camera, 0.0)
    f.update("sensors", sensors, 0.0)
    assert f.fused(0.0) is None  # they disagree: maybe one has not seen the change yet
    f.update("camera", camera, 1.1)
    f.update("sensors", sensors, 1.1)
    assert f.fused(1.2).pits["A"].most_likely == 2


def test_nothing_is_judged_while_one_source_has_not_caught_up():
    f = Fusion(LABELS, {"camera": 1.0, "sensors": 1.0})
    f.update("camera", reading("camera", PitReading.exact(4), PitReading.exact(4)), now=0.0)
    f.update("sensors", reading("sensors", PitReading.exact(0), PitReading.exact(5)), now=0.1)
    assert f.fused(0.2) is None  # the sensors saw the move, the camera's last still board is the old one
    f.update("camera", reading("camera", PitReading.exact(0), PitReading.exact(5)), now=0.6)
    assert f.fused(0.7).most_likely_counts() == {"A": 0, "B": 5}


def test_a_heap_the_camera_keeps_misreading_does_not_stop_fusion_waiting_for_it_after_the_next_move():
    """The camera reads a store of 21 as 20 for good; after the next move the sensors report at once
    and the camera only once the board is still: its last board must not be pooled with the new one."""
    f = Fusion(LABELS, {"camera": 1.0, "sensors": 1.0}, stale_after=1.0)

    def fused(camera: tuple[int, int], sensors: tuple[int, int], now: float) -> Reading | None:
        f.update("camera", reading("camera", *map(PitReading.exact, camera)), now)  # each source reports again and again
        f.update("sensors", reading("sensors", *map(PitReading.exact, sensors)), now)
        return f.fused(now)

    assert fused((3, 20), (3, 21), 0.0) is None and fused((3, 20), (3, 21), 0.5) is None
    assert fused((3, 20), (3, 21), 1.1) is not None  # a lasting disagreement: pooled
    assert fused((3, 20), (0, 24), 5.0) is None  # a move the camera has not seen yet: pit A disagrees anew
    assert fused((3, 20), (0, 24), 5.9) is None
    caught_up = fused((0, 23), (0, 24), 6.0)  # B's disagreement is the old one
    assert caught_up is not None and caught_up.most_likely_counts()["A"] == 0


@pytest.mark.parametrize("settle", [0.2, 0.5])
def test_gate_passes_a_board_once_it_has_held_still(settle):
    gate = StableGate(settle)
    one = Reading.exact(LABELS, (1, 2))
    two = Reading.exact(LABELS, (0, 3))
    assert gate.offer(one, 0.0) is None
    assert gate.offer(one, settle / 2) is None
    assert gate.offer(one, settle + 0.01) is one
    assert gate.offer(one, settle + 1) is None  # the same board is judged once
    assert gate.offer(two, 2.0) is None         # changed: wait again
    assert gate.offer(one, 2.1) is None
    gate.reset()
    assert gate.offer(one, 2.1 + settle) is one


def test_gate_ignores_a_mostly_hidden_board():
    gate = StableGate(0.0)
    hidden = Reading({"A": None, "B": None})
    assert gate.offer(hidden, 0.0) is None and gate.offer(hidden, 1.0) is None


def test_a_busy_source_holds_judgement_until_it_settles_or_gives_up():
    f = Fusion(LABELS, {"camera": 1.0, "sensors": 1.0}, stale_after=1.0)
    f.update("sensors", reading("sensors", PitReading.exact(4), PitReading.exact(4)), now=0.0)
    f.update("camera", reading("camera", PitReading.exact(4), PitReading.exact(4)), now=0.0)
    f.busy("camera", 0.1, "hand")
    f.update("sensors", reading("sensors", PitReading.exact(3), PitReading.exact(5)), now=0.2)
    assert f.fused(0.3) is None  # a hand over the board: the sensors may see half a move
    f.update("camera", reading("camera", PitReading.exact(3), PitReading.exact(5)), now=0.4)
    assert f.fused(0.5).most_likely_counts() == {"A": 3, "B": 5}
    f.busy("camera", 0.6, "moving")
    f.update("sensors", reading("sensors", PitReading.exact(3), PitReading.exact(5)), now=1.7)
    fused = f.fused(1.8)  # the camera never settled: dropped, the sensors go on
    assert fused.notes["sources"] == ["sensors"]
    assert fused.notes["dropped"]["camera"].startswith("board never still (moving)")


def test_the_cameras_note_of_untouched_pits_is_passed_on_and_a_board_whose_seeds_moved_is_judged_again():
    """One chip taken from a full outbox may leave every most likely count as it was: the camera
    saw seeds move, so the board is judged again all the same; after a hand that touched
    nothing the camera gives its last still board again (vision.live), and it is not."""
    f = Fusion(LABELS, {"camera": 1.0, "sensors": 1.0})
    gate = StableGate(0.5)
    passed = []
    for at, since, now, changed in ((1.0, 0.0, 0.0, ["B"]), (2.0, 1.0, 10.0, ["B"]), (2.0, 2.0, 20.0, [])):
        note = {"at": at, "since": since, "kept": ["A"], "changed": changed}
        f.update("camera", reading("camera", PitReading.exact(1), PitReading.exact(2), still_board=note), now)
        f.update("sensors", reading("sensors", PitReading.exact(1), PitReading.exact(2)), now)
        for later in (0.0, 1.0, 2.0):
            fused = gate.offer(f.fused(now + later), now + later)
            if fused is not None:
                passed.append(fused)
    assert [r.notes["still_board"]["at"] for r in passed] == [1.0, 2.0]
    assert passed[0].notes["still_board"]["kept"] == ["A"] and passed[0].notes["sources"] == ["camera", "sensors"]
