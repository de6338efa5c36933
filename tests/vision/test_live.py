"""Live: the synthetic camera, and a Reading only once the board is still with nothing over it."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from pitwatch.settled import SEED_AREAS
from vision.sources import open_source
from vision.live import FLICKER_SAID, GateState, StillnessGate
from vision.reader import BoardReader
from vision.render import Shot, project, render
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
    assert camera.scene.relief  # the demo's board is seen in depth, as a real camera sees one

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


def test_the_demo_camera_renders_a_board_once_while_it_stays_still(monkeypatch):
    """Rendering costs 183 ms a frame; a still board's next frames are its last rendering exposed
    anew (the light's drift, fresh noise) and read as it does, so the gate gets its still frames in
    time on a busy machine. A move renders the board again, and a hand over it every frame."""
    import vision.synthetic

    variant, position, camera, reader, gate = kalah_table(3, still_frames=3)
    rendered = []
    monkeypatch.setattr(vision.synthetic, "render", lambda *args, **kwargs: rendered.append(1) or render(*args, **kwargs))
    frames = [camera.read().image for _ in range(4)]
    assert len(rendered) == 1
    assert 0 < np.abs(frames[1].astype(int) - frames[2]).mean() < 8  # another exposure of the same board
    readings = [gate.update(reader.read(frame)) for frame in frames]
    assert [r is not None for r in readings] == [False, False, True, False]
    assert readings[2].most_likely_counts() == dict(zip(variant.layout.labels, position["now"].pits))
    position["now"], _ = variant.play(position["now"], variant.legal_moves(position["now"])[0])
    camera.read(), camera.read()
    assert len(rendered) == 2
    camera.hand = True
    camera.read(), camera.read()
    assert len(rendered) == 4


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
    assert first[0].notes["still_board"] == {"at": first[0].time, "since": None, "kept": [], "changed": [], "moved": {}}

    camera.hand = True  # a hand comes and goes, touching nothing: the same still board
    gate.update(reader.read(camera.read().image))
    camera.hand = False
    hover = [r for r in (gate.update(reader.read(camera.read().image)) for _ in range(3)) if r is not None]
    still = hover[0].notes["still_board"]
    assert (still["at"], still["since"], still["changed"], still["moved"]) == (first[0].time, first[0].time, [], {})
    assert sorted(still["kept"]) == sorted(variant.layout.labels)

    position["now"], _ = variant.play(position["now"], variant.parse_move(position["now"], "C"))  # C lifted, D E F S sown
    camera.hand = True
    gate.update(reader.read(camera.read().image))
    camera.hand = False
    second = [r for r in (gate.update(reader.read(camera.read().image)) for _ in range(3)) if r is not None]
    note = second[0].notes["still_board"]
    assert note["since"] == first[0].time and note["at"] == second[0].time > first[0].time
    assert sorted(note["changed"]) == sorted(note["moved"]) == ["C", "D", "E", "F", "S"]  # seeds lifted or dropped
    assert note["moved"]["C"] > max(note["moved"][label] for label in "DEF")  # four seeds lifted, one sown
    assert sorted(note["kept"]) == sorted(set(variant.layout.labels) - {"C", "D", "E", "F", "S"})


@pytest.mark.parametrize("board, kind", [("kalah", "pebble"), ("oware", "glass"), ("pass-it-on", None)])
def test_one_seed_moved_with_no_hand_in_view_is_motion_and_a_still_board_is_not(setup_of, board, kind):
    """One seed dropped into a pit or taken from one changes 0.05-0.1 % of a board: far below the
    share of the board that makes motion, but a spot of a seed's size (a move with the hand out of
    view, or the demo's virtual board, would otherwise never be read). Webcam-like frames."""
    scene, calibration = setup_of(board, 5, kind)
    labels = [h.label for h in scene.profile.hollows if not h.is_store]
    counts = {h.label: 5 for h in scene.profile.hollows}
    counts.update({labels[0]: 1, labels[3]: 0})
    white = {label: 0 for label in counts} if scene.profile.chips else None
    table = Shot(gain=0.85, tint=(1.05, 0.97, 0.92), gradient=(0.2, -0.15), blur=1.0, noise=4.0, jpeg=70, seed=3,
                 piles={label: 7 + k for k, label in enumerate(counts)})
    reader = BoardReader(calibration)

    def motion_after(before: dict, after: dict, gain: float = 1.0) -> str:
        gate = StillnessGate(still_frames=5)
        for k, shown in enumerate((before, after)):
            gate.update(reader.read(render(scene, shown, white, replace(table, exposure=k, gain=table.gain * gain)).image))
        return gate.state.state

    assert motion_after(counts, counts, gain=1.01) == "settling"  # a new exposure, the light a little brighter
    assert motion_after(counts, {**counts, labels[0]: 0}) == "moving"  # the only seed of a pit taken
    assert motion_after(counts, {**counts, labels[3]: 1}) == "moving"  # one seed dropped into an empty pit
    assert motion_after(counts, {**counts, labels[2]: 6}) == "moving"  # and onto a heap of five


@pytest.mark.parametrize("board", ["kalah", "oware"])
def test_a_marker_found_again_places_the_board_better_and_is_not_motion(setup_of, board):
    """A board first found from three markers (one under a cup, or blurred) and then from four is
    placed a few pixels better, and the gate took that for motion: a still board's Reading waited
    for more frames (whole games by camera alone: moves the gate never saw still)."""
    scene, calibration = setup_of(board)
    reader, gate = BoardReader(calibration), StillnessGate(still_frames=3)
    corners = project(scene, np.array(calibration.profile.marker_corners(1)))
    (x0, y0), (x1, y1) = corners.min(axis=0).astype(int) - 8, corners.max(axis=0).astype(int) + 8
    counts = {label: 3 for label in scene.profile.layout.labels}
    results = []
    for k in range(3):
        frame = render(scene, counts, None, Shot(noise=3.0, jpeg=80, seed=4, exposure=k)).image
        if k == 0:
            frame[y0:y1, x0:x1] = (40, 80, 120)  # near-right not seen at first
        results.append(reader.read(frame))
    assert [len(r.status.markers_seen) for r in results] == [3, 4, 4]
    assert [r.refined for r in results] == [False, True, False]
    assert np.abs(results[1].image_to_board - results[0].image_to_board).max() > 1e-3  # placed anew
    emitted = [gate.update(result) for result in results]
    assert emitted[:2] == [None, None] and emitted[2] is not None, gate.state


def test_a_board_placed_a_pixel_apart_is_not_motion_but_a_seed_dropped_is(setup_of):
    """In a noisy frame two markers can be measured a pixel or two apart, and the reader places
    the board anew: every edge of the rectified board shifts a little, which the gate took for
    motion (whole games by camera alone: still boards never read). A change is now what lies
    outside the last frame's values within a pixel, and one seed dropped still is one."""
    scene, calibration = setup_of("kalah", 5, "bean")
    reader, gate = BoardReader(calibration), StillnessGate(still_frames=3)
    counts = {label: 4 for label in scene.profile.layout.labels}
    frame = render(scene, counts, None, Shot(noise=3.0, jpeg=80, seed=4, exposure=1)).image
    apart = frame.copy()
    shifted = cv2.warpAffine(frame, np.float32([[1, 0, 1.4], [0, 1, 1.4]]), frame.shape[1::-1])
    for marker in (1, 2):  # two markers' pictures 1.4 px off: the board is found afresh
        corners = project(scene, np.array(calibration.profile.marker_corners(marker)))
        (x0, y0), (x1, y1) = corners.min(axis=0).astype(int) - 6, corners.max(axis=0).astype(int) + 6
        apart[y0:y1, x0:x1] = shifted[y0:y1, x0:x1]
    first, second = reader.read(frame), reader.read(apart)
    assert not np.array_equal(first.image_to_board, second.image_to_board) and not second.refined
    gate.update(first)
    gate.update(second)
    assert gate.state.state == "settling", gate.state
    dropped = render(scene, {**counts, "C": 5}, None, Shot(noise=3.0, jpeg=80, seed=4, exposure=2)).image
    third = reader.read(dropped)  # the markers where they were at first: placed anew, and a seed dropped
    assert not np.array_equal(third.image_to_board, second.image_to_board)
    gate.update(third)
    assert gate.state.state == "moving", gate.state


def test_the_demo_camera_takes_a_penalty_chip_off_its_pile_and_leaves_the_others_as_they_lay():
    """A Pass It On outbox one chip short was robbed of a penalty chip, not lifted: the demo's
    board keeps the other chips where they lay, so the gate sees one chip's change there (less
    than two chips' median area), and every other pit kept its look."""
    labels = rules.variant("pass-it-on").layout.labels
    counts = {**{label: 3 for label in labels}, "N": 12, "S": 12}
    white = {**{label: 0 for label in labels}, "A": 1, "S": 2}
    camera = SyntheticCamera("pass-it-on", lambda: (counts, white), rng_seed=3)
    reader, gate = BoardReader(camera.calibration()), StillnessGate(still_frames=2)
    assert [r for r in (gate.update(reader.read(camera.read().image)) for _ in range(2)) if r is not None]
    counts["S"] = 11  # a yellow chip taken
    camera.hand = True
    gate.update(reader.read(camera.read().image))
    camera.hand = False
    after = [r for r in (gate.update(reader.read(camera.read().image)) for _ in range(3)) if r is not None]
    note = after[0].notes["still_board"]
    assert list(note["moved"]) == ["S"] and note["moved"]["S"] < 2 * SEED_AREAS[True, True].taken, note
    assert sorted(note["kept"]) == sorted(set(labels) - {"S"})


def test_a_lamp_s_reflection_leaves_its_pits_unseen_and_the_game_going(setup_of):
    """A lamp switched on after calibration puts its reflection near one pit, and it stays while the
    lamp does. The reader reports that pit unseen (glare); the gate still sends the still board, the
    other pits read, so that the referee judges the move from them: it had waited, as for a hand,
    until the lamp was moved (docs/vision.md, section 5). A pit out of view is still a reset."""
    scene, calibration = setup_of("nam-nam")
    reader, gate = BoardReader(calibration), StillnessGate(still_frames=2)
    counts = {label: (3 * k) % 8 for k, label in enumerate(calibration.profile.layout.labels)}
    shot = Shot(seed=300, glare=3.0, noise=2.0, jpeg=85)
    rendered = [render(scene, counts, None, replace(shot, exposure=k)) for k in range(3)]
    results = [reader.read(r.image) for r in rendered]
    assert rendered[0].glared and all(r.status.message.startswith("glare on pits") for r in results)
    assert set(results[0].status.glared) == set(results[0].status.pits_unseen) >= rendered[0].glared
    emitted = [gate.update(result) for result in results]
    assert emitted[0] is None and emitted[2] is None
    reading = emitted[1]
    assert reading is not None, gate.state
    assert {label for label, pit in reading.pits.items() if pit is None} == set(results[0].status.glared)
    assert all(pit.most_likely == counts[label] for label, pit in reading.pits.items() if pit is not None)
    out_of_view = replace(results[0], status=replace(results[0].status, glared=()))
    assert gate.update(out_of_view) is None and gate.state.state == "hand"


def test_a_lamp_that_stays_puts_its_reflection_in_the_same_place_every_shot(setup_of):
    scene, _ = setup_of("nam-nam")
    counts = {h.label: 2 for h in scene.profile.hollows}
    staying = {render(scene, counts, None, Shot(seed=seed, glare=3.0, lamp=11)).glared for seed in range(4)}
    moving = {render(scene, counts, None, Shot(seed=seed, glare=3.0)).glared for seed in range(4)}
    assert len(staying) == 1 and len(moving) > 1


@pytest.mark.parametrize("board, kind, swing, gain", [("kalah", "glass", 0.2, 1.0), ("pass-it-on", None, 0.2, 1.0),
                                                      ("oware", "pebble", 0.25, 1.1)])
def test_mains_flicker_is_not_motion_but_one_seed_dropped_under_it_is(setup_of, board, kind, swing, gain):
    """A lamp on 50 Hz mains seen by a webcam's rolling shutter at 30 frames a second: bands of
    rows 20-25 % brighter and darker that move a third of a band from frame to frame. The gate took
    them for motion all over the board and never gave a still board's Reading; it now divides the
    change of light along the picture's rows out (vision.flicker), and a seed dropped is still
    motion. Glass beads and chips clip where the bands brighten them. The change of light is
    measured on the board before it is smoothed, and divided out before: smoothed, the board's
    edge rows mix in the light of the rows inside, and under bands of 25 % its near and far edges
    had looked changed."""
    scene, calibration = setup_of(board, 5, kind)
    labels = [h.label for h in scene.profile.hollows if not h.is_store]
    counts = {h.label: 4 for h in scene.profile.hollows}
    counts[labels[3]] = 0
    white = {label: min(1, n) for label, n in counts.items()} if scene.profile.chips else None
    table = Shot(gain=gain, noise=3.0, jpeg=80, blur=1.0, seed=3, flicker=swing,
                 piles={label: 7 + k for k, label in enumerate(counts)})
    reader, gate = BoardReader(calibration), StillnessGate(still_frames=3)
    given = [gate.update(reader.read(render(scene, counts, white, replace(table, exposure=k)).image)) for k in range(4)]
    assert [reading is not None for reading in given] == [False, False, True, False], gate.state
    assert gate.state.state == "still" and gate.state.flicker > 0.2  # the bands measured (log swing either way)
    read = {label: int(np.argmax(pit.counts)) for label, pit in given[2].pits.items()}
    assert read == counts
    gate.update(reader.read(render(scene, {**counts, labels[3]: 1}, white, replace(table, exposure=4)).image))
    assert gate.state.state == "moving" and gate.state.spot_mm2 >= StillnessGate.SEED_SPOT_MM2


def test_the_gate_s_state_says_what_to_do_about_a_light_flickering_in_bands():
    assert GateState("moving", 0.4, 300.0, FLICKER_SAID / 2).described == "moving"
    said = GateState("moving", 0.4, 300.0, FLICKER_SAID).described
    assert said.startswith("moving; the light flickers in bands") and "power_line_frequency=1 for 50 Hz" in said
