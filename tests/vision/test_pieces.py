"""A mask's pieces: the same labels and areas as OpenCV's connectedComponentsWithStats gives.

The reader's masks are mostly background with a few pieces (white of a reflection, a hand's
change, seeds on the wood), so they are drawn here that way, on the rectified board's size,
and also full and empty, where the background's area is the edge case.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.pieces import chosen_pieces, pieces_of


def sparse_mask(seed: int, shape: tuple[int, int] = (366, 810)) -> np.ndarray:
    """A board-sized uint8 mask of a few blobs and specks, touching and apart, some on the border."""
    rng = np.random.default_rng(seed)
    mask = np.zeros(shape, np.uint8)
    for _ in range(int(rng.integers(1, 12))):
        centre = (int(rng.integers(0, shape[1])), int(rng.integers(0, shape[0])))
        axes = (int(rng.integers(1, 30)), int(rng.integers(1, 30)))
        cv2.ellipse(mask, centre, axes, float(rng.uniform(0, 180)), 0, 360, 255, -1)
    mask[rng.random(shape) < 0.002] = 255
    return mask


def with_stats(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    return count, labels, stats[:, cv2.CC_STAT_AREA]


@pytest.mark.parametrize("seed", range(8))
def test_pieces_and_their_areas_are_opencvs(seed: int) -> None:
    mask = sparse_mask(seed)
    count, labels, areas = with_stats(mask)
    found = pieces_of(mask)
    assert found.count == count > 1
    np.testing.assert_array_equal(found.labels, labels)
    np.testing.assert_array_equal(found.areas, areas)


@pytest.mark.parametrize("fill", [0, 1, 255])
def test_an_empty_or_a_full_mask_has_the_background_or_one_piece(fill: int) -> None:
    mask = np.full((40, 60), fill, np.uint8)
    found = pieces_of(mask)
    expected = with_stats(mask)
    assert found.count == expected[0] == (1 if fill == 0 else 2)
    np.testing.assert_array_equal(found.areas, expected[2])


def test_chosen_pieces_marks_every_pixel_of_those_pieces_and_no_other() -> None:
    found = pieces_of(sparse_mask(3))
    which = [1, found.count - 1]
    np.testing.assert_array_equal(chosen_pieces(found.labels, found.count, which), np.isin(found.labels, which))
    assert not chosen_pieces(found.labels, found.count, []).any()
