"""The pieces of a mask: its 8-connected parts, labelled, with the area of each.

The reader labels masks of the rectified board every frame (what changed on the wood, white
that may be a lamp's reflection, seeds lying on the wood) and they are nearly all background.
OpenCV's ``connectedComponentsWithStats`` gathers its statistics at every pixel, the
background's too, and on such a mask took 4.5 times as long as labelling it alone; here
the areas are counted over the labelled pixels only: the same labels and areas
(docs/vision.md, section 4, *Pieces of a mask*).
"""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np


class Pieces(NamedTuple):
    """A mask's 8-connected pieces: ``count`` labels (0 is the background), the label of every
    pixel, and the area in pixels of every label (the background's included)."""

    count: int
    labels: np.ndarray
    areas: np.ndarray


def pieces_of(mask: np.ndarray) -> Pieces:
    """The 8-connected pieces of ``mask`` (uint8, nonzero where set) and their areas."""
    count, labels = cv2.connectedComponents(mask)
    areas = np.bincount(labels[mask > 0], minlength=count)
    areas[0] = mask.size - areas[1:].sum()
    return Pieces(count, labels, areas)


def chosen_pieces(labels: np.ndarray, count: int, which: np.ndarray | list[int]) -> np.ndarray:
    """Where ``labels`` (of ``count`` labels) is one of ``which`` (bool): one look-up per pixel."""
    table = np.zeros(count, bool)
    table[np.asarray(which, dtype=np.intp)] = True
    return table[labels]
