"""The seed counter: a small trained network that reads one hollow at a time.

Counting seeds that touch and pile up by hand-made rules (thresholds,
watershed, areas) reached 74 % exact for heaps of 5-9 on the benchmark; a
convolutional network trained on rendered hollows (``vision/training``)
reads them far better, and says how sure it is. It runs in OpenCV's DNN
module from an ONNX file, so Pitwatch needs no deep-learning framework.

Every network comes with a JSON description (``vision/models/*.json``): the
window it was trained on (which :mod:`vision.patches` must cut the same
way), its range of counts, the temperature fitted on held-out pictures, and
how often training showed each count. The counter divides that training
mix out, so a Reading says how likely each count is from the picture alone
(a flat prior): the referee, which knows which results are legal, supplies
the rest.
"""

from __future__ import annotations

import functools
import json
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .patches import CHANNELS, PX_PER_MM, PatchShape

MODELS = Path(__file__).resolve().parent / "models"
FORMAT, VERSION = "pitwatch-seed-counter", 1
SURE = 0.995  # a window read at least this sure of one count is not read again mirrored
MIRRORS = ((True, True), (False, True), (True, False))  # (rows, columns) reversed: a half turn, left-right, top-bottom


class CounterError(RuntimeError):
    """A counter network that is missing, unreadable or does not match this Pitwatch: a broken
    installation, not a bad picture, so every command reports it and stops."""


def model_paths(folder: Path, kind: str) -> tuple[Path, Path]:
    """Where the network for ``kind`` ("pit" or "store") and its description live in ``folder``."""
    return folder / f"{kind}_counter.onnx", folder / f"{kind}_counter.json"


@dataclass(frozen=True)
class CountProbabilities:
    """What the counter says of one hollow: P(count = k) and P(white chips = k)."""

    counts: np.ndarray
    whites: np.ndarray


class CounterModel:
    """One trained network (for playing pits or for stores) and its description."""

    def __init__(self, kind: str, folder: Path | None = None) -> None:
        onnx_path, json_path = model_paths(folder or MODELS, kind)
        try:
            description = json.loads(json_path.read_text())
        except (OSError, ValueError) as error:
            raise CounterError(f"{json_path}: cannot read the {kind} counter's description ({error})") from None
        self._check(description, kind, json_path)
        self.temperature = float(description["temperature"])
        self.white_temperature = float(description["white_temperature"])
        prior = np.asarray(description["training_prior"], np.float64)
        self._log_prior = np.log(prior)
        self._lock = threading.Lock()  # one network, several readers (camera loop, calibration): one forward at a time
        try:
            self._net = cv2.dnn.readNetFromONNX(str(onnx_path))
        except cv2.error as error:
            raise CounterError(f"{onnx_path}: cannot load the {kind} counter ({error.msg.strip() or error})") from None

    @staticmethod
    def _check(description: object, kind: str, where: Path) -> None:
        if not isinstance(description, dict) or description.get("format") != FORMAT:
            raise CounterError(f"{where}: not a seed counter description (format {FORMAT!r})")
        if description.get("version") != VERSION or description.get("kind") != kind:
            raise CounterError(f"{where}: expected version {VERSION} of the {kind} counter, "
                               f"got version {description.get('version')!r} of {description.get('kind')!r}")
        width, height = PatchShape.of(kind).size
        expected = {"channels": CHANNELS, "width": width, "height": height, "px_per_mm": PX_PER_MM}
        if description.get("input") != expected:
            raise CounterError(f"{where}: input: the network was trained on {description.get('input')}, "
                               f"this Pitwatch cuts {expected}")
        for field in ("temperature", "white_temperature"):
            value = description.get(field)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.05 <= value <= 20:
                raise CounterError(f"{where}: {field}: expected a number from 0.05 to 20, got {value!r}")
        prior = description.get("training_prior")
        if not isinstance(prior, list) or len(prior) != description.get("counts") or min(prior, default=0) <= 0:
            raise CounterError(f"{where}: training_prior: expected one positive weight per count")

    def read(self, windows: np.ndarray) -> list[CountProbabilities]:
        """Probabilities for a batch of windows (float32, N x 6 x H x W from :mod:`vision.patches`).

        A window the network is not ``SURE`` of is read again in its three mirror images
        (:data:`MIRRORS`: training showed hollows mirrored every way, since a lamp may stand
        anywhere) and the four answers' logits averaged: their errors partly cancel. On the
        benchmark four readings read 5-9 and 10-19 seeds better than two (the window and its half
        turn) and two better than one; reading only the unsure windows again (heaps, mostly) reads
        as well as reading every window again, for 4 ms less a frame (docs/vision.md, section 6)."""
        with self._lock:
            self._net.setInput(windows)
            count_logits, white_logits = self._net.forward(["counts", "whites"])
            counts = self._probabilities(count_logits)
            unsure = counts.max(axis=1) < SURE
            if unsure.any():
                doubtful = windows[unsure]
                self._net.setInput(np.concatenate([mirrored(doubtful, *mirror) for mirror in MIRRORS]))
                mirror_counts, mirror_whites = self._net.forward(["counts", "whites"])
                counts[unsure] = self._probabilities(_mean_of_views(count_logits[unsure], mirror_counts))
                white_logits[unsure] = _mean_of_views(white_logits[unsure], mirror_whites)
        whites = _softmax(white_logits.astype(np.float64) / self.white_temperature)
        return [CountProbabilities(c, w) for c, w in zip(counts, whites)]

    def _probabilities(self, count_logits: np.ndarray) -> np.ndarray:
        """P(count) from the network's logits: honest by the temperature, the training mix divided out."""
        return _softmax(count_logits.astype(np.float64) / self.temperature - self._log_prior)


def mirrored(windows: np.ndarray, rows: bool, columns: bool) -> np.ndarray:
    """A batch of windows (N x C x H x W) with its rows and/or columns in reverse order."""
    return np.ascontiguousarray(windows[:, :, ::-1 if rows else 1, ::-1 if columns else 1])


def _mean_of_views(as_cut: np.ndarray, mirrors: np.ndarray) -> np.ndarray:
    """The mean of N windows' logits as cut and of their mirror images' (``len(MIRRORS) * N`` rows,
    one mirror after the other)."""
    return (as_cut + mirrors.reshape(len(MIRRORS), len(as_cut), -1).sum(axis=0)) / (len(MIRRORS) + 1)


def widened(probabilities: np.ndarray, temperature: float) -> np.ndarray:
    """``probabilities`` flattened by ``temperature`` (>= 1): p ** (1 / T), normalised. Where the
    counter was shown to err on a board (its start position misread), it must say so."""
    if temperature == 1.0:
        return probabilities
    p = np.power(np.maximum(probabilities, 1e-300), 1 / temperature)
    return p / p.sum(axis=-1, keepdims=True)


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


class SeedCounter:
    """The pit and store networks together."""

    def __init__(self, folder: Path | None = None) -> None:
        self._models = {kind: CounterModel(kind, folder) for kind in ("pit", "store")}

    def read(self, kind: str, windows: np.ndarray) -> list[CountProbabilities]:
        """Probabilities for windows of ``kind`` ("pit" or "store"); see :meth:`CounterModel.read`."""
        return self._models[kind].read(windows)


@functools.lru_cache(maxsize=1)
def shared_counter() -> SeedCounter:
    """The counter every reader uses unless given its own: loaded once per process."""
    return SeedCounter()
