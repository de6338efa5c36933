"""The windows the seed counter sees: centred on each hollow, at the counter's scale, today's light divided out."""

import cv2
import numpy as np
import pytest

from calibration.calibrate import calibrate_empty
from vision.patches import PX_PER_MM, PatchCutter, PatchShape, network_input
from vision.reader import BoardReader, _bare_wood
from vision.rectify import LightModel
from vision.render import Shot, render


def test_every_window_is_centred_on_its_hollow(kalah_setup):
    _, calibration = kalah_setup
    cutter = PatchCutter(calibration)
    board = calibration.empty.copy()
    for fit in calibration.hollows.values():  # a bright dot at every hollow's centre
        x, y = (int(round(v)) for v in fit.centre)
        board[y - 1:y + 2, x - 1:x + 2] = 255
    no_light = np.zeros((1, 1, 3), np.float32)  # log gain 0: the light of the empty board
    for kind, labels in cutter.labels.items():
        width, height = PatchShape.of(kind).size
        windows = cutter.relit(board, no_light)[kind].reshape(len(labels), height, width, 3)
        for label, window in zip(labels, windows):
            y, x = np.unravel_index(np.argmax(window.sum(axis=2)), window.shape[:2])
            assert abs(x - (width - 1) / 2) <= 1.5 and abs(y - (height - 1) / 2) <= 1.5, label
    assert sorted(cutter.labels) == ["pit", "store"] and len(cutter.labels["store"]) == 2


def test_windows_keep_their_millimetres_whatever_the_calibration_scale(kalah_setup):
    """A board calibrated at 2 px/mm gives the counter the same windows as at the default 1.5 px/mm,
    both resampled to the counter's own scale."""
    scene, calibration = kalah_setup
    frame = render(scene, {}, None, Shot(seed=2)).image
    finer = calibrate_empty("kalah", frame, px_per_mm=2.0)
    assert len({calibration.px_per_mm, finer.px_per_mm, PX_PER_MM}) == 3
    own, other = PatchCutter(calibration).empty("pit"), PatchCutter(finer).empty("pit")
    assert own.shape == other.shape == (12 * 46, 52, 3)
    assert np.abs(own.astype(np.float32) - other.astype(np.float32)).mean() < 6.0


def test_todays_light_is_divided_out(kalah_setup):
    """Under a dimmer, warmer lamp the relit windows look like the empty board's own."""
    _, calibration = kalah_setup
    cutter = PatchCutter(calibration)
    light = LightModel(calibration.empty, _bare_wood(calibration.empty.shape[:2], calibration))
    dim = np.clip(calibration.empty.astype(np.float32) * np.float32([0.55, 0.7, 0.8]), 0, 255).astype(np.uint8)
    relit = cutter.relit(dim, light.log_gain(dim))["pit"].astype(np.float32)
    unlit = cutter.relit(dim, light.log_gain(calibration.empty))["pit"].astype(np.float32)
    empty = cutter.empty("pit").astype(np.float32)
    assert np.abs(relit - empty).mean() < 3.0 < np.abs(unlit - empty).mean()


def test_network_input_pairs_each_window_with_its_empty_board():
    relit = np.arange(2 * 3 * 4 * 3, dtype=np.uint8).reshape(2 * 3, 4, 3)
    empty = np.full_like(relit, 255)
    x = network_input(relit, empty, 2)
    assert x.shape == (2, 6, 3, 4) and x.dtype == np.float32
    assert x[1, 2, 0, 0] == pytest.approx(relit[3, 0, 2] / 255 - 0.5) and (x[:, 3:] == 0.5).all()


def test_a_channel_the_camera_clipped_is_fitted_on_the_wood_it_did_not_clip(kalah_setup):
    """Brighter red light that drives the brightest wood to 255: the clipped wood would say the
    light rose less than it did, and the hollows, divided by too small a gain, would look redder
    than the empty board (a lone bean then reads as none)."""
    _, calibration = kalah_setup
    empty = calibration.empty
    wood = _bare_wood(empty.shape[:2], calibration)
    light = LightModel(empty, wood)
    gain = np.float32([1.0, 1.0, 1.0])
    gain[2] = 0.97 * 255 / np.percentile(empty[..., 2][wood], 40)  # the red of about half the wood clips
    brighter = np.clip(empty.astype(np.float32) * gain, 0, 255).astype(np.uint8)
    assert 0.4 < (brighter[..., 2][wood] == 255).mean() < 0.7
    red = light.log_gain(brighter)[..., 2]
    assert np.abs(red - np.log(gain[2])).max() < 0.04, (float(red.min()), float(np.log(gain[2])))


def test_the_heap_windows_are_the_pit_windows_at_the_boards_own_scale(kalah_setup):
    """The heap network's windows (vision.counter.SeedCounter.read_pits) cover the same
    millimetres round the same playing pits, at the 1.5 px/mm calibration rectifies at: no
    resampling, every pixel of the board kept."""
    _, calibration = kalah_setup
    heap, pit = PatchShape.of("heap"), PatchShape.of("pit")
    assert heap.px_per_mm == calibration.px_per_mm == 1.5 and pit.px_per_mm == PX_PER_MM
    assert heap.size == (78, 69) and pit.size == (52, 46) and heap.hollows == pit.hollows == "pit"
    cutter, heaps = PatchCutter(calibration), PatchCutter(calibration, kinds=("heap",))
    assert heaps.labels == {"heap": cutter.labels["pit"]}
    for k, label in enumerate(heaps.labels["heap"]):  # the empty board's own pixels round each hollow's centre
        own = cv2.getRectSubPix(calibration.empty, heap.size, calibration.hollows[label].centre)
        window = heaps.empty("heap")[k * 69:(k + 1) * 69]
        assert np.abs(window.astype(np.int16) - own).max() <= 2, label


def test_a_few_windows_cut_alone_are_those_windows_of_the_whole_cut(kalah_setup):
    """The reader cuts heap windows only for the pits it reads as heaps (a frame's time); they
    must be the very windows a whole cut gives (what training cut), seeds on the wood emptied too."""
    scene, calibration = kalah_setup
    frame = render(scene, {"B": 12, "E": 15, "d": 9}, None, Shot(seed=3, gain=0.9)).image
    view = BoardReader(calibration).view(frame)
    emptied = np.zeros(view.board.shape[:2], bool)
    emptied[::7, ::5] = True
    cutter = PatchCutter(calibration, kinds=("heap",))
    chosen = [cutter.labels["heap"].index(label) for label in ("E", "B", "d")]
    whole = cutter.relit(view.board, view.log_gain, emptied)["heap"]
    alone = cutter.relit(view.board, view.log_gain, emptied, {"heap": chosen})["heap"]
    assert alone.shape == (3 * 69, 78, 3)
    for row, k in enumerate(chosen):
        assert np.array_equal(alone[row * 69:(row + 1) * 69], whole[k * 69:(k + 1) * 69])
    assert np.array_equal(cutter.stack(alone, "heap", chosen), cutter.stack(whole, "heap")[chosen])
