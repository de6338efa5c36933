"""Every hollow of a rectified board as a small, light-corrected picture for the seed counter.

The counter (:mod:`vision.counter`) is a network that looks at one hollow at
a time. It sees a fixed window round the hollow at a fixed scale in
millimetres, so a seed is the same size in its input on every board and
every camera: the window is cut from the rectified board around where
calibration found the hollow, today's light is divided out (the light model
fitted on the bare wood), and beside it lies the same window of the empty
board photographed at calibration, so the network compares "now" with "no
seeds here" instead of having to know every wood.

The same cutter makes the training pictures (``vision/training``) and the
live ones: what the network learnt from is exactly what it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.calibfile import Calibration

from .rectify import LightModel

PX_PER_MM = 1.0  # the counter's scale: a seed of 8-12 mm is 8-12 px. At the board's own 1.5 px/mm the network
# costs three times as much to train and over twice as much to run (see docs/vision.md, "The seed counter")
HEAP_PX_PER_MM = 1.5  # the heap network's: the board's own scale (calibration's default), where seeds that lie
# under others show the slivers a heap is counted by (docs/counter-training.md, "A second look at heaps")
PIT_WINDOW_MM = (52.0, 46.0)  # a playing hollow (46 x 40 mm) with a margin for a nudged board and seeds on its rim
STORE_WINDOW_MM = (48.0, 104.0)  # a store or outbox (44 x 98 mm on a two-row board)
CHANNELS = 6  # B, G, R of the board now (light divided out), then of the empty board


@dataclass(frozen=True)
class PatchShape:
    """The window one network reads, in patch pixels (width, height), and its scale."""

    kind: str  # the network: "pit", "store", or "heap" (a playing pit's window at the board's own scale)
    size: tuple[int, int]
    px_per_mm: float

    @classmethod
    def of(cls, kind: str) -> "PatchShape":
        width, height = STORE_WINDOW_MM if kind == "store" else PIT_WINDOW_MM
        scale = HEAP_PX_PER_MM if kind == "heap" else PX_PER_MM
        return cls(kind, (int(round(width * scale)), int(round(height * scale))), scale)

    @property
    def hollows(self) -> str:
        """The kind of hollow this window is cut round (:func:`hollow_kind`)."""
        return "store" if self.kind == "store" else "pit"


def hollow_kind(is_store: bool) -> str:
    """The counter a hollow is read by: stores and outboxes are bigger than playing pits."""
    return "store" if is_store else "pit"


class PatchCutter:
    """Cuts the hollows of one calibrated board; built once per calibration, used every frame.

    For each network (``kinds``: the reader's pit and store networks, or the heap network's
    finer windows of the playing pits) all its windows are stacked into one tall image, so a
    frame costs one remap for the board and one for its light, whatever the number of pits.
    """

    def __init__(self, calibration: Calibration, kinds: tuple[str, ...] = ("pit", "store")) -> None:
        profile = calibration.profile
        self.labels: dict[str, list[str]] = {}
        self._maps: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._light: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._empty: dict[str, np.ndarray] = {}
        self._scales: dict[str, float] = {}  # board px per patch px
        self._centres = {label: hollow.centre for label, hollow in calibration.hollows.items()}
        for kind in kinds:
            shape = PatchShape.of(kind)
            labels = [h.label for h in profile.hollows if hollow_kind(h.is_store) == shape.hollows]
            if not labels:
                continue
            self._scales[kind] = scale = calibration.px_per_mm / shape.px_per_mm
            width, height = shape.size
            xs, ys = [], []
            for label in labels:
                cx, cy = calibration.hollows[label].centre
                x = cx + (np.arange(width, dtype=np.float32) - (width - 1) / 2) * scale
                y = cy + (np.arange(height, dtype=np.float32) - (height - 1) / 2) * scale
                grid_x, grid_y = np.meshgrid(x, y)
                xs.append(grid_x)
                ys.append(grid_y)
            map_x, map_y = np.concatenate(xs), np.concatenate(ys)
            self.labels[kind] = labels
            self._maps[kind] = cv2.convertMaps(map_x, map_y, cv2.CV_16SC2)
            self._light[kind] = LightModel.sampler(map_x, map_y)
            self._empty[kind] = self._remap(_smoothed(calibration.empty, scale), kind)

    def _remap(self, image: np.ndarray, kind: str, chosen: list[int] | None = None) -> np.ndarray:
        return cv2.remap(image, *self._rows(self._maps[kind], kind, chosen), cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)

    def _rows(self, stacked: tuple[np.ndarray, ...], kind: str, chosen: list[int] | None) -> tuple[np.ndarray, ...]:
        """The rows of the windows ``chosen`` (indices into :attr:`labels`; None: every one) of
        images stacked as :meth:`relit` stacks windows."""
        if chosen is None:
            return stacked
        height = stacked[0].shape[0] // len(self.labels[kind])
        return tuple(np.concatenate([image[k * height:(k + 1) * height] for k in chosen]) for image in stacked)

    def relit(self, board: np.ndarray, log_gain: np.ndarray, emptied: np.ndarray | None = None,
              chosen: dict[str, list[int]] | None = None) -> dict[str, np.ndarray]:
        """Per network, its windows stacked (uint8 BGR, N*H x W, in the order of :attr:`labels`,
        or only those ``chosen`` for a kind, in that order): ``board`` (rectified, uint8 BGR) with
        the light model's ``log_gain`` (per cell, :meth:`LightModel.log_gain`) divided out, as
        under the empty board's light; the board is smoothed once for every scale. :meth:`stack`
        makes them the network's input. ``emptied`` (bool, rectified board): where the windows
        are to show the empty board instead, a seed lying on the wood beside a hollow, which is
        in no pit."""
        kinds = list(chosen) if chosen is not None else list(self.labels)
        smoothed = {scale: _smoothed(board, scale) for scale in {self._scales[kind] for kind in kinds}}
        relit = {}
        for kind in kinds:
            rows = chosen[kind] if chosen is not None else None
            windows = relit[kind] = self._relit(smoothed[self._scales[kind]], log_gain, kind, rows)
            if emptied is not None:
                inside = self._remap(emptied.view(np.uint8), kind, rows) > 0
                windows[inside] = self._rows((self._empty[kind],), kind, rows)[0][inside]
        return relit

    def _relit(self, smoothed: np.ndarray, log_gain: np.ndarray, kind: str, chosen: list[int] | None) -> np.ndarray:
        now = self._remap(smoothed, kind, chosen).astype(np.float32)
        gain = cv2.exp(-LightModel.sample(log_gain, self._rows(self._light[kind], kind, chosen)))
        return np.clip(cv2.multiply(now, gain), 0, 255).astype(np.uint8)

    def stack(self, relit: np.ndarray, kind: str, chosen: list[int] | None = None) -> np.ndarray:
        """The network input from stacked relit windows (see :meth:`relit`) of one kind, of the
        windows ``chosen`` if only those were cut."""
        count = len(chosen) if chosen is not None else len(self.labels[kind])
        return network_input(relit, self._rows((self._empty[kind],), kind, chosen)[0], count)

    def window_points(self, label: str, points_mm: np.ndarray) -> np.ndarray:
        """Where board points (mm, N x 2) lie in the window of hollow ``label``: (column, row) in
        window pixels, the inverse of the cut (training marks each seed's centre so)."""
        kind = next(kind for kind, labels in self.labels.items() if label in labels)
        shape = PatchShape.of(kind)
        width, height = shape.size
        centre = np.asarray(self._centres[label], np.float64) / self._scales[kind]  # in window px from the board's corner
        return (np.asarray(points_mm, np.float64).reshape(-1, 2) * shape.px_per_mm - centre
                + ((width - 1) / 2, (height - 1) / 2))

    def empty(self, kind: str) -> np.ndarray:
        """The empty board's windows of one kind, stacked (uint8 BGR, N*H x W)."""
        return self._empty[kind]


def network_input(relit: np.ndarray, empty: np.ndarray, count: int) -> np.ndarray:
    """``count`` windows stacked in two uint8 BGR images -> float32 N x 6 x H x W, centred on 0.
    Each image is copied into its three channels of one float array and scaled there: four
    times faster than converting the transposed uint8 pixels (20 windows: 1.2 against 0.3 ms,
    a one-off timing on 2026-11-26's machine)."""
    height, width = relit.shape[0] // count, relit.shape[1]
    windows = np.empty((count, CHANNELS, height, width), np.float32)
    for channels, image in ((slice(0, 3), relit), (slice(3, 6), empty)):
        windows[:, channels] = image.reshape(count, height, width, 3).transpose(0, 3, 1, 2)
    windows *= np.float32(1 / 255)
    windows -= np.float32(0.5)
    return windows


def _smoothed(image: np.ndarray, scale: float) -> np.ndarray:
    """``image`` blurred enough to be sampled every ``scale`` px without aliasing (none at 1:1)."""
    if scale <= 1.05:
        return image
    return cv2.GaussianBlur(image, (0, 0), 0.5 * scale)
