"""The hollows of the rectified board, packed into one small image.

Seeds are only ever looked for inside the hollows, which cover about half of
the rectified board. Every per-pixel step of seed finding (blur, log, the
comparison with the empty board, the thresholds) runs on this mosaic: the
hollows' bounding boxes, each grown by a margin, stacked one under the other.
Half the pixels, and a working set small enough to stay in the processor's
cache, is most of what makes a frame cheap to read.
"""

from __future__ import annotations

import numpy as np

MARGIN_PX = 3  # wood kept round every hollow's box: room for the blur (3 sigma)


class PitMosaic:
    """Where every hollow's box (grown by ``MARGIN_PX``) sits in the board and in the mosaic."""

    def __init__(self, boxes: dict[str, tuple[slice, slice]], shape: tuple[int, int]) -> None:
        """``boxes``: per pit label, its bounding box in the rectified board of ``shape``."""
        h, w = shape
        self.board_boxes: dict[str, tuple[slice, slice]] = {}
        self.tiles: dict[str, tuple[slice, slice]] = {}
        top = 0
        for label, (ys, xs) in boxes.items():
            y0, y1 = max(0, ys.start - MARGIN_PX), min(h, ys.stop + MARGIN_PX)
            x0, x1 = max(0, xs.start - MARGIN_PX), min(w, xs.stop + MARGIN_PX)
            self.board_boxes[label] = (slice(y0, y1), slice(x0, x1))
            self.tiles[label] = (slice(top, top + y1 - y0), slice(0, x1 - x0))
            top += y1 - y0
        width = max(box[1].stop for box in self.tiles.values())
        self.shape = (top + top % 2, width + width % 2)  # even sides: halved exactly where smoothing is coarse

    def gather(self, board: np.ndarray) -> np.ndarray:
        """The mosaic of a rectified board-sized array (any dtype and channels); unused corners 0."""
        out = np.zeros(self.shape + board.shape[2:], board.dtype)
        for label, tile in self.tiles.items():
            out[tile] = board[self.board_boxes[label]]
        return out

    def inner(self, label: str, box: tuple[slice, slice]) -> tuple[slice, slice]:
        """Where the board box ``box`` of pit ``label`` (inside its grown box) lies in the mosaic."""
        (ty, tx), (by, bx) = self.tiles[label], self.board_boxes[label]
        return (slice(ty.start + box[0].start - by.start, ty.start + box[0].stop - by.start),
                slice(tx.start + box[1].start - bx.start, tx.start + box[1].stop - bx.start))

    def board_coordinates(self) -> tuple[np.ndarray, np.ndarray]:
        """For every mosaic pixel, the board pixel it shows (x, y as float32 images; 0 where unused)."""
        xs, ys = np.zeros(self.shape, np.float32), np.zeros(self.shape, np.float32)
        for label, (ty, tx) in self.tiles.items():
            by, bx = self.board_boxes[label]
            ys[ty, tx], xs[ty, tx] = np.mgrid[by, bx]
        return xs, ys
