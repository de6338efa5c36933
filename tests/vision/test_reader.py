"""The reader on rendered frames (never clean drawings): statuses, hands, and accuracy floors.

The floors are set a few points under what the reader reaches on this fixed,
seeded set; benchmarks/vision_bench.py measures the real figures on more images.
"""

import json
import re
from dataclasses import replace

import cv2
import numpy as np
import pytest

import rules
from calibration.calibfile import CalibrationError
from calibration.calibrate import calibrate, calibrate_empty
from calibration.profiles import PROFILE_LAYOUTS, start_counts
from rules.reading import PitReading, Reading
from rules.referee import Referee
from rules.referee.explain import board_of
from rules.referee.likelihood import RULED_OUT
from vision.counter import MODELS, SeedCounter, model_paths
from vision.glare import DOUBT, hedged, seed_top_mm2
from vision.hand import HandFinder
from vision.markers import homography_from_corners
from vision.moved_markers import MovedMarker
from vision.nudge import BOARD_MOVED, LOST, NudgeFinder, moved_back
from vision.pits import hollow_mask, nominal_hollows, rim_gap
from vision.reader import NO_COLOUR, BoardReader, BoardView, _bare_wood
from vision.flicker import picture_rows
from vision.rectify import GAIN_CELL_PX, LightModel, reduce
from vision.render import Shot, camera_homography, project, random_counts, random_scene, random_shot, render
from vision.synthetic import SyntheticCamera


def test_bad_frames_give_a_status_not_an_exception(kalah_setup):
    reader = BoardReader(kalah_setup[1])
    for frame, message in [(None, "no frame"), (np.zeros((720, 1280, 3), np.uint8), "black frame"),
                           (np.full((720, 1280, 3), 128, np.uint8), "board not found"), (np.zeros((0, 0, 3), np.uint8), "no frame"),
                           (np.zeros((720, 1280, 3), np.float64), "unsupported frame"),
                           (np.full((1, 1280, 3), 128, np.uint8), "a 1280 x 1 picture: too small to hold a board")]:
        result = reader.read(frame)
        assert not result.status.board_found and message in result.status.message
        assert all(pit is None for pit in result.reading.pits.values())
        assert result.reading.status == result.status.message


@pytest.mark.parametrize("flip", [1, 0], ids=["mirrored", "upside-down mirror"])
def test_a_camera_that_mirrors_its_picture_is_named(kalah_setup, flip):
    """Many webcams mirror their picture for video calls; a marker read in a mirror is no marker,
    and the frame said only "markers missing"."""
    scene, calibration = kalah_setup
    counts, white = start_counts("kalah")
    picture = render(scene, counts, white, Shot(seed=3, noise=2.0, jpeg=90)).image
    reader = BoardReader(calibration)
    assert reader.read(picture).status.board_found
    status = reader.read(cv2.flip(picture, flip)).status
    assert not status.board_found
    assert status.message == ("board not found: the picture is mirrored (its markers read only left-right reversed): "
                              "turn off the camera's mirror or flip setting")


def test_a_marker_stuck_back_wrong_during_play_is_named_until_it_is_put_right(kalah_setup):
    """A marker falls off mid-game and is stuck back turned (or the board is put down turned
    round): the markers then put every pit elsewhere. Frame after frame this read as a hand over
    the board, which no hand taken away mended, and a board turned round read "ok" with South's
    pits taken for North's. Now the frame says which marker is stuck how, until it is right."""
    scene, calibration = kalah_setup
    counts, white = start_counts("kalah")
    reader = BoardReader(calibration)

    def read(stuck: tuple[tuple[int, int], ...], cup_over: int | None = None):
        return reader.read(render(replace(scene, markers=stuck), counts, white, Shot(seed=3, noise=2.0, jpeg=90, cup=cup_over)).image)

    upright = ((0, 0), (1, 0), (2, 0), (3, 0))
    turned = ((0, 0), (1, 1), (2, 0), (3, 0))
    assert read(upright).status.message == "ok"
    assert read(upright, cup_over=1).status.markers_seen == (0, 2, 3)  # fallen off
    for _ in range(2):  # stuck back a quarter turn: said every frame
        result = read(turned)
        assert result.status.message == ("markers stuck wrong: marker 1 (near-right) is stuck a quarter turn clockwise: "
                                         "stick it upright as read from South's seat, as the sheet prints it")
        assert not result.status.board_found and all(pit is None for pit in result.reading.pits.values())
    assert read(upright, cup_over=1).status.markers_seen == (0, 2, 3)  # peeled off again
    mended = read(upright)
    assert mended.status.message == "ok"
    assert {label: pit.most_likely for label, pit in mended.reading.pits.items()} == counts

    turned_round = BoardReader(calibration).read(render(replace(scene, markers=((2, 2), (3, 2), (0, 2), (1, 2))),
                                                        counts, white, Shot(seed=4)).image)
    assert turned_round.status.message.startswith("markers stuck wrong: the board's near side (markers 0 and 1) does "
                                                  "not run left to right across the picture")
    assert turned_round.status.message.endswith("or the board is turned round: turn it so that markers 0 and 1 are on "
                                                "the camera's side")


def test_a_board_of_another_shape_under_the_camera_is_named_not_read(kalah_setup):
    """A camera moved to a 4 x 8 board (or that board put under it) with the Kalah board's calibration:
    read "ok", its counts made up. Its markers, stretched to the calibrated board's places, come out
    far from square: the frame names another board. The calibrated board, in the same hard shots, reads."""
    scene, calibration = kalah_setup
    rng = np.random.default_rng(3)
    other = random_scene("4x8", rng)
    for seed in range(3):
        shot = random_shot(rng, hard=True, hand=False)
        result = BoardReader(calibration).read(render(other, start_counts("4x8")[0], None, shot).image)
        assert re.fullmatch(r"another board under the camera: its markers come out \d+ mm across and \d+ mm deep, where "
                            r"they are square on the calibrated 2x6\+stores board: put that board back, or calibrate this "
                            r"one \(pitwatch calibrate\)", result.status.message), result.status.message
        assert not result.status.board_found and all(pit is None for pit in result.reading.pits.values())
        own = BoardReader(calibration).read(render(scene, start_counts("kalah")[0], None, shot).image)
        assert own.status.board_found, own.status.message


def test_a_board_of_another_layout_that_reads_as_a_hand_is_said_to_be_maybe_another_board():
    """An Oware board under a Kalah calibration: its markers come out 29 % off square, short of the
    30 % beyond which the board is refused, and its hollows are not where the empty picture has them,
    so it read as a hand over the board, frame after frame. The players are told it may be another
    board; a real hand over the calibrated board is only a hand."""
    kalah = SyntheticCamera("kalah", lambda: start_counts("kalah"), 1)
    calibration = kalah.calibration()
    oware = SyntheticCamera("oware", lambda: start_counts("oware"), 1)
    other = BoardReader(calibration).read(oware.frame_of(*start_counts("oware")))
    assert re.fullmatch(r"hand over board, or another board under the camera \(its markers come out 36 mm across and "
                        r"28 mm deep, where they are square on the calibrated 2x6\+stores board\)", other.status.message)
    hand = BoardReader(calibration).read(kalah.frame_of(*start_counts("kalah"), hand=True))
    assert hand.status.message == "hand over board"


@pytest.mark.parametrize("far", [1.0, 2.0])
def test_a_marker_moved_on_the_board_during_play_is_named_until_it_is_put_back(kalah_setup, setup_from, far):
    """A sticker pushed along by a sleeve, or peeled off and stuck back elsewhere: its corners pulled
    the board askew, and frame after frame read as a hand over the board (2026-12-06: 45 of 48 hard
    frames with a marker moved 10 mm). While the board stands still, the marker that alone moved is
    named, with how far and which way, and followed when the board moves too, until it is back.
    Also with the camera twice as far, where the placement the other three markers give puts the
    fourth up to 9.55 mm off its place: the marker is followed by how the board moved in the
    picture, not placed anew, or one put back would still be called moved."""
    scene, calibration = kalah_setup if far == 1.0 else far_set_up(setup_from, "2x6+stores", far)
    counts, white = start_counts("kalah")
    reader = BoardReader(calibration)
    far_right_on = replace(scene, marker_shifts=tuple((dx, dy + 8.0) if corner == 2 else (dx, dy)
                                                       for corner, (dx, dy) in enumerate(scene.marker_shifts)))
    nudged = (5.0, -3.0, 0.01)

    def read(stuck_as, exposure: int, cup: int | None = None, nudge=(0.0, 0.0, 0.0)):
        shot = Shot(seed=3, noise=2.0, jpeg=90, cup=cup, nudge=nudge, exposure=exposure)
        return reader.read(render(stuck_as, counts, white, shot).image)

    said = ("marker moved on the board: marker 2 (far-right) lies 8 mm towards South of where calibration found it "
            "stuck: stick it back where it was, or calibrate again (pitwatch calibrate)")
    assert read(scene, 0).status.message.startswith("ok")  # twice as far, one marker is missed
    pushed = read(far_right_on, 1)  # pushed along in view, the board still
    assert pushed.status.message == said
    assert not pushed.status.board_found and all(pit is None for pit in pushed.reading.pits.values())
    assert read(scene, 2).status.message == "ok"  # pushed back
    assert read(scene, 3, cup=2).status.markers_seen == (0, 1, 3)  # peeled off...
    assert read(far_right_on, 4).status.message == said  # ...and stuck back 8 mm off
    for exposure in (5, 6):  # the board moved as well: followed by how the other three moved
        moved_too = read(far_right_on, exposure, nudge=nudged)
        assert moved_too.status.message.startswith("marker moved on the board: marker 2 (far-right) lies ")
        assert moved_too.status.markers_seen == (0, 1, 2, 3)
    put_back = read(scene, 7, nudge=nudged)
    assert put_back.status.message == "ok"
    assert {label: pit.most_likely for label, pit in put_back.reading.pits.items()} == counts
    with_a_mug = read(far_right_on, 8, cup=0, nudge=nudged)  # pushed again, a mug over near-left
    assert with_a_mug.status.message.startswith("marker moved on the board: marker 2 (far-right) lies ")
    assert read(scene, 9, nudge=nudged).status.message == "ok"  # put back beside the two others in view, still


