"""The seed counter: a small trained network that reads one hollow at a time.

Counting seeds that touch and pile up by hand-made rules (thresholds,
watershed, areas) reached 74 % exact for heaps of 5-9 on the benchmark; a
convolutional network trained on rendered hollows (``vision/training``)
reads them far better, and says how sure it is. It runs from an ONNX file in
ONNX Runtime, so Pitwatch needs no deep-learning framework: on the benchmark
a frame takes 19 % less time than with OpenCV's DNN module, for the same
readings (docs/vision.md, section 6).

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

import numpy as np
import onnxruntime
from onnxruntime.capi import onnxruntime_pybind11_state as runtime_errors

from .patches import CHANNELS, PX_PER_MM, PatchShape

MODELS = Path(__file__).resolve().parent / "models"
FORMAT, VERSION = "pitwatch-seed-counter", 1
SURE = 0.995  # a window read at least this sure of one count is not read again mirrored
MIRRORS = ((True, True), (False, True), (True, False))  # (rows, columns) reversed: a half turn, left-right, top-bottom
INPUT, OUTPUTS = "window", ["counts", "whites"]  # the names train.py exports the networks with
LOAD_ERRORS = (runtime_errors.NoSuchFile, runtime_errors.InvalidProtobuf, runtime_errors.InvalidGraph,
               runtime_errors.Fail, runtime_errors.NotImplemented, runtime_errors.RuntimeException)


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
        self._net = load_network(onnx_path, kind)

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
            count_logits, white_logits = network_logits(self._net, windows)
            counts = self._probabilities(count_logits)
            unsure = counts.max(axis=1) < SURE
            if unsure.any():
                doubtful = windows[unsure]
                views = np.concatenate([mirrored(doubtful, *mirror) for mirror in MIRRORS])
                mirror_counts, mirror_whites = network_logits(self._net, views)
                counts[unsure] = self._probabilities(_mean_of_views(count_logits[unsure], mirror_counts))
                white_logits[unsure] = _mean_of_views(white_logits[unsure], mirror_whites)
        whites = _softmax(white_logits.astype(np.float64) / self.white_temperature)
        return [CountProbabilities(c, w) for c, w in zip(counts, whites)]

    def _probabilities(self, count_logits: np.ndarray) -> np.ndarray:
        """P(count) from the network's logits: honest by the temperature, the training mix divided out."""
        return _softmax(count_logits.astype(np.float64) / self.temperature - self._log_prior)


def load_network(onnx_path: Path, kind: str) -> onnxruntime.InferenceSession:
    """The network for ``kind`` ("pit" or "store") in ``onnx_path``, run on one thread: a frame is
    read on one core, leaving the other to the dashboard and the bridge. A file that takes
    another window than :mod:`vision.patches` cuts, or a batch of one only (OpenCV's DNN module
    ran those), is a broken installation."""
    width, height = PatchShape.of(kind).size
    window = (CHANNELS, height, width)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.log_severity_level = 3  # errors only: they come back as exceptions anyway
    try:
        net = onnxruntime.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
    except LOAD_ERRORS as error:
        raise CounterError(f"{onnx_path}: cannot load the {kind} counter ({error})") from None
    inputs, outputs = net.get_inputs(), {output.name for output in net.get_outputs()}
    if [i.name for i in inputs] != [INPUT] or not set(OUTPUTS) <= outputs:
        raise CounterError(f"{onnx_path}: expected input {INPUT!r} and outputs {OUTPUTS}, "
                           f"got {[i.name for i in inputs]} and {sorted(outputs)}")
    batch, *shape = inputs[0].shape
    if tuple(shape) != window or isinstance(batch, int):
        raise CounterError(f"{onnx_path}: expected windows of shape (batch, {', '.join(map(str, window))}), "
                           f"the network takes {inputs[0].shape}: export it again with vision.training.train")
    return net


def network_logits(net: onnxruntime.InferenceSession, windows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The network's logits over counts and over white chips for a batch of windows."""
    counts, whites = net.run(OUTPUTS, {INPUT: windows})
    return counts, whites


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
