"""The grain test of the hand finder on a calibrated board's own empty picture."""

import cv2
import numpy as np
import pytest

from vision.grain import BLURS_MM, Grain
from vision.reader import _bare_wood


def _brightness(board: np.ndarray) -> np.ndarray:
    return cv2.log(cv2.cvtColor(board, cv2.COLOR_BGR2GRAY).astype(np.float32) / 255 + 0.03)


def _grain_of(calibration) -> tuple[Grain, np.ndarray]:
    wood = _bare_wood(calibration.empty.shape[:2], calibration)
    return Grain(_brightness(calibration.empty), calibration.px_per_mm, wood), wood


def test_flat_wood_colour_over_the_grain_is_found_and_nothing_else(kalah_setup):
    """A hand-sized patch (60 x 50 mm) of the wood's own mean colour, with sensor noise and
    dimmer light all over: the wood under the patch has lost its grain, the rest has not."""
    calibration = kalah_setup[1]
    grain, wood = _grain_of(calibration)
    ppm = calibration.px_per_mm
    frame = calibration.empty.astype(np.float32) * 0.8 + np.random.default_rng(1).normal(0, 2.5, calibration.empty.shape)
    y0, x0 = frame.shape[0] // 2, frame.shape[1] // 2

    def around(mm_x: float, mm_y: float) -> tuple[slice, slice]:
        return slice(y0 - round(mm_y * ppm), y0 + round(mm_y * ppm)), slice(x0 - round(mm_x * ppm), x0 + round(mm_x * ppm))
    patch = around(30, 25)
    frame[patch] = frame[patch].reshape(-1, 3).mean(axis=0)
    frame[patch] += np.random.default_rng(2).normal(0, 2.5, frame[patch].shape)
    check = grain.check(_brightness(np.clip(frame, 0, 255).astype(np.uint8)), wood)
    assert check is not None
    lost = check.lost
    inner, outside = np.zeros_like(wood), wood.copy()
    inner[around(22, 17)] = True  # 8 mm inside the patch's edge
    outside[around(38, 33)] = False  # 8 mm outside it
    assert lost[inner & wood].mean() > 0.8
    assert lost[outside].mean() < 0.005


def test_a_frame_too_blurred_to_show_grain_is_left_to_the_colour_test(kalah_setup):
    """Blurred by 4 mm the wood no longer follows the empty board's grain: no masks, and the
    grain's energy says the frame is blurred past the last blur measured."""
    calibration = kalah_setup[1]
    grain, wood = _grain_of(calibration)
    blurred = grain.check(_brightness(cv2.GaussianBlur(calibration.empty, (0, 0), 4 * calibration.px_per_mm)), wood)
    assert blurred is not None and not blurred.readable and blurred.lost is None
    assert blurred.energy < 0.1 and grain.blur_mm(blurred.energy) == BLURS_MM[-1]
    sharp = grain.check(_brightness(calibration.empty), wood)
    assert sharp.readable and not sharp.lost.any()
    assert sharp.energy == pytest.approx(1.0) and grain.blur_mm(sharp.energy) == 0.0


@pytest.mark.parametrize("blur_mm", [0.5, 1.0, 1.5])
def test_how_far_the_grain_has_faded_says_how_blurred_the_frame_is(kalah_setup, blur_mm):
    """The empty board blurred by a lens of ``blur_mm`` (a Gaussian, its sigma in mm), under
    dimmer light and with a little sensor noise: the grain says the frame is that much blurrier
    than the empty board, within a tenth of a millimetre or so (noise adds a little energy in
    the grain's scales, so the blur is found a little short, never long)."""
    calibration = kalah_setup[1]
    grain, wood = _grain_of(calibration)
    ppm = calibration.px_per_mm
    frame = cv2.GaussianBlur(calibration.empty.astype(np.float32), (0, 0), blur_mm * ppm) * 0.8
    frame += np.random.default_rng(3).normal(0, 1.0, frame.shape)
    check = grain.check(_brightness(np.clip(frame, 0, 255).astype(np.uint8)), wood)
    assert check is not None and check.readable
    assert blur_mm - 0.15 <= grain.blur_mm(check.energy) <= blur_mm + 0.05, grain.blur_mm(check.energy)


def test_wood_without_grain_has_none_to_lose(kalah_setup):
    calibration = kalah_setup[1]
    wood = _bare_wood(calibration.empty.shape[:2], calibration)
    painted = np.full_like(calibration.empty, 120)
    grain = Grain(_brightness(painted), calibration.px_per_mm, wood)
    assert grain.check(_brightness(calibration.empty), wood) is None


def test_the_grain_beside_a_cover_tells_the_sharpness_without_it(kalah_setup):
    """Two thirds of the board under something flat (a hand has no grain): over all the wood
    the grain seems faded, over the wood beside it, as strong as ever."""
    calibration = kalah_setup[1]
    grain, wood = _grain_of(calibration)
    frame = calibration.empty.copy()
    most = 2 * frame.shape[1] // 3
    frame[:, :most] = frame[:, :most].reshape(-1, 3).mean(axis=0).astype(np.uint8)
    check = grain.check(_brightness(frame), wood)
    covered = np.zeros(wood.shape, bool)
    covered[:, :most] = True
    assert check.energy < 0.5
    assert check.energy_outside(covered) == pytest.approx(1.0, abs=0.05)
    assert check.energy_outside(np.ones(wood.shape, bool)) is None