@pytest.mark.parametrize("board", sorted(PROFILE_LAYOUTS))
def test_a_marker_moved_while_pitwatch_was_off_is_named_from_the_first_frame(setup_of, board):
    """No placement before it to judge it by: the first frame's wood lines up with the empty
    board's picture through the other three markers' placement, and not through all four. Named
    until it is put back; a reader started on the board as calibrated names nothing."""
    scene, calibration = setup_of(board, relief=True)
    counts, white = random_counts(scene.profile, np.random.default_rng([3, len(board)]))
    moved_on = replace(scene, marker_shifts=tuple((dx, dy + 9.0) if corner == 2 else (dx, dy)
                                                  for corner, (dx, dy) in enumerate(scene.marker_shifts)))
    shot = Shot(seed=3, noise=2.0, jpeg=90)
    reader = BoardReader(calibration)
    first = reader.read(render(moved_on, counts, white, shot).image)
    assert first.status.message.startswith("marker moved on the board: marker 2 (far-right) lies "), first.status.message
    assert "towards South" in first.status.message and all(pit is None for pit in first.reading.pits.values())
    assert reader.read(render(moved_on, counts, white, replace(shot, exposure=1)).image).status.message == first.status.message
    put_back = reader.read(render(scene, counts, white, replace(shot, exposure=2)).image)
    assert put_back.status.message.startswith("ok"), put_back.status.message
    assert BoardReader(calibration).read(render(scene, counts, white, shot).image).status.message.startswith("ok")


def far_set_up(setup_from, board: str, far: float):
    """A set-up of ``board`` seen in depth by a camera ``far`` times as far (the same lens)."""
    return setup_from(board, np.random.default_rng([9, len(board), 99]), relief=True, far=far)


@pytest.mark.parametrize("board, far", [(board, 1.0) for board in sorted(PROFILE_LAYOUTS)] + [("2x8+stores", 2.0), ("4x8", 2.0)])
def test_markers_hidden_and_found_again_are_never_called_moved(setup_of, setup_from, board, far):
    """A marker is judged only by a placement of the board found with it in view: that puts an
    unmoved one within 0.65 mm of its place, where the placement the other three find on a board
    nudged while it was hidden puts it up to 2.46 mm off, and 9.55 mm with the camera twice as far
    (hard shots; a first version of the check, judging by those too, called such markers moved).
    A marker at the edge of being seen is measured a few pixels apart, a still board's next
    exposure moves them by tenths of a pixel: none of it is a marker moved on the board."""
    scene, calibration = setup_of(board, relief=True) if far == 1.0 else far_set_up(setup_from, board, far)
    rng = np.random.default_rng([5, len(board)])
    counts, white = random_counts(scene.profile, rng)
    reader = BoardReader(calibration)
    shot = replace(random_shot(rng, hard=True, hand=False), blur=2.0)
    nudge = (shot.nudge[0] + 6.0, shot.nudge[1] - 4.0, shot.nudge[2] + 0.02)
    messages = []
    for cup in range(4):
        for exposure, (hidden, moved) in enumerate(((None, False), (cup, False), (cup, True), (None, True), (None, True))):
            frame = replace(shot, cup=hidden, nudge=nudge if moved else shot.nudge, exposure=exposure)
            messages.append(reader.read(render(scene, counts, white, frame).image).status.message)
        shot = replace(shot, nudge=nudge)
        nudge = shot.nudge[0] - 6.0, shot.nudge[1] + 4.0, shot.nudge[2] - 0.02
    assert not [message for message in messages if message.startswith("marker moved on the board")]
    assert sum(message.startswith("ok") for message in messages) >= 8, messages


def test_which_way_a_marker_moved_is_said_as_seen_from_souths_seat():
    assert " lies 5 mm to the left and towards North of " in MovedMarker(0, (-3.0, -4.0)).message
    assert " lies 6 mm to the right of " in MovedMarker(3, (6.0, 0.5)).message


def test_markers_stuck_a_few_millimetres_off_put_the_board_in_one_place_whichever_three_are_seen():
    """Markers are stuck by hand, a few millimetres off the profile's places. Calibration keeps
    where it found each; before (2026-12-05), any three of them, a hand over the fourth on a
    nudged board, put the board elsewhere than all four did, every pit moved by millimetres."""
    rng = np.random.default_rng(11)
    scene = replace(random_scene("2x6+stores", rng), marker_shifts=((3.0, -3.0), (-4.0, 2.0), (2.0, 3.0), (-3.0, -2.0)))
    counts, white = start_counts("kalah")
    empty, start = (render(scene, c, w, random_shot(rng, hard=False, hand=False)).image for c, w in (({}, None), (counts, white)))
    calibration = calibrate("kalah", empty, start)
    assert sorted(calibration.markers) == [0, 1, 2, 3]
    shot = Shot(seed=2, noise=2.0, jpeg=90, nudge=(6.0, -4.0, 0.02))
    hollows_seen = project(scene, np.array([h.centre for h in scene.profile.hollows]), shot).reshape(-1, 1, 2)

    def pits_placed(calibration, covered: int | None) -> np.ndarray:
        result = BoardReader(calibration).read(render(scene, counts, white, replace(shot, cup=covered)).image)
        assert result.status.markers_seen == tuple(i for i in range(4) if i != covered)
        return cv2.perspectiveTransform(hollows_seen, result.image_to_board).reshape(-1, 2)

    older_file = replace(calibration, markers=None)  # the profile's places, as before
    for covered in range(4):
        assert np.abs(pits_placed(calibration, covered) - pits_placed(calibration, None)).max() < 0.5, covered
    assert max(np.abs(pits_placed(older_file, covered) - pits_placed(older_file, None)).max() for covered in range(4)) > 2.0
    read = BoardReader(calibration).read(render(scene, counts, white, replace(shot, cup=1)).image)
    assert read.status.pits_unseen == ("S",)  # the store beside the cup
    assert all(pit.most_likely == counts[label] for label, pit in read.reading.pits.items() if pit is not None)


def test_start_position_read_exactly_with_high_confidence(kalah_setup):
    scene, calibration = kalah_setup
    counts = {label: (0 if label in "SN" else 4) for label in calibration.profile.layout.labels}
    result = BoardReader(calibration).read(render(scene, counts, None, Shot(seed=3, noise=2, jpeg=85)).image)
    assert result.status.message == "ok" and result.status.markers_seen == (0, 1, 2, 3)
    assert result.reading.most_likely_counts() == counts
    assert min(result.reading.pits[label].probability(n) for label, n in counts.items()) > 0.5
    assert len(result.overlay) == 14 and result.draw(np.zeros((720, 1280, 3), np.uint8)).any()


@pytest.mark.parametrize("size, message", [
    ((640, 480), "ok (a 640 x 480 picture, too small to count seeds well: see pitwatch doctor)"),
    ((1920, 1080), "ok"),
])
def test_a_camera_of_another_picture_size_is_calibrated_and_read(setup_from, size, message):
    """A webcam left at 640 x 480, or a 1080p one: the board is calibrated and read in its
    pictures as in 1280 x 720 ones (how well, at each size: README, *Benchmarks*); a picture
    too small to count seeds well says so, on the dashboard's camera line too."""
    scene, calibration = setup_from("2x6+stores", np.random.default_rng(21), frame=size)
    labels = calibration.profile.layout.labels
    counts = {label: k % 5 for k, label in enumerate(labels)}
    result = BoardReader(calibration).read(render(scene, counts, None, Shot(seed=3, noise=2, jpeg=85)).image)
    assert result.status.message == message and result.status.markers_seen == (0, 1, 2, 3)
    assert result.reading.most_likely_counts() == counts


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (640, 480)])
def test_heaps_are_read_again_finer_in_pictures_of_every_size(setup_from, size):
    """The heap network learnt from 640 x 480 and 1024 x 768 pictures too, and reads heaps there
    better than the pit network alone (docs/vision.md, section 6): a webcam left at its
    starting size gets it as well."""
    scene, calibration = setup_from("2x6+stores", np.random.default_rng(21), frame=size)

    class Recorder(SeedCounter):
        heaps: list[int] = []

        def read_pits(self, windows, heap_windows, out_of_focus=False):
            return super().read_pits(windows, lambda chosen: Recorder.heaps.extend(chosen) or heap_windows(chosen),
                                     out_of_focus)

    reader = BoardReader(calibration, Recorder())
    result = reader.read(render(scene, {"C": 14, "d": 2}, None, Shot(seed=3, noise=2, jpeg=85)).image)
    assert result.status.markers_seen == (0, 1, 2, 3) and result.reading.pits["C"].most_likely >= 10
    playing = [hollow.label for hollow in calibration.profile.hollows if not hollow.is_store]
    assert [playing[k] for k in Recorder.heaps] == ["C"]


