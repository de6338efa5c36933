"""Live: the synthetic camera, and a Reading only once the board is still with nothing over it."""

import numpy as np

from vision.camera import open_source
from vision.live import StillnessGate
from vision.reader import BoardReader
from vision.synthetic import SyntheticCamera

import rules


def kalah_table(seed: int, still_frames: int):
    """(variant, the position shown, the synthetic camera showing it, its reader, a stillness gate)."""
    variant = rules.variant("kalah")
    position = {"now": variant.start()}
    camera = SyntheticCamera("kalah", lambda: position["now"], rng_seed=seed)
    return variant, position, camera, BoardReader(camera.calibration()), StillnessGate(still_frames=still_frames)


def test_synthetic_camera_shows_the_game_and_the_gate_waits_for_stillness():
    variant, position, camera, reader, gate = kalah_table(2, still_frames=3)

    emitted = [gate.update(reader.read(camera.read().image)) for _ in range(4)]
    assert emitted[:2] == [None, None] and emitted[3] is None  # once, after 3 still frames
    first = emitted[2]
    assert first is not None and first.most_likely_counts() == dict(zip(variant.layout.labels, position["now"].pits))
    assert gate.state.state == "still"

    camera.hand = True
    assert gate.update(reader.read(camera.read().image)) is None and gate.state.state in ("hand", "moving")
    camera.hand = False
    position["now"], _ = variant.play(position["now"], variant.legal_moves(position["now"])[2])
    readings = [gate.update(reader.read(camera.read().image)) for _ in range(4)]
    after = [r for r in readings if r is not None]
    assert len(after) == 1
    assert after[0].most_likely_counts() == dict(zip(variant.layout.labels, position["now"].pits))


def test_gate_resets_on_lost_board_and_refuses_bad_settings():
    camera = open_source("synthetic:2x6:1")
    reader = BoardReader(camera.calibration())
    gate = StillnessGate(still_frames=2)
    gate.update(reader.read(camera.read().image))
    assert gate.update(reader.read(np.zeros((720, 1280, 3), np.uint8))) is None
    assert gate.state.state == "no board"
    try:
        StillnessGate(still_frames=0)
    except ValueError as error:
        assert "still_frames" in str(error)
    else:
        raise AssertionError("still_frames=0 must be refused")


def test_each_reading_says_which_pits_kept_their_look_since_the_last():
    variant, position, camera, reader, gate = kalah_table(4, still_frames=2)
    first = [r for r in (gate.update(reader.read(camera.read().image)) for _ in range(2)) if r is not None]
    assert first[0].notes["still_board"] == {"at": first[0].time, "since": None, "kept": [], "changed": []}

    camera.hand = True  # a hand comes and goes, touching nothing: the same still board
    gate.update(reader.read(camera.read().image))
    camera.hand = False
    hover = [r for r in (gate.update(reader.read(camera.read().image)) for _ in range(3)) if r is not None]
    still = hover[0].notes["still_board"]
    assert (still["at"], still["since"], still["changed"]) == (first[0].time, first[0].time, [])
    assert sorted(still["kept"]) == sorted(variant.layout.labels)

    position["now"], _ = variant.play(position["now"], variant.parse_move(position["now"], "C"))  # C lifted, D E F S sown
    camera.hand = True
    gate.update(reader.read(camera.read().image))
    camera.hand = False
    second = [r for r in (gate.update(reader.read(camera.read().image)) for _ in range(3)) if r is not None]
    note = second[0].notes["still_board"]
    assert note["since"] == first[0].time and note["at"] == second[0].time > first[0].time
    assert sorted(note["changed"]) == ["C", "D", "E", "F", "S"]
    assert sorted(note["kept"]) == sorted(set(variant.layout.labels) - {"C", "D", "E", "F", "S"})
