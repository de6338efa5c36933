"""The seed counter: small trained networks that read one hollow at a time.

Counting seeds that touch and pile up by hand-made rules (thresholds,
watershed, areas) reached 74 % exact for heaps of 5-9 on the benchmark; a
convolutional network trained on rendered hollows (``vision/training``)
reads them far better, and says how sure it is. There are four: one for
playing pits, one for stores, one that reads again, at the board's own finer
scale, the pits the first reads as heaps, and the pit network's partner, a
second pit network trained apart, which makes other mistakes and reads again
the pits the first is unsure of. They run from ONNX files in
ONNX Runtime, so Pitwatch needs no deep-learning framework: on the benchmark
a frame takes 19 % less time than with OpenCV's DNN module, for the same
readings (docs/vision.md, section 6). The pit and store networks and the
partner come twice: as trained on pictures in focus, and trained further with a
share of their pictures out of focus (``OUT_OF_FOCUS``), which read a blurred
picture better and a sharp one a little worse; the reader asks for the second
set where it measured the picture blurred (:data:`vision.focus.BLURRED_MM`).

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
from typing import Callable

import numpy as np
import onnxruntime
from onnxruntime.capi import onnxruntime_pybind11_state as runtime_errors

from .patches import CHANNELS, PatchShape

MODELS = Path(__file__).resolve().parent / "models"
OUT_OF_FOCUS = "out_of_focus"  # the sub-folder of the networks trained also on pictures out of focus: the pit and
OUT_OF_FOCUS_KINDS = ("pit", "store", "partner")  # store networks and the partner; one heap network reads both
FORMAT, VERSION = "pitwatch-seed-counter", 1
KINDS = ("pit", "store", "heap", "partner")  # the networks: playing pits, stores, heaps in playing pits read
# again finer, and the pit network's partner (the pits it is unsure of read again by a network trained apart)
SURE = 0.995  # a window read at least this sure of one count is not read again (mirrored, and by the partner)
MIRRORS = ((False, True),)  # (rows, columns) reversed: left-right only, as the networks were trained (train.train)
HEAP_LEAST = 8  # the heap network was shown windows of this many seeds or more, and says nothing of fewer
HEAP_FROM, HEAP_SHARE = 10, 0.9  # it reads a pit the pit network gives this chance of this many (8-9: both as well)
INPUT, OUTPUTS = "window", ["counts", "whites"]  # the names train.py exports the networks with
LOAD_ERRORS = (runtime_errors.NoSuchFile, runtime_errors.InvalidProtobuf, runtime_errors.InvalidGraph,
               runtime_errors.Fail, runtime_errors.NotImplemented, runtime_errors.RuntimeException)


class CounterError(RuntimeError):
    """A counter network that is missing, unreadable or does not match this Pitwatch: a broken
    installation, not a bad picture, so every command reports it and stops."""


def model_paths(folder: Path, kind: str) -> tuple[Path, Path]:
    """Where the network for ``kind`` (one of :data:`KINDS`) and its description live in ``folder``."""
    return folder / f"{kind}_counter.onnx", folder / f"{kind}_counter.json"


def window_kind(kind: str) -> str:
    """The window (:class:`vision.patches.PatchShape` kind) the network for ``kind`` reads: the
    partner reads the pit network's."""
    return "pit" if kind == "partner" else kind


@dataclass(frozen=True)
class CountProbabilities:
    """What the counter says of one hollow: P(count = k) and P(white chips = k)."""

    counts: np.ndarray
    whites: np.ndarray