def test_a_known_reading_is_kept_without_counting_but_the_frame_is_still_looked_at(kalah_setup):
    """``known`` (a still board's Reading): the next exposure is located and checked, not counted;
    a hand is still found, and the pits it covers are unseen."""
    scene, calibration = kalah_setup
    counts = {"A": 3, "b": 7, "S": 12}

    class Counting(SeedCounter):
        calls = 0

        def read(self, kind, windows, out_of_focus=False):
            Counting.calls += 1
            return super().read(kind, windows, out_of_focus)

        def read_pits(self, windows, heap_windows, out_of_focus=False):
            Counting.calls += 1
            return super().read_pits(windows, heap_windows, out_of_focus)

    reader = BoardReader(calibration, Counting())
    shot = Shot(seed=8, noise=3, jpeg=85)
    known = reader.read(render(scene, counts, None, shot).image).reading
    calls = Counting.calls
    again = reader.read(render(scene, counts, None, replace(shot, exposure=1)).image, known=known)
    assert Counting.calls == calls and again.status.message == "ok" and again.status.markers_seen == (0, 1, 2, 3)
    assert again.reading.pits == known.pits and len(again.overlay) == 14
    hand = render(scene, counts, None, replace(shot, hand=True, seed=101))
    covered = reader.read(hand.image, known=known)
    assert Counting.calls == calls and covered.status.hand and hand.covered
    assert all(covered.reading.pits[label] is None for label in covered.status.pits_unseen)
    assert all(covered.reading.pits[label] == known.pits[label] for label in known.pits if label not in covered.status.pits_unseen)


def test_hand_over_board_marks_covered_pits_unseen(kalah_setup):
    scene, calibration = kalah_setup
    reader = BoardReader(calibration)
    hidden = seen_as_hidden = 0
    for seed in range(6):
        rendered = render(scene, {"A": 3, "b": 2}, None, Shot(hand=True, seed=100 + seed))
        result = reader.read(rendered.image)
        assert result.status.board_found
        hidden += len(rendered.covered)
        seen_as_hidden += sum(1 for label in rendered.covered if result.reading.pits[label] is None)
        if result.status.hand:
            assert result.status.message == "hand over board" and result.status.pits_unseen
    assert seen_as_hidden >= 0.6 * hidden


def test_what_was_taken_for_a_hand_is_outlined_where_the_hand_lies_in_the_picture(kalah_setup):
    """The camera view outlines what keeps the board from being read. The hand's truth: where the
    same frame rendered without it differs. Most of each outline lies on the hand (it is grown by
    a margin, and ends at the board's edge, where the arm goes on)."""
    scene, calibration = kalah_setup
    for seed in range(100, 106):
        shot = Shot(hand=True, seed=seed)
        with_hand = render(scene, {"A": 3, "b": 2}, None, shot)
        without = render(scene, {"A": 3, "b": 2}, None, replace(shot, hand=False))
        hand = np.abs(with_hand.image.astype(np.int16) - without.image.astype(np.int16)).max(axis=2) > 10
        result = BoardReader(calibration).read(with_hand.image)
        assert result.status.hand and result.hand_outlines
        outlined = np.zeros(hand.shape, np.uint8)
        cv2.fillPoly(outlined, result.hand_outlines, 1)
        assert (hand & (outlined > 0)).sum() >= 0.8 * outlined.sum() >= 0.8 * 5000, seed
        drawn, plain = result.draw(with_hand.image), replace(result, hand_outlines=[]).draw(with_hand.image)
        changed = (drawn != plain).any(axis=2)
        assert changed.sum() >= 500 and (drawn[changed] == (255, 0, 255)).all()  # drawn in magenta
        assert BoardReader(calibration).read(without.image).hand_outlines == []


def test_an_arm_across_a_hollow_is_one_hand_though_the_wood_shows_it_in_two_pieces(kalah_setup):
    """A pale arm 18 mm wide across pit A shows on the bare wood above and below A as two pieces
    of about 160 mm2, each under HAND_MIN_MM2: both meet A's rim, so they are one hand. The same
    two pieces at two hollows far apart (a seed or two spilled on the wood) are not."""
    calibration = kalah_setup[1]
    empty, ppm = calibration.empty, calibration.px_per_mm
    surface = _bare_wood(empty.shape[:2], calibration)
    finder = HandFinder(empty, surface, ppm, calibration.hollows.values())
    light = LightModel(empty, surface)
    half_width = round(9 * ppm)

    def with_skin(*bands: tuple[str, float, float]) -> np.ndarray:
        board = empty.copy()
        for label, top, bottom in bands:  # from top to bottom in the hollow's semi-axes
            (x, y), (_, b) = calibration.hollows[label].centre, calibration.hollows[label].axes
            board[round(y + top * b):round(y + bottom * b), round(x) - half_width:round(x) + half_width] = (150, 170, 210)
        return board

    def hand(board: np.ndarray) -> np.ndarray | None:
        return finder.find(board, light.log_gain(board, None), None).hand

    arm = hand(with_skin(("A", -1.9, 1.9)))
    assert arm is not None and BoardReader(calibration).pits["A"].touches(arm)
    assert hand(with_skin(("A", 1.0, 1.9), ("F", 1.0, 1.9))) is None
    assert hand(with_skin(("A", 1.0, 1.9))) is None  # one piece alone: not a hand


def test_a_hand_the_colour_of_the_wood_is_seen_by_the_grain_it_hides(setup_of):
    """Skin of the board's own colour passes the colour test in places; the grain it hides
    gives it away. (Before the grain was looked at: 13 of these 16 frames seen, 28 of 38
    covered pits unseen.)"""
    frames = seen = hidden = unseen = 0
    for board in ("kalah", "oware"):
        scene, calibration = setup_of(board)
        reader = BoardReader(calibration)
        for seed in range(8):
            rendered = render(scene, {"A": 3, "b": 2}, None, Shot(hand=True, skin=scene.wood, seed=100 + seed, noise=3, jpeg=85))
            result = reader.read(rendered.image)
            if rendered.covered:
                frames, seen = frames + 1, seen + result.status.hand
                hidden += len(rendered.covered)
                unseen += sum(1 for label in rendered.covered if result.reading.pits[label] is None)
    assert seen == frames == 16
    assert unseen >= 0.9 * hidden


def test_a_shadow_over_the_board_is_light_not_a_hand(setup_of):
    """Someone leaning over the board casts a soft shadow, half the light, over part of it: the
    grain still shows there, so it is not a hand, and the light model follows it closely enough
    to read the pits in it. (Before shadows were told from hands: 6 of these 12 frames were
    taken for a hand, and 40 of the 156 pits misread or unseen.)"""
    frames_with_hand = misread = pits = 0
    for board in ("kalah", "oware"):
        scene, calibration = setup_of(board)
        reader = BoardReader(calibration)
        counts = {label: (3 * k) % 8 for k, label in enumerate(calibration.profile.layout.labels)}
        for seed in range(6):
            rendered = render(scene, counts, None, Shot(shadow=0.5, seed=200 + seed, noise=3, jpeg=85))
            result = reader.read(rendered.image)
            frames_with_hand += result.status.hand
            pits += len(counts)
            misread += sum(1 for label, n in counts.items() if result.reading.pits[label] is None
                           or result.reading.pits[label].most_likely != n)
    assert frames_with_hand == 0
    assert misread <= 0.01 * pits


def test_what_no_light_explains_counts_in_patches_not_specks(setup_of):
    """In a shadow on a board seen from afar (4 x 8), with the benchmark's hard shots (blur,
    noise, JPEG), sensor noise and JPEG where the wood went dark leave specks that no light
    explains. Summed over the wood they passed for a hand's skin: the rule before
    (140 mm2 of such change anywhere) took 5 of these 12 frames for a hand. Only patches at
    least UNLIT_WIDTH_MM wide count now, and of those only wood whose colour changed or whose
    grain is gone: with patches that only darkened counted too, one was still taken (until
    2026-12-02; docs/vision.md, section 4)."""
    scene, calibration = setup_of("bao-kenya", 13)
    reader = BoardReader(calibration)
    counts = {label: (3 * k) % 8 for k, label in enumerate(calibration.profile.layout.labels)}
    rng = np.random.default_rng(2)
    shots = [replace(random_shot(rng, hard=True), hand=False, shadow=0.5) for _ in range(12)]
    taken = sum(reader.read(render(scene, counts, None, shot).image).status.hand for shot in shots)
    assert taken == 0


def test_the_light_model_follows_a_shadow_over_the_shade_it_is_given(kalah_setup):
    """A soft shadow (40 % darker, a penumbra of 13 mm) across the middle of the board: the smooth
    fit alone misses it in the hollows, where the pits are read, by 13 % on average; followed over
    the wood, by 3 % (at most 7 %: a hollow's light is spread from the wood round it)."""
    _, calibration = kalah_setup
    empty = calibration.empty
    wood = _bare_wood(empty.shape[:2], calibration)
    light = LightModel(empty, wood)
    height, width = empty.shape[:2]
    patch = np.zeros((height, width), np.float32)
    cv2.ellipse(patch, (width // 2, height // 2), (width // 6, height), 0, 0, 360, 1.0, -1)
    darkness = 0.4 * cv2.GaussianBlur(patch, (0, 0), 20)
    board = (empty.astype(np.float32) * (1 - darkness)[..., None]).astype(np.uint8)
    smooth = light.log_gain(board).mean(axis=2)
    followed = light.followed(board, light.log_gain(board), None, wood).mean(axis=2)
    cells = smooth.shape
    truth = np.log(1 - darkness[4::8, 4::8])[:cells[0], :cells[1]]  # at each cell's centre
    hollows = np.zeros((height, width), np.uint8)
    for fit in calibration.hollows.values():
        hollows |= hollow_mask((height, width), fit)
    in_hollow = hollows[4::8, 4::8][:cells[0], :cells[1]] > 0
    assert np.abs(smooth - truth)[in_hollow].mean() > 0.1
    assert np.abs(followed - truth)[in_hollow].mean() < 0.04 and np.abs(followed - truth)[in_hollow].max() < 0.08


def _under_bands(setup, level: float, phase: float):
    """The empty board of ``setup`` (scene, calibration) lit ``level`` times as brightly in bands
    of a mains lamp's flicker, 25 % either way along the picture's rows of its oblique camera (a
    band 216 rows, at ``phase`` of one), clipped at the sensor's ceiling: the light model, the
    board, each cell's picture row, the true log gain per cell, and the cells to score (in a
    hollow, where the pits are read, and unclipped: a clipped hollow shows no light at all)."""
    scene, calibration = setup
    empty, ppm = calibration.empty, calibration.px_per_mm
    light = LightModel(empty, _bare_wood(empty.shape[:2], calibration))
    image_to_board = np.linalg.inv(camera_homography(scene, (0.0, 0.0, 0.0)))
    cell_rows = picture_rows(light.cells_shape, image_to_board, ppm / GAIN_CELL_PX)
    cells = (slice(0, cell_rows.shape[0]), slice(0, cell_rows.shape[1]))
    bands = 1 + 0.25 * np.cos(2 * np.pi * (picture_rows(empty.shape[:2], image_to_board, ppm) / 216 + phase))
    board = np.clip(empty.astype(np.float32) * level * bands[..., None], 0, 255).astype(np.uint8)
    truth = np.log(level * bands[4::8, 4::8])[cells]  # at each cell's centre
    hollows = np.zeros(empty.shape[:2], np.uint8)
    for fit in calibration.hollows.values():
        hollows |= hollow_mask(empty.shape[:2], fit)
    unclipped = reduce((board >= 250).any(axis=2).astype(np.float32), GAIN_CELL_PX)[cells] == 0
    return light, board, cell_rows, truth, (hollows[4::8, 4::8][cells] > 0) & unclipped


@pytest.mark.parametrize("board", ["kalah", "oware", "pass-it-on"])
@pytest.mark.parametrize("phase", [0.0, 0.33, 0.67])
def test_the_light_model_follows_a_mains_lamp_s_bands_across_the_picture_s_rows(setup_of, board, phase):
    """Bands of a mains lamp's flicker, 25 % either way along the picture's rows of an oblique
    camera, where they lie in any of three frames in a row: a smooth surface over the board
    misses them in the hollows, where the pits are read, by 6-21 % on average; given each cell's
    picture row, the light model follows them to under 2.5 % (and 6 % at most). They are
    measured on the rims between the hollows too (an Oware board's rows of pits hold no cell
    wholly of wood), and the smooth surface, which bends to follow a band's hump, is fitted again
    without them (before: 2.4-16 % on average, 5-35 % at most). With no bands, or a shadow over
    part of some rows (not bands: the board's halves differ), the rows change nothing."""
    light, banded, cell_rows, truth, scored = _under_bands(setup_of(board), 0.9, phase)
    smooth = light.log_gain(banded).mean(axis=2)
    followed = light.log_gain(banded, None, cell_rows).mean(axis=2)
    assert np.abs(smooth - truth)[scored].mean() > 0.06
    assert np.abs(followed - truth)[scored].mean() < 0.025 and np.abs(followed - truth)[scored].max() < 0.06
    empty = setup_of(board)[1].empty
    steady = (empty.astype(np.float32) * 0.9).astype(np.uint8)
    assert np.array_equal(light.log_gain(steady, None, cell_rows), light.log_gain(steady))
    shadow = np.zeros(empty.shape[:2], np.float32)  # over the left third of the middle rows: no bands
    shadow[empty.shape[0] // 3:2 * empty.shape[0] // 3, :empty.shape[1] // 3] = 0.4
    shaded = (empty.astype(np.float32) * (1 - cv2.GaussianBlur(shadow, (0, 0), 20))[..., None]).astype(np.uint8)
    assert np.array_equal(light.log_gain(shaded, None, cell_rows), light.log_gain(shaded))


@pytest.mark.parametrize(("board", "level", "phase"), [("kalah", 1.3, 0.67), ("kalah", 1.4, 0.0), ("oware", 1.4, 0.67)])
def test_bands_bright_enough_to_clip_the_wood_are_followed_through_their_peaks(setup_of, board, level, phase):
    """A bright lamp whose bands push a fifth of the board's pixels to the sensor's ceiling: the
    wood of a bright band is clipped, and its cells were left out of the bands' measure, so the
    band's peak went unmeasured and was guessed from its flanks, 7-14 % off on average in the
    hollows still read (up to 23 %). Measured, a clipped cell is a few percent darker than its
    light, and the bands are followed there to 1.8-3.5 % on average, 5-8 % at most."""
    light, banded, cell_rows, truth, scored = _under_bands(setup_of(board), level, phase)
    followed = light.log_gain(banded, None, cell_rows).mean(axis=2)
    assert np.abs(followed - truth)[scored].mean() < 0.04 and np.abs(followed - truth)[scored].max() < 0.11


@pytest.mark.parametrize("board", ["kalah", "pass-it-on", "4x8"])
def test_a_seed_on_the_wood_is_named_by_the_pit_it_lies_beside(setup_of, board):
    """A seed that rolled out while sowing is ringed on the camera view and named in the status
    by the pit it lies beside; the pits are read all the same (the referee sees a seed short)."""
    scene, calibration = setup_of(board)
    reader = BoardReader(calibration)
    hollows = nominal_hollows(calibration.profile, 1.0)
    piece = "chip" if calibration.profile.chips else "seed"
    rng = np.random.default_rng(5)
    for strays in (1, 2, 1):
        counts, white = random_counts(scene.profile, rng, pile=0.3)
        shot = replace(random_shot(rng, hard=False, hand=False), strays=strays)
        rendered = render(scene, counts, white, shot)
        result = reader.read(rendered.image)
        beside = sorted(min(hollows, key=lambda label: rim_gap(hollows[label], point)) for point in rendered.strays)
        assert sorted(result.status.strays) == beside
        assert result.status.message.startswith(f"{piece} on the wood by {beside[0]}" if strays == 1 else f"2 {piece}s on the wood by ")
        read = result.reading.most_likely_counts()
        assert all(read[label] == n for label, n in counts.items() if n <= 9)  # heaps are the counter's limit, not this test's
        where = project(scene, np.array(rendered.strays), shot)
        assert np.hypot(*(np.array(result.strays)[:, None] - where[None]).transpose(2, 0, 1)).min(axis=0).max() < 6
    drawn = result.draw(rendered.image)
    x, y = np.array(result.strays[0]).astype(int)
    red = (drawn[y - 20:y + 21, x - 20:x + 21] == (0, 0, 255)).all(axis=2)
    assert red.sum() > 100 and not red[15:26, 15:26].any()  # a red ring round it on the camera view


def test_a_seed_on_the_wood_beside_a_heap_over_its_rim_is_named(setup_of):
    """Seen in depth from 38 degrees, every other hollow holding a heap of 20 glass beads risen
    over its rim, a seed that rolled out beside a heap, on any side of it, is still named: a
    heap's top seen beyond its far rim runs on into the hollow's seeds, a seed that rolled out
    lies apart from them, past the rim's bare wood (``HandFinder._spilled_from_a_hollow``)."""
    scene, calibration = setup_of("2x6", kind="glass", relief=True)
    reader = BoardReader(calibration)
    hollows = nominal_hollows(calibration.profile, 1.0)
    counts = {label: 20 if k % 2 else 1 for k, label in enumerate(hollows)}
    rng = np.random.default_rng(8)
    beside_heaps = 0
    for _ in range(8):
        rendered = render(scene, counts, None, replace(random_shot(rng, hard=False, hand=False), strays=1))
        beside = min(hollows, key=lambda label: rim_gap(hollows[label], rendered.strays[0]))
        if counts[beside] == 20:
            beside_heaps += 1
            result = reader.read(rendered.image)
            assert result.status.strays == (beside,), result.status.message
    assert beside_heaps == 3


# Two frames of vision_bench.py (seed 1, Kalah set-up 4; seed 2, Pass It On set-up 4) with a soft
# shadow over part of the board and no seed on the wood, where the light model missed the light in
# patches of a seed's size (nothing shows to the eye), and a probe with no STRAY_CHANGE named a seed.
SHADOWED_FRAMES = [
    ((1, "2x6+stores", 4), Shot(
        gain=0.8777753740430335, tint=(0.9649950055022966, 1.051393000937665, 1.0294952363653787),
        gradient=(0.4332412371967645, 0.4410157235307844), nudge=(-2.633400465302117, -7.814843073497228, -0.011074235211160195),
        blur=3.456977014512926, blur_angle=0.837892834070436, noise=2.173731148819921, jpeg=51, shadow=0.5, seed=924673276),
     {"A": 1, "B": 1, "C": 4, "D": 7, "E": 16, "F": 13, "S": 1, "a": 12, "b": 4, "c": 2, "d": 7, "e": 4, "f": 11, "N": 6}, None),
    ((2, "2x5+outboxes", 4), Shot(
        gain=1.020143879027327, tint=(1.0259591388978555, 1.0125945510365193, 0.8238493879266677),
        gradient=(-0.110900509879298, 0.36758765847838654), nudge=(9.421008276005953, 6.40999511434549, 0.03667736753182404),
        blur=0.6548778193514593, blur_angle=2.373773711286633, noise=6.64282895649498, jpeg=83, shadow=0.5, seed=515651306),
     {"A": 14, "B": 3, "C": 2, "D": 1, "E": 3, "N": 3, "a": 8, "b": 5, "c": 1, "d": 0, "e": 9, "S": 5},
     {"A": 0, "B": 1, "C": 0, "D": 0, "E": 0, "N": 1, "a": 0, "b": 0, "c": 0, "d": 0, "e": 0, "S": 0}),
]


def benchmark_frame(setup_from, setup: tuple[int, str, int], shot: Shot, counts: dict, white: dict | None,
                    relief: bool = False):
    """A frame of ``vision_bench.py`` read as the benchmark reads it: set-up ``(seed, board,
    number)`` calibrated from its easy empty and start frames (seen in ``relief``, as
    ``--relief`` sees them, or painted flat), then ``shot`` of ``counts``."""
    seed, board, number = setup
    rng = np.random.default_rng([seed, list(PROFILE_LAYOUTS).index(board), number])
    scene, calibration = setup_from(board, rng, relief=relief)
    return BoardReader(calibration).read(render(scene, counts, white, shot).image)


@pytest.mark.parametrize("setup, shot, counts, white", SHADOWED_FRAMES, ids=["kalah", "pass-it-on"])
def test_patches_of_light_the_model_missed_are_not_seeds_on_the_wood(setup_from, setup, shot, counts, white):
    """A patch of another brightness than the wood's, too small for a hand, is a seed lying there
    only if it changed enough for its size (``STRAY_CHANGE``): where the light model misses the
    light under a shadow, patches of a seed's size change a little above the noise."""
    result = benchmark_frame(setup_from, setup, shot, counts, white)
    assert result.status.board_found and not result.status.strays, result.status.message


# Two frames of vision_bench.py --relief (seed 1; Kalah set-up 3, 4 x 8 set-up 0) with a soft shadow
# and no hand: in the dark of the shadow, noise and JPEG (quality 84 and 51) faded the wood's grain in
# patches that only darkened, which counted as a hand's skin until 2026-12-02 (4 of the run's 60
# shadow frames were taken for a hand then, none since).
DARK_SHADOW_FRAMES = [
    ((1, "2x6+stores", 3), Shot(
        gain=1.14476886650957, tint=(0.9422840925258358, 0.9808178346180011, 1.017894216339746),
        gradient=(-0.2009439864957133, -0.23484262763447353), nudge=(-1.6156537247937095, 2.2784643696090185, -0.021899232279707633),
        blur=1.0519387404221097, blur_angle=0.413106128628123, noise=2.1890665540097465, jpeg=84, shadow=0.5, seed=772839356),
     {"A": 0, "B": 1, "C": 1, "D": 2, "E": 2, "F": 5, "S": 0, "a": 5, "b": 2, "c": 6, "d": 11, "e": 8, "f": 0, "N": 4}),
    ((1, "4x8", 0), Shot(
        gain=0.8637425741911854, tint=(1.0263703439703251, 0.9481419034662824, 0.8754127040482297),
        gradient=(-0.344572906201456, 0.2647126037225553), nudge=(-7.2189720185950765, -0.09200519046990685, 0.01858539675357409),
        blur=2.3844416939850293, blur_angle=1.6658112227450077, noise=3.558517226283981, jpeg=51, shadow=0.5, seed=375054524),
     {"A1": 6, "A2": 0, "A3": 1, "A4": 5, "A5": 7, "A6": 1, "A7": 3, "A8": 0, "B1": 1, "B2": 4, "B3": 14, "B4": 9, "B5": 0,
      "B6": 0, "B7": 0, "B8": 4, "a1": 4, "a2": 8, "a3": 9, "a4": 3, "a5": 13, "a6": 0, "a7": 4, "a8": 6, "b1": 0, "b2": 4,
      "b3": 0, "b4": 3, "b5": 15, "b6": 0, "b7": 1, "b8": 4}),
]


@pytest.mark.parametrize("setup, shot, counts", DARK_SHADOW_FRAMES, ids=["kalah", "4x8"])
def test_wood_that_only_darkened_in_a_shadow_is_not_a_hand(setup_from, setup, shot, counts):
    """A patch of wood that only darkened, its grain faded but not gone, is a shadow's: skin
    changes the colour, and a hand the wood's colour hides the grain altogether. Nor is it a
    seed lying on the wood (seeds have a colour of their own; counted as one, each of these
    patches was). So the frame gives a Reading, every pit seen, and names no seed on the wood."""
    result = benchmark_frame(setup_from, setup, shot, counts, None, relief=True)
    assert result.status.board_found and not result.status.hand, result.status.message
    assert not result.status.strays, result.status.message
    assert all(pit is not None for pit in result.reading.pits.values())


# Three frames of vision_bench.py --relief (seed 1) with no seed on the wood: a heap of 19-20 glass
# beads, the tallest seeds, rises over its hollow's rim, and a camera 20-37 degrees from overhead sees
# its top beyond the rim on the side away from it, on the wood of the rectified picture. Before
# the spill rule (HandFinder._spilled_from_a_hollow) each was named a seed on the wood (by e, H and c).
SPILLED_FRAMES = [
    ((1, "2x6", 0), Shot(
        gain=1.1424659912074748, tint=(0.9935136094155255, 0.9088306213396989, 0.8652918863382828),
        gradient=(-0.029295229861218852, 0.4109881595021932), nudge=(9.797501177553357, -0.0584616594635623, -0.024330668538570698),
        blur=3.5071427812666123, blur_angle=2.166764933461874, noise=6.169147903013727, jpeg=43, seed=881166596),
     {"A": 9, "B": 0, "C": 1, "D": 1, "E": 3, "F": 9, "a": 6, "b": 15, "c": 2, "d": 1, "e": 19, "f": 8}),
    ((1, "2x8", 0), Shot(
        gain=0.9428512468544152, tint=(0.8493802043562418, 0.8864358740426783, 0.8308257803427355),
        gradient=(-0.10148348148944497, 0.04534051246729526), nudge=(-5.002374255567404, -5.965376450138178, 0.008312394905040932),
        blur=1.9338612814789868, blur_angle=1.0964948362535265, noise=6.8105564475979925, jpeg=70, seed=382250161),
     {"A": 0, "B": 4, "C": 1, "D": 0, "E": 4, "F": 20, "G": 2, "H": 20, "a": 2, "b": 9, "c": 3, "d": 14, "e": 1, "f": 0, "g": 8, "h": 4}),
    ((1, "2x8", 1), Shot(
        gain=1.0662206843843731, tint=(0.8853262793964309, 0.865875446584117, 0.9206418851638561),
        gradient=(-0.01662485746527037, -0.403810972343246), nudge=(0.6390559557053042, -0.07024283830018518, -0.014801716133108291),
        blur=2.9037813426427403, blur_angle=1.718634568140864, noise=1.8286149276184753, jpeg=53, seed=523929280),
     {"A": 2, "B": 3, "C": 5, "D": 9, "E": 2, "F": 0, "G": 20, "H": 13, "a": 5, "b": 4, "c": 20, "d": 14, "e": 4, "f": 10, "g": 0, "h": 3}),
]


@pytest.mark.parametrize("setup, shot, counts", SPILLED_FRAMES, ids=["2x6-e", "2x8-H", "2x8-c"])
def test_a_heap_seen_over_its_rim_is_not_a_seed_on_the_wood(setup_from, setup, shot, counts):
    """A patch on the wood that seeds' colour joins to ``SPILL_MM2`` or more of a hollow's inside,
    and that lies beyond the hollow away from the camera (within ``SPILL_ANGLE``), is the hollow's
    heap seen in depth over its far rim, not a seed that rolled out."""
    result = benchmark_frame(setup_from, setup, shot, counts, None, relief=True)
    assert result.status.board_found and not result.status.strays, result.status.message


def test_the_halo_of_a_lamp_s_reflection_is_not_a_seed_on_the_wood(setup_from):
    """A frame of vision_bench.py (seed 3, Pass It On set-up 0): a lamp's reflection near pit A
    washes out the wood around what the camera clipped, and without ``STRAY_GLARE_MM`` that halo
    was named a chip on the wood by A. Pits near the reflection are unseen, and nothing lies there."""
    shot = Shot(gain=0.9029254467419519, tint=(0.8270475471493811, 1.0080367852873346, 1.0023074170423172),
                gradient=(-0.43699095477237, -0.281365797806842), nudge=(3.228092371114009, -6.986134489505682, -0.022166737720630093),
                blur=1.4221137114170945, blur_angle=2.0343072789409065, noise=4.020848676077372, jpeg=50, glare=3.0, seed=366519234)
    counts = {"A": 7, "B": 1, "C": 0, "D": 0, "E": 5, "N": 5, "a": 0, "b": 2, "c": 1, "d": 10, "e": 13, "S": 3}
    white = {label: int(label in ("B", "N")) for label in counts}
    result = benchmark_frame(setup_from, (3, "2x5+outboxes", 0), shot, counts, white)
    assert result.status.board_found and "A" in result.status.pits_unseen, result.status.message
    assert not result.status.strays, result.status.message


def test_a_nudged_board_s_edge_bent_by_the_lens_is_not_a_hand(setup_from):
    """Found by a probe: the lens bends the board's near edge away from the straight line the
    markers' homography draws, and a nudge moves it a pixel against the empty board, so its
    bevel showed as a long thin change on the wood, taken for a hand: no Reading while the
    board stayed there. The edge band (``EDGE_MM``) is not bare wood."""
    rng = np.random.default_rng([61, 5, 2])
    scene, calibration = setup_from("4x8", rng)
    reader = BoardReader(calibration)
    counts, white = random_counts(scene.profile, rng)
    result = reader.read(render(scene, counts, white, random_shot(rng, hard=False, hand=False)).image)
    assert not result.status.hand and not result.status.pits_unseen, result.status.message


def test_covered_marker_keeps_reading(kalah_setup):
    scene, calibration = kalah_setup
    reader = BoardReader(calibration)
    frame = render(scene, {"C": 2}, None, Shot(seed=4)).image
    corners = project(scene, np.array(calibration.profile.marker_corners(0)))
    (x0, y0), (x1, y1) = corners.min(axis=0).astype(int) - 8, corners.max(axis=0).astype(int) + 8
    frame[y0:y1, x0:x1] = (40, 80, 120)  # a cup put down on the near-left marker
    result = reader.read(frame)
    assert result.status.board_found and 0 not in result.status.markers_seen
    assert "near-left" in result.status.message
    assert result.reading.pits["C"].most_likely == 2


def test_a_marker_that_comes_and_goes_does_not_move_the_board(kalah_setup):
    """A marker at the edge of being seen (blur, dim light, the frame's edge) is found in one frame
    and missed in the next; three markers place the board a little apart from four, and the
    stillness gate took that jump for motion: a still board never gave a Reading (a 4 x 8 board
    of the camera referee benchmark). While the markers in view stay put, so does the board."""
    scene, calibration = kalah_setup
    reader = BoardReader(calibration)
    shot = Shot(noise=3.0, jpeg=80, seed=4, exposure=1)
    corners = project(scene, np.array(calibration.profile.marker_corners(1)))
    (x0, y0), (x1, y1) = corners.min(axis=0).astype(int) - 8, corners.max(axis=0).astype(int) + 8
    results = []
    for k in range(4):
        frame = render(scene, {"C": 2, "d": 5}, None, replace(shot, exposure=k)).image
        if k % 2:
            frame[y0:y1, x0:x1] = (40, 80, 120)  # near-right not seen in every other frame
        results.append(reader.read(frame))
    assert [r.status.markers_seen for r in results] == [(0, 1, 2, 3), (0, 2, 3), (0, 1, 2, 3), (0, 2, 3)]
    assert all(np.array_equal(r.image_to_board, results[0].image_to_board) for r in results)
    assert all(r.reading.pits["d"].most_likely == 5 for r in results)


def test_one_marker_measured_apart_does_not_move_the_board_but_a_nudge_does(kalah_setup):
    """In a blurred, noisy frame one marker's corners can come out a few pixels from where they
    were (3.6 px in the camera referee benchmark), and the gate took the board's jump for motion.
    A rigid board cannot move one marker alone; moved as a whole, it is followed."""
    scene, calibration = kalah_setup
    reader = BoardReader(calibration)
    frame = render(scene, {"C": 2, "d": 5}, None, Shot(noise=3.0, jpeg=80, seed=4, exposure=1)).image
    first = reader.read(frame)
    corners = project(scene, np.array(calibration.profile.marker_corners(2)))
    (x0, y0), (x1, y1) = corners.min(axis=0).astype(int) - 6, corners.max(axis=0).astype(int) + 6
    one_off = frame.copy()
    one_off[y0 + 3:y1 + 3, x0 + 3:x1 + 3] = frame[y0:y1, x0:x1]  # far-right's picture 3 px off
    assert np.array_equal(reader.read(one_off).image_to_board, first.image_to_board)
    nudged = reader.read(np.roll(frame, (3, 3), axis=(0, 1)))  # the whole board 3 px on
    assert nudged.status.markers_seen == (0, 1, 2, 3)
    assert np.abs(nudged.image_to_board - first.image_to_board).max() > 1e-3
    assert nudged.reading.pits["d"].most_likely == 5


def test_half_a_board_reads_what_is_in_view(kalah_setup):
    scene, calibration = kalah_setup
    reader = BoardReader(calibration)
    frame = render(scene, {"A": 1, "F": 2}, None, Shot(seed=6)).image
    reader.read(frame)  # the board is known from a whole frame...
    half = frame[:, :, :].copy()
    half[:, 640:] = 0  # ...then the right half of the picture goes dark (lens half covered)
    result = reader.read(half)
    assert "board not found" in result.status.message or result.status.pits_unseen or result.status.hand
    assert result.reading.pits["F"] is None or result.status.hand or not result.status.board_found


def test_a_dim_frame_is_read_its_small_black_is_not_a_covered_lens(setup_of):
    """Under a weak lamp the markers' black squares and the shadows between seeds fall below
    DARK: taken for a covered lens, they made pits "out of view" (every board here, at a
    quarter of the light, lost two or three pits). Only black over DARK_PATCH_MM is unlit."""
    for board in ("kalah", "oware", "bao-kenya"):
        scene, calibration = setup_of(board)
        counts = {label: (k * 5) % 10 for k, label in enumerate(scene.profile.layout.labels)}
        frame = render(scene, counts, None, Shot(seed=11)).image
        dim = cv2.convertScaleAbs(frame, alpha=0.25)
        result = BoardReader(calibration).read(dim)
        assert result.status.message == "ok", (board, result.status.message)
        assert {label: pit.most_likely for label, pit in result.reading.pits.items()} == counts, board


def test_a_greyscale_picture_is_refused_as_such_not_misread(setup_of):
    """A greyscale camera, or a greyscale file read as colour: the counter, which learnt seeds in
    colour, read Kalah's start position so "ok" with its 4s as 2s and 3s. Refused, and named; the
    same picture in colour reads, as do a dim one and a dull, nearly grey one."""
    scene, calibration = setup_of("kalah")
    counts = {label: 4 for label in scene.profile.layout.labels}
    frame = render(scene, counts, None, Shot(seed=11)).image
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    for picture in (grey, cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR)):
        result = BoardReader(calibration).read(picture)
        assert result.status.message == NO_COLOUR and not result.status.board_found
        assert all(pit is None for pit in result.reading.pits.values())
    dull = cv2.addWeighted(frame, 0.3, cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), 0.7, 0)
    for picture in (frame, dull):
        assert BoardReader(calibration).read(picture).status.message == "ok"
    with pytest.raises(CalibrationError, match=f"^empty image: {re.escape(NO_COLOUR)}$"):
        calibrate("kalah", cv2.cvtColor(grey, cv2.COLOR_GRAY2BGR), frame)


def _glare_frames(scene, calibration, frames: int = 12):
    """Frames of one set-up with a lamp's reflection near a pit, and their counts."""
    counts = {label: (3 * k) % 8 for k, label in enumerate(calibration.profile.layout.labels)}
    return counts, [render(scene, counts, None, Shot(seed=300 + k, glare=3.0, noise=2.0, jpeg=85)) for k in range(frames)]


@pytest.mark.parametrize("board", ["nam-nam", "bao-kenya"])  # beans, pebbles
def test_a_lamp_s_reflection_in_a_hollow_is_glare_not_seeds(board, setup_of):
    """A reflection of the lamp in the varnish, near a pit and under its seeds: read as it came,
    every one of these 12 pits was misread on both boards (the white read as seeds). Whiter than
    any seed of the start position, it is glare: the pit is unseen and the status says so."""
    scene, calibration = setup_of(board)
    reader = BoardReader(calibration)
    counts, frames = _glare_frames(scene, calibration)
    misread = told = 0
    for rendered in frames:
        result = reader.read(rendered.image)
        told += result.status.message.startswith("glare on pits")
        for label in rendered.glared:
            pit = result.reading.pits[label]
            misread += pit is not None and pit.most_likely != counts[label]
    assert misread <= 1 and told >= 10


def _reflections_in_depth(board: str, setup_of, frames: int = 30):
    """``frames`` hard frames of ``board`` seen in depth, a lamp's reflection near a pit in each and
    2-12 seeds in every pit: (counts, the reader's pits, the pits the reflection washes out)."""
    scene, calibration = setup_of(board, relief=True)
    reader = BoardReader(calibration)
    rng = np.random.default_rng(3)
    for _ in range(frames):
        counts = {label: int(rng.integers(2, 13)) for label in calibration.profile.layout.labels}
        rendered = render(scene, counts, None, replace(random_shot(rng, hard=True), hand=False, glare=3.0))
        yield counts, reader.read(rendered.image).reading.pits, rendered.glared


def test_a_reflection_ringing_the_seeds_lying_in_it_is_glare(setup_of):
    """Seen in depth, the seeds lying in a lamp's reflection hide its middle, and the white left
    round them can be too thin for a patch 3 mm wide to fit: on this board of pebbles, 4 of these
    30 frames' pits under the reflection were misread so (by 1 to 21 seeds; 2 of them with the
    truth ruled out), and a referee called move after move illegal. No pebble clips
    (``NO_SEED_WHITER``), so white of any shape is the reflection's: its pit is unseen, and at
    most one is misread."""
    misread = sum(pits[label] is not None and pits[label].most_likely != counts[label]
                  for counts, pits, glared in _reflections_in_depth("bao-kenya", setup_of) for label in glared)
    assert misread <= 1


def test_white_ringing_seeds_that_may_be_white_beads_rules_no_count_out(setup_of):
    """On a board of glass beads, some of them white, white too thin for a patch round the seeds
    in a hollow may be a bead's: a doubt, its pit's reading hedged (``DOUBT``), as a patch of it
    is. Over these 30 frames, one pit under a reflection (12 read as 16) had its truth ruled out
    for the referee (below ``RULED_OUT``); now none has."""
    ruled_out = sum(pits[label] is not None and pits[label].counts[counts[label]] < RULED_OUT
                    for counts, pits, glared in _reflections_in_depth("kalah", setup_of) for label in glared)
    assert ruled_out == 0


def test_a_heap_sown_over_a_reflection_seen_before_rules_no_count_out(setup_of):
    """A lamp's reflection on a pit of two pebbles is seen (the pit unseen); then a heap of 10-16
    is sown over it, and the heap can hide it wholly: no white is left to find, and the lit
    pebbles were read several too many and sure of it (15 read as 26, 10 as 17: the truth ruled
    out for the referee in 2 of these 4 lamps' heaps). The reader remembers the pits a
    reflection was seen on and reads them hedged while seeds may cover it: no truth is ruled out."""
    scene, calibration = setup_of("bao-kenya", relief=True)
    labels = calibration.profile.layout.labels
    ruled_out = read = 0
    for lamp in range(4):
        rng = np.random.default_rng([lamp, 5])
        reader = BoardReader(calibration)
        seen = render(scene, {label: 2 for label in labels}, None, replace(random_shot(rng), hand=False, glare=3.0, lamp=lamp))
        (pit,) = seen.glared
        assert reader.read(seen.image).reading.pits[pit] is None, lamp
        for _ in range(5):
            counts = {label: int(rng.integers(2, 9)) for label in labels} | {pit: int(rng.integers(10, 17))}
            shot = replace(random_shot(rng), hand=False, glare=3.0, lamp=lamp)
            heap = reader.read(render(scene, counts, None, shot).image).reading.pits[pit]
            read += heap is not None
            ruled_out += heap is not None and heap.counts[counts[pit]] < RULED_OUT
    assert read >= 8 and ruled_out == 0


def test_a_reflection_is_forgotten_once_its_pit_is_read_empty(setup_of):
    """The lamp switched off: its pit, read empty with no white in it, has no reflection under its
    seeds any more, and its next heap is read as sure as any other pit, not hedged."""
    scene, calibration = setup_of("bao-kenya", relief=True)
    counts = {label: 2 for label in calibration.profile.layout.labels}
    reader = BoardReader(calibration)
    seen = render(scene, counts, None, Shot(seed=1, glare=3.0, lamp=2))
    (pit,) = seen.glared
    assert reader.read(seen.image).reading.pits[pit] is None
    assert reader.read(render(scene, counts | {pit: 0}, None, Shot(seed=2)).image).reading.pits[pit].most_likely == 0
    sown = reader.read(render(scene, counts | {pit: 3}, None, Shot(seed=3)).image).reading.pits[pit]
    assert sown.most_likely == 3 and max(sown.counts) > 1 - DOUBT + DOUBT / len(sown.counts)


def test_a_reflection_reaching_the_wood_is_glare_whatever_the_seeds(kalah_setup):
    """On a board of glass beads, some of them white, white in a hollow may be a bead; a
    reflection that reaches the bare wood is not, and its pit is unseen (read as it came, each
    of these three was misread)."""
    scene, calibration = kalah_setup
    reader = BoardReader(calibration)
    counts, frames = _glare_frames(scene, calibration, 9)
    for rendered in (frames[0], frames[5], frames[8]):
        result = reader.read(rendered.image)
        assert result.status.message.startswith("glare on pits")
        assert all(result.reading.pits[label] is None for label in rendered.glared)


def test_white_chips_under_a_bright_lamp_are_not_glare(setup_of):
    """White chips clip white under a bright lamp, as a reflection does; they lie in the
    hollows, are no wider than a chip and no whiter than the start position's: still counted."""
    scene, calibration = setup_of("pass-it-on")
    reader = BoardReader(calibration)
    counts, white = start_counts("pass-it-on")
    for seed in range(4):
        frame = render(scene, counts, white, Shot(seed=400 + seed, gain=1.25, noise=2.0, jpeg=85)).image
        assert (frame.min(axis=2) >= 250).sum() > 100  # the chips clip
        result = reader.read(frame)
        assert result.status.message == "ok"
        assert {label: pit.most_likely for label, pit in result.reading.pits.items()} == counts


@pytest.mark.parametrize("lamp", [2, 9])
def test_a_reflection_larger_than_any_seed_s_top_is_glare_however_narrow_and_dim(lamp, setup_of):
    """A Pass It On board seen in depth, a lamp's reflection long and narrow in a hollow holding
    none or one chip: it touches no wood, no 18 mm square fits in it, and it is no whiter than the
    white chips, so it was a doubt and read as two chips (hedged), move after move. But no seed's
    top shows as much white in one piece as it does: it is glare, its pit unseen."""
    scene, calibration = setup_of("pass-it-on", relief=True)
    counts, white = start_counts("pass-it-on")
    shot = replace(random_shot(np.random.default_rng([lamp, 9])), hand=False, glare=3.0, lamp=lamp)
    (pit,) = render(scene, counts, white, shot).glared
    for chips in (0, 1):
        rendered = render(scene, counts | {pit: chips}, white | {pit: 0}, shot)
        result = BoardReader(calibration).read(rendered.image)
        assert result.reading.pits[pit] is None and result.status.glared == (pit,), (chips, result.status.message)
        assert all(result.reading.pits[label].most_likely == n for label, n in counts.items() if label != pit)


@pytest.mark.parametrize("lamp, chips", [(2, 5), (11, 4), (39, 5)])
def test_a_reflection_larger_than_this_board_s_seeds_is_glare(lamp, chips, setup_of):
    """A Pass It On board seen in depth, a lamp's reflection in a hollow of four or five chips:
    its white, broken by the chips, is smaller than a disc 18 mm wide, so a board of any seeds
    took it for a white chip's and read the pit as 9 or 10, hedged. Calibration measured these
    chips (vision.seed_size), and the white is larger than any of them shows: glare, the pit unseen."""
    scene, calibration = setup_of("pass-it-on", relief=True)
    counts, white = start_counts("pass-it-on")
    shot = replace(random_shot(np.random.default_rng([lamp, 9])), hand=False, glare=3.0, lamp=lamp)
    (pit,) = render(scene, counts, white, shot).glared
    frame = render(scene, counts | {pit: chips}, white | {pit: 2}, shot).image
    result = BoardReader(calibration).read(frame)
    assert result.reading.pits[pit] is None and result.status.glared == (pit,), result.status.message
    assert all(result.reading.pits[label].most_likely == n for label, n in counts.items() if label != pit)
    any_seeds = BoardReader(replace(calibration, seed_area_mm2=None)).read(frame)
    assert any_seeds.status.glared == () and any_seeds.reading.pits[pit].most_likely > chips


def test_the_white_one_seed_may_show_follows_the_board_s_seeds_within_bounds():
    """1.6 times the measured seed, but never under a 12 mm disc (a failed measure must not take
    white chips for glare) nor over an 18 mm one (the ceiling of a board never measured)."""
    assert seed_top_mm2(None) == pytest.approx(254.47, abs=0.01)
    assert seed_top_mm2(100.0) == pytest.approx(160.0)
    assert seed_top_mm2(30.0) == 113.0
    assert seed_top_mm2(400.0) == seed_top_mm2(None)


def test_white_that_may_be_a_reflection_keeps_every_count_possible(setup_of):
    """Clipped white inside a hollow that the finder cannot tell from a white chip: read as the
    counter reads it, but hedged (``DOUBT``), so that no count is ruled out for the referee, which
    a reflection read as chips would otherwise make cry "illegal" after every move. A frame whose
    chips do not clip is read unhedged."""
    scene, calibration = setup_of("pass-it-on")
    reader = BoardReader(calibration)
    counts, white = start_counts("pass-it-on")

    def hedged_pits(gain: float) -> set[str]:
        result = reader.read(render(scene, counts, white, Shot(seed=400, gain=gain, noise=2.0, jpeg=85)).image)
        assert {label: pit.most_likely for label, pit in result.reading.pits.items()} == counts
        return {label for label, pit in result.reading.pits.items()
                if min(pit.counts) >= DOUBT / len(pit.counts) and min(pit.white) >= DOUBT / len(pit.white)}

    assert hedged_pits(1.25)  # the chips clip
    assert not hedged_pits(1.0)


def test_a_hedged_misread_leaves_the_referee_the_move_the_other_pits_tell():
    """What the hedge is for: a reflection read as eight seeds more in a pit the move did not
    touch made the referee call the move illegal; hedged, the move is committed. Every count of
    a store's window (81) too keeps more than the referee's ``RULED_OUT``."""
    pit_counts, store_counts = (json.loads(model_paths(MODELS, kind)[1].read_text())["counts"] for kind in ("pit", "store"))
    start = rules.variant("kalah").start()
    after, _ = start.variant.play(start, start.variant.parse_move(start, "C"))

    def read(n: int) -> tuple[float, ...]:
        return tuple(0.999 if k == n else 0.001 / (pit_counts - 1) for k in range(pit_counts))

    pits = {label: PitReading(read(n)) for label, n in zip(after.variant.layout.labels, after.pits)}
    misread = {**pits, "a": PitReading(read(after.pits[after.variant.layout.index_of("a")] + 8))}
    assert Referee().judge([start], Reading(misread, "vision")).kind == "illegal"
    hedged_reading = {**misread, "a": PitReading(tuple(hedged(np.array(misread["a"].counts)).tolist()))}
    verdict = Referee().judge([start], Reading(hedged_reading, "vision"))
    assert verdict.kind == "move" and verdict.best.seen_board == board_of(after)
    assert hedged(np.full(store_counts, 0.0)).min() > RULED_OUT


def _accuracy_set(calibrated):
    stats = {"exact_small": [], "exact_0": [], "exact_5_9": [], "within_one_to_9": [], "within_one_10_19": [],
             "in_set": [], "white": []}
    for board in PROFILE_LAYOUTS:
        scene, calibration = calibrated(board)
        reader = BoardReader(calibration)
        rng = np.random.default_rng([99, len(board)])
        for _ in range(4):
            counts, white = random_counts(scene.profile, rng)
            rendered = render(scene, counts, white, random_shot(rng, hard=True, hand=False))
            result = reader.read(rendered.image)
            assert result.status.board_found
            for label, truth in counts.items():
                pit = result.reading.pits[label]
                if pit is None:
                    continue
                guess = pit.most_likely
                if truth == 0:
                    stats["exact_0"].append(guess == 0)
                elif truth <= 4:
                    stats["exact_small"].append(guess == truth)
                elif truth <= 9:
                    stats["exact_5_9"].append(guess == truth)
                if truth <= 9:
                    stats["within_one_to_9"].append(abs(guess - truth) <= 1)
                elif truth <= 19:
                    stats["within_one_10_19"].append(abs(guess - truth) <= 1)
                stats["in_set"].append(truth in pit.credible_set(0.95))
                if white is not None:
                    stats["white"].append(min(pit.most_likely_white, guess) == white[label])
    return {name: float(np.mean(values)) for name, values in stats.items()}


@pytest.fixture(scope="module")
def accuracy(setup_of):
    return _accuracy_set(setup_of)


@pytest.mark.parametrize("measure, floor", [
    # measured 1.0, 1.0, 0.99, 1.0, 0.943, 0.998, 1.0 (the shipped counter, this fixed set of 53 heaps of 10-19; with
    # the heap networks before, 0.981 / 0.995 and 0.962 / 0.998 within one for 10-19 / in the 95 % set; with none, 0.943 / 0.993)
    ("exact_0", 0.99), ("exact_small", 0.99), ("exact_5_9", 0.97), ("within_one_to_9", 0.99),
    ("within_one_10_19", 0.90), ("in_set", 0.98), ("white", 0.98),
])
def test_accuracy_floor_on_hard_rendered_frames(accuracy, measure, floor):
    assert accuracy[measure] >= floor, accuracy


@pytest.fixture(scope="module")
def accuracy_in_depth(setup_of):
    return _accuracy_set(lambda board: setup_of(board, relief=True))


@pytest.mark.parametrize("measure, floor", [
    # measured 1.0, 1.0, 0.864, 1.0, 0.755, 0.986, 1.0 (the counter trained further on boards seen in depth since
    # 2026-11-28, thirteenth session; the one before, trained on flat boards only: 1.0, 1.0, 0.748, 0.994, 0.604, 0.947, 1.0)
    ("exact_0", 0.99), ("exact_small", 0.99), ("exact_5_9", 0.84), ("within_one_to_9", 0.99),
    ("within_one_10_19", 0.70), ("in_set", 0.97), ("white", 0.98),
])
def test_accuracy_floor_on_hard_rendered_frames_of_boards_seen_in_depth(accuracy_in_depth, measure, floor):
    """A real camera sees a board in depth (``Scene.relief``): the near rim of each hollow hides the
    near edge of its floor, and its seeds show nearer the camera than they lie. The counter,
    trained on boards painted flat only until 2026-11-28, misread them (docs/vision.md, section 7,
    *Boards seen in depth*)."""
    assert accuracy_in_depth[measure] >= floor, accuracy_in_depth


def _board_without_markers():
    """A 2 x 6 board of pebbles calibrated by its corners in the empty picture (its markers are
    drawn but not used), and counts to lay out on it: (scene, corners, calibration, counts)."""
    rng = np.random.default_rng(31)
    scene = random_scene("2x6", rng, "pebble")
    corners = project(scene, np.array(scene.profile.board_corners())).ravel()
    calibration = calibrate_empty("2x6", render(scene, {}, None, Shot(seed=1)).image, corners)
    counts = {label: int(n) for label, n in zip(scene.profile.layout.labels, rng.integers(0, 8, 12))}
    return scene, corners, calibration, counts


@pytest.mark.parametrize("nudge", [(5.0, -3.5, 0.01), (-4.0, 2.5, -0.03), (-24.0, 16.0, 0.02)])
def test_a_board_without_markers_is_followed_when_nudged(nudge):
    """Corners given once on the empty picture, then the board is pushed 6 mm and turned a little,
    or pushed 5 mm and turned 1.7 degrees (its ends 7 mm off), or pushed 29 mm (beyond the 25 mm
    followed until the twelfth session), while seeds are laid out under a
    lamp lighting one end more: the reader finds the move against the empty board and reads
    every pit right, where the fixed corners alone cut every hollow off by the nudge (and a
    shift alone leaves the turned board's ends off, where the wood's edge looks like a hand)."""
    scene, corners, calibration, counts = _board_without_markers()
    profile = scene.profile
    nudged = render(scene, counts, None, Shot(seed=2, nudge=nudge, gradient=(0.3, -0.2))).image
    result = BoardReader(calibration).read(nudged)
    assert result.status.message == "ok"
    assert result.reading.most_likely_counts() == counts
    wood = _bare_wood(calibration.empty.shape[:2], calibration)
    finder = NudgeFinder(calibration.empty, calibration.px_per_mm, wood)
    grey, at_rest = cv2.cvtColor(nudged, cv2.COLOR_BGR2GRAY), homography_from_corners(corners, profile)
    shift = finder.shift(grey, at_rest)
    assert shift is not None and shift.nudge
    motion = shift.motion_mm
    centre = np.array(profile.size) / 2
    moved = motion[:2, :2] @ centre + motion[:2, 2] - centre
    assert abs(np.hypot(*moved) - np.hypot(*nudge[:2])) < 1.5, moved
    assert abs(abs(np.arctan2(motion[1, 0], motion[0, 0])) - abs(nudge[2])) < 0.005, motion
    # taken back, what is left moves no corner of the board by a millimetre
    left = finder.shift(grey, moved_back(at_rest, motion))
    outline = np.array(profile.board_corners())
    assert left is None or np.abs(outline @ left.motion_mm[:2, :2].T + left.motion_mm[:2, 2] - outline).max() < 1.0, left
    assert finder.shift(cv2.cvtColor(render(scene, {}, None, Shot(seed=1)).image, cv2.COLOR_BGR2GRAY), at_rest) is None


def test_a_turned_board_without_markers_is_followed_through_a_hard_frame():
    """A long board turned 3 degrees, in a frame with motion blur and a lamp lighting one end
    more, with a hand over it, and with a shadow over part of it: the shifts of its two ends
    give the turn, and ECC finds it, to a twentieth of a degree, whether or not the finder
    has seen the board before. (Phase correlation of the whole board sees no turn, and a
    hand or a shadow's edge pulls ECC towards itself: the finder of the eleventh session,
    started from the whole board's shift on the whole wood, was not sure of this hard frame.)"""
    rng = np.random.default_rng(31)
    scene = random_scene("2x8+stores", rng)
    profile = scene.profile
    corners = project(scene, np.array(profile.board_corners())).ravel()
    calibration = calibrate_empty(profile.name, render(scene, {}, None, Shot(seed=1)).image, corners)
    counts = {label: int(n) for label, n in zip(profile.layout.labels, rng.integers(0, 8, len(profile.layout.labels)))}
    nudge = (-4.0, 3.0, -0.05)

    def grey(shot: Shot) -> np.ndarray:
        return cv2.cvtColor(render(scene, counts, None, shot).image, cv2.COLOR_BGR2GRAY)

    def turn(shift) -> float:
        return abs(float(np.arctan2(shift.motion_mm[1, 0], shift.motion_mm[0, 0]))) if shift is not None else 0.0
    wood = _bare_wood(calibration.empty.shape[:2], calibration)
    at_rest = homography_from_corners(corners, profile)
    easy = grey(Shot(seed=2, nudge=nudge))
    hard = Shot(seed=3, nudge=nudge, blur=3.0, blur_angle=0.3, gradient=(0.45, 0.3), noise=6.0, jpeg=50)
    for shot in (hard, replace(hard, hand=True), replace(hard, shadow=0.5)):
        assert abs(turn(NudgeFinder(calibration.empty, calibration.px_per_mm, wood).shift(grey(shot), at_rest)) - 0.05) < 0.001
        finder = NudgeFinder(calibration.empty, calibration.px_per_mm, wood)
        assert abs(turn(finder.shift(easy, at_rest)) - 0.05) < 0.001
        assert abs(turn(finder.shift(grey(shot), at_rest)) - 0.05) < 0.001


def test_a_board_without_markers_moved_too_far_asks_for_its_corners_again():
    """Pushed 5 cm, the board is no longer where its corners say, and too far to follow as a
    nudge: no pit is read from the stale corners (they would be read off the wood), and the
    status says what to do."""
    scene, _, calibration, counts = _board_without_markers()
    result = BoardReader(calibration).read(render(scene, counts, None, Shot(seed=2, nudge=(48.0, -16.0, 0.02))).image)
    assert result.status.message == BOARD_MOVED and not result.status.board_found
    assert all(pit is None for pit in result.reading.pits.values())


def test_a_board_without_markers_that_cannot_be_lined_up_reads_no_pit():
    """Pushed 4.6 cm in a dim, blurred frame with a hand beside it: ECC lines the board up with
    its empty picture from no start, neither end's shift clearly shows the push, and the hand
    finder sees no hand. Read from its stale corners it said "ok" with the counts of the wrong
    places; now no pit is read, and the status says what to check."""
    scene, _, calibration, counts = _board_without_markers()
    shot = Shot(gain=0.72, tint=(0.97, 1.0, 0.83), gradient=(-0.32, 0.39), nudge=(45.0, -12.0, 0.01), blur=3.1,
                blur_angle=1.16, noise=4.6, jpeg=64, hand=True, seed=711722200)
    result = BoardReader(calibration).read(render(scene, counts, None, shot).image)
    assert result.status.message == LOST and not result.status.hand
    assert all(pit is None for pit in result.reading.pits.values())


def test_the_light_is_fitted_again_without_the_hand(kalah_setup):
    """A bright lamp clips the red of much of the wood, and an arm lies over the board: with the
    clipped wood left out, the arm's skin is a large share of what is left, and the light fitted
    with it is off by 7 %. Fitted again without the hand, it is today's light."""
    _, calibration = kalah_setup
    empty = calibration.empty
    wood = _bare_wood(empty.shape[:2], calibration)
    light = LightModel(empty, wood)
    gain = np.float32([1.0, 1.0, 0.97 * 255 / np.percentile(empty[..., 2][wood], 60)])  # 40 % of the wood's red clips
    board = np.clip(empty.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    height, width = board.shape[:2]
    cv2.line(board, (width // 3, height), (width // 2, height // 3), (110, 140, 190), 100)  # the arm
    view = BoardView(board, np.eye(3), (), None, light.log_gain(board))
    assert np.abs(view.log_gain - np.log(gain)).max() > 0.06  # the arm has bent the first fit
    cover, refitted = BoardReader(calibration).without_hand(view)
    assert cover.hand is not None and cover.hand[height - 5, width // 3]
    assert np.abs(refitted.log_gain - np.log(gain)).max() < 0.03