class CounterModel:
    """One trained network (for playing pits, stores, heaps or the partner) and its description;
    a ``partner`` (the pit network's) reads again the windows this one is unsure of."""

    def __init__(self, kind: str, folder: Path | None = None, partner: CounterModel | None = None) -> None:
        onnx_path, json_path = model_paths(folder or MODELS, kind)
        try:
            description = json.loads(json_path.read_text())
        except (OSError, ValueError) as error:
            raise CounterError(f"{json_path}: cannot read the {kind} counter's description ({error})") from None
        self._check(description, kind, json_path)
        self.temperature = float(description["temperature"])
        self.white_temperature = float(description["white_temperature"])
        prior = np.asarray(description["training_prior"], np.float64)
        with np.errstate(divide="ignore"):  # a count never shown in training (the heap network's small ones) ...
            self._log_prior = np.where(prior > 0, np.log(prior), np.inf)  # ... is never read: probability 0
        self._lock = threading.Lock()  # one network, several readers (camera loop, calibration): one forward at a time
        self._net = load_network(onnx_path, kind)
        self._partner = partner

    @staticmethod
    def _check(description: object, kind: str, where: Path) -> None:
        if not isinstance(description, dict) or description.get("format") != FORMAT:
            raise CounterError(f"{where}: not a seed counter description (format {FORMAT!r})")
        if description.get("version") != VERSION or description.get("kind") != kind:
            raise CounterError(f"{where}: expected version {VERSION} of the {kind} counter, "
                               f"got version {description.get('version')!r} of {description.get('kind')!r}")
        shape = PatchShape.of(window_kind(kind))
        width, height = shape.size
        expected = {"channels": CHANNELS, "width": width, "height": height, "px_per_mm": shape.px_per_mm}
        if description.get("input") != expected:
            raise CounterError(f"{where}: input: the network was trained on {description.get('input')}, "
                               f"this Pitwatch cuts {expected}")
        for field in ("temperature", "white_temperature"):
            value = description.get(field)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.05 <= value <= 20:
                raise CounterError(f"{where}: {field}: expected a number from 0.05 to 20, got {value!r}")
        prior = description.get("training_prior")
        if (not isinstance(prior, list) or len(prior) != description.get("counts") or min(prior, default=-1) < 0
                or max(prior) <= 0):
            raise CounterError(f"{where}: training_prior: expected one weight per count, none negative")

    def read(self, windows: np.ndarray) -> list[CountProbabilities]:
        """Probabilities for a batch of windows (float32, N x 6 x H x W from :mod:`vision.patches`).

        A window the network is not ``SURE`` of is read again in its left-right mirror image
        (:data:`MIRRORS`: training showed hollows mirrored so, since a lamp may stand anywhere,
        but never upside down, since the camera stands on South's side and on a board seen in
        depth the near rim hides the near edge of the floor), and by the ``partner`` if it has
        one, and the answers' logits averaged: their errors partly cancel. Reading only the
        unsure windows again (heaps, mostly) reads as well as reading every window again, for
        4 ms less a frame (docs/vision.md, section 6)."""
        count_logits, white_logits = self.first_look(windows)
        self.look_again(windows, count_logits, white_logits, self.probabilities(count_logits).max(axis=1) < SURE)
        return _answers(self.probabilities(count_logits), self.white_probabilities(white_logits))

    def first_look(self, windows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The logits over counts and over white chips of each window read once, as cut."""
        with self._lock:
            return network_logits(self._net, windows)

    def look_again(self, windows: np.ndarray, count_logits: np.ndarray, white_logits: np.ndarray,
                   unsure: np.ndarray) -> None:
        """Read the ``unsure`` windows (a mask) again in their :data:`MIRRORS`, and as cut by the
        ``partner``, and put in their rows of the logits of the :meth:`first_look` the mean of
        every view's. A partner trained apart errs on other windows than this network does, which
        a mirror image, read by the same network, does less (docs/counter-training.md, *A second
        network trained apart*)."""
        if not unsure.any():
            return
        doubtful = windows[unsure]
        views = np.concatenate([mirrored(doubtful, *mirror) for mirror in MIRRORS])
        with self._lock:
            other_counts, other_whites = network_logits(self._net, views)
        if self._partner is not None:
            partner_counts, partner_whites = self._partner.first_look(doubtful)
            other_counts = np.concatenate([other_counts, partner_counts])
            other_whites = np.concatenate([other_whites, partner_whites])
        count_logits[unsure] = _mean_of_views(count_logits[unsure], other_counts)
        white_logits[unsure] = _mean_of_views(white_logits[unsure], other_whites)

    def probabilities(self, count_logits: np.ndarray) -> np.ndarray:
        """P(count) from the network's logits: honest by the temperature, the training mix divided out."""
        return _softmax(count_logits.astype(np.float64) / self.temperature - self._log_prior)

    def white_probabilities(self, white_logits: np.ndarray) -> np.ndarray:
        """P(white chips) from the network's logits, honest by its temperature."""
        return _softmax(white_logits.astype(np.float64) / self.white_temperature)


def load_network(onnx_path: Path, kind: str) -> onnxruntime.InferenceSession:
    """The network for ``kind`` (one of :data:`KINDS`) in ``onnx_path``, run on one thread: a frame is
    read on one core, leaving the other to the dashboard and the bridge. A file that takes
    another window than :mod:`vision.patches` cuts, or a batch of one only (OpenCV's DNN module
    ran those), is a broken installation."""
    width, height = PatchShape.of(window_kind(kind)).size
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


def _mean_of_views(as_cut: np.ndarray, others: np.ndarray) -> np.ndarray:
    """The mean of N windows' logits as cut and of their other views' (a multiple of N rows, one
    view after the other: mirror images, the partner's reading)."""
    views = len(others) // len(as_cut)
    return (as_cut + others.reshape(views, len(as_cut), -1).sum(axis=0)) / (views + 1)


def widened(probabilities: np.ndarray, temperature: float) -> np.ndarray:
    """``probabilities`` flattened by ``temperature`` (>= 1): p ** (1 / T), normalised. Where the
    counter was shown to err on a board (its start position misread), it must say so."""
    if temperature == 1.0:
        return probabilities
    p = np.power(np.maximum(probabilities, 1e-300), 1 / temperature)
    return p / p.sum(axis=-1, keepdims=True)


def _answers(counts: np.ndarray, whites: np.ndarray) -> list[CountProbabilities]:
    return [CountProbabilities(c, w) for c, w in zip(counts, whites)]


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


class SeedCounter:
    """The pit, store, heap and partner networks together: the partner reads with the pit network;
    and the same networks trained also out of focus (``folder``/``OUT_OF_FOCUS``), for a blurred
    picture. Both sets are loaded at once (4 MB more), so a missing file shows when Pitwatch
    starts, not on the first blurred frame."""

    def __init__(self, folder: Path | None = None) -> None:
        folder = folder or MODELS
        heap = CounterModel("heap", folder)
        self._in_focus, self._out_of_focus = (_networks(where, heap) for where in (folder, folder / OUT_OF_FOCUS))

    def _networks_for(self, out_of_focus: bool) -> dict[str, CounterModel]:
        return self._out_of_focus if out_of_focus else self._in_focus

    def read(self, kind: str, windows: np.ndarray, out_of_focus: bool = False) -> list[CountProbabilities]:
        """Probabilities for windows of ``kind`` ("pit" or "store"), of a picture ``out_of_focus`` or
        not; see :meth:`CounterModel.read`."""
        return self._networks_for(out_of_focus)[kind].read(windows)

    def read_pits(self, windows: np.ndarray, heap_windows: Callable[[list[int]], np.ndarray],
                  out_of_focus: bool = False) -> list[CountProbabilities]:
        """Probabilities for playing pits' windows, heaps read again by the heap network; by the
        networks trained also out of focus for a picture ``out_of_focus``.

        The pit network reads every window once; a window it gives at least ``HEAP_SHARE`` of
        holding ``HEAP_FROM`` seeds or more is not read again (mirrored, by the partner) but cut again
        at the board's own scale (``heap_windows``: the indices of those windows -> their heap
        windows, stacked as :meth:`vision.patches.PatchCutter.stack` stacks them) and read once by
        the heap network, which tells seeds under others apart better than the pit network's
        coarser window (docs/counter-training.md, *A second look at heaps*). The two readings
        are pooled (the geometric mean of their probabilities, over the ``HEAP_LEAST`` or more
        seeds the heap network was trained on) and share out the pit network's chance of that
        many; fewer keep the pit network's reading. The other windows are read as
        :meth:`CounterModel.read` reads them."""
        networks = self._networks_for(out_of_focus)
        pit, heap = networks["pit"], networks["heap"]
        count_logits, white_logits = pit.first_look(windows)
        first = pit.probabilities(count_logits)
        heaps = first[:, HEAP_FROM:].sum(axis=1) >= HEAP_SHARE
        pit.look_again(windows, count_logits, white_logits, (first.max(axis=1) < SURE) & ~heaps)
        counts, whites = pit.probabilities(count_logits), pit.white_probabilities(white_logits)  # heaps: the first look
        if heaps.any():
            heap_logits, heap_white_logits = heap.first_look(heap_windows(np.flatnonzero(heaps).tolist()))
            pooled = _pooled(counts[heaps, HEAP_LEAST:], heap.probabilities(heap_logits)[:, HEAP_LEAST:])
            counts[heaps, HEAP_LEAST:] = counts[heaps, HEAP_LEAST:].sum(axis=1, keepdims=True) * pooled
            whites[heaps] = _pooled(whites[heaps], heap.white_probabilities(heap_white_logits))
        return _answers(counts, whites)


def _networks(folder: Path, heap: CounterModel) -> dict[str, CounterModel]:
    """The pit network (with its partner) and the store network in ``folder``, and ``heap``."""
    partner = CounterModel("partner", folder)
    return {"pit": CounterModel("pit", folder, partner), "store": CounterModel("store", folder), "heap": heap}


def _pooled(one: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Two networks' probabilities for the same windows pooled: their geometric mean, normalised
    (log-linear pooling: no weight to fit, and no surer than the two)."""
    pooled = np.sqrt(one * other)
    return pooled / pooled.sum(axis=1, keepdims=True)


@functools.lru_cache(maxsize=1)
def shared_counter() -> SeedCounter:
    """The counter every reader uses unless given its own: loaded once per process."""
    return SeedCounter()
