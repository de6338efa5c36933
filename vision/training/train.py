"""Train the seed counters on rendered pictures and export them for ONNX Runtime.

Two small convolutional networks, one for playing pits and one for stores
(bigger windows, bigger heaps), each answering for one hollow: a probability
for every count, and for every number of white chips; and a third, the heap
network, for the playing pits the pit network reads as heaps, at the board's
own scale (``--heaps``, on pictures rendered with ``dataset --heaps``); and a fourth, the
pit network's partner, which reads again the pits it is unsure of (``--partner``). They are built from
depthwise-separable convolutions (MobileNet's), which ONNX Runtime
runs in a few milliseconds for a whole board on one core (docs/vision.md, section 6).

The store network starts from the trained pit network (seeds look the same;
only the window and the range of counts differ) because stores are few in
the training pictures. After training, a temperature is fitted on held-out
set-ups so that the probabilities are honest (a 95 % set holds the truth
95 % of the time), and the network is exported to ONNX with a JSON file
describing it (:class:`vision.counter.CounterModel` checks it on load).

    python -m vision.training.train data/counter data/counter600 -o vision/models

The pit network is also saved as ``pit_counter.pt`` beside the exported files
(not shipped), so that ``--store-only`` can train the store network again
without training the pit network first. ``--continue-from FOLDER`` trains the
networks exported in FOLDER further, on set-ups they have not seen, at a tenth
of the learning rate (their batch norms, folded into the export, stay fixed).
``--recalibrate`` trains nothing: it fits the temperatures of exported
networks again, for when the counter changes how it reads them. ``--widths``
sets a new network's channels (``--store-only`` then needs the same ones), and
``--teacher FOLDER`` has the networks exported there teach it as well as the
truth (:func:`distillation`; docs/counter-training.md, *A cheaper network
taught by the shipped one*). ``--heaps`` trains the heap network alone and saves
it as ``heap_counter.pt`` too; ``--heaps --resume`` trains that one further
(``--epochs 0``: only fits its temperatures and exports it again), and its description
keeps how the one it continues was trained (``trained.continued.trained``);
``--heaps --continue-from FOLDER`` trains the heap network exported in FOLDER further.

    python -m vision.training.train data/heaps900 data/heaps1200 --heaps -o vision/models --widths 16,32,96,128,192,256

``--partner`` trains the pit network's partner alone, on the pit pictures, as
``--heaps`` trains the heap network (``--resume``, ``--continue-from``, ``--rate``
alike): a second pit network trained apart, from its own start and seed, so that
it errs on other windows (docs/counter-training.md, *A second network trained
apart*). The counter averages it into the pit network's readings of the windows
that one is unsure of; the pit network keeps its temperature.

Needs PyTorch (``pip install -e .[train]``); deterministic for a given data
set, seed and number of threads.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
import onnxruntime
import torch
import torch.nn.functional as F
from onnx import numpy_helper
from torch import nn

from ..counter import (INPUT, KINDS, MIRRORS, OUTPUTS, CounterError, load_network, model_paths, network_logits,
                       window_kind)
from ..patches import CHANNELS, PatchShape
from .dataset import PIT_TRAINING_MAX, STORE_TRAINING_MAX, WHITE_TRAINING_MAX, count_prior, load_patches, seed_cells

WIDTHS = (32, 64, 96, 128, 192, 256)
HIDDEN = 256
VALIDATION_EVERY = 10  # set-ups whose number is a multiple of this are held out
CONTINUED_RATE = 3e-4  # peak learning rate when training an exported network further: a tenth of a new one's
DENSITY_CELL = 8  # window pixels per cell of the network's last feature map (three halvings)
TEACHING_TEMPERATURE = 2.0  # a teacher's counts and the student's are compared softened by this (see distillation)


def _separable(cin: int, cout: int, stride: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU(inplace=True),
                         nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def checked_widths(widths: tuple[int, ...]) -> tuple[int, ...]:
    """``widths`` if they can be a network's channels (one positive number for the first
    convolution and each of the five separable layers); ValueError otherwise."""
    if len(widths) != len(WIDTHS) or min(widths) < 1:
        raise ValueError(f"widths: expected {len(WIDTHS)} positive numbers (the first convolution and five separable "
                         f"layers), got {','.join(map(str, widths))}")
    return tuple(widths)


class Counter(nn.Module):
    """Window of one hollow (6 channels: now and empty) -> logits over counts and white chips."""

    def __init__(self, counts: int, whites: int, widths: tuple[int, ...] = WIDTHS) -> None:
        super().__init__()
        self.widths = checked_widths(widths)
        self.frozen_norms = False  # True for a network continued from an export (see exported_counter)
        w = self.widths
        self.features = nn.Sequential(
            nn.Sequential(nn.Conv2d(CHANNELS, w[0], 3, 2, 1, bias=False), nn.BatchNorm2d(w[0]), nn.ReLU(inplace=True)),
            _separable(w[0], w[1], 1), _separable(w[1], w[2], 2), _separable(w[2], w[3], 1),
            _separable(w[3], w[4], 2), _separable(w[4], w[5], 1))
        self.hidden = nn.Sequential(nn.Linear(w[-1], HIDDEN), nn.ReLU(inplace=True))
        self.count = nn.Linear(HIDDEN, counts)
        self.white = nn.Linear(HIDDEN, whites)
        self.density = nn.Conv2d(w[-1], 1, 1)  # seeds per cell of the last feature map: training only, not exported

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.read(x)[:2]

    def read(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Count and white-chip logits, and how many seeds the network sees in each cell of its last
        feature map (:meth:`Pictures.density`); :meth:`forward`, which is exported, leaves that out."""
        features = self.features(x)
        h = self.hidden(features.mean(dim=(2, 3)))
        return self.count(h), self.white(h), self.density(features)

    def train(self, mode: bool = True) -> "Counter":
        """As nn.Module.train, except that frozen batch norms keep using their stored statistics."""
        super().train(mode)
        if self.frozen_norms:
            for module in self.modules():
                if isinstance(module, nn.BatchNorm2d):
                    module.eval()
        return self


def exported_counter(folder: Path, kind: str) -> tuple[Counter, dict]:
    """The network for ``kind`` exported in ``folder`` (ONNX and its description) as a Counter to
    train further, and its description. Export folded each batch norm into the convolution
    before it, so the convolutions get those weights and biases and the batch norms become fixed
    identities (``frozen_norms``): training goes on from exactly the exported network."""
    onnx_path, json_path = model_paths(folder, kind)
    description = json.loads(json_path.read_text())
    graph = onnx.load(str(onnx_path)).graph
    weights = {w.name: torch.from_numpy(numpy_helper.to_array(w).copy()) for w in graph.initializer}
    model = Counter(description["counts"], description["whites"], tuple(description["trained"].get("widths", WIDTHS)))
    model.frozen_norms = True
    convolutions = [node for node in graph.node if node.op_type == "Conv"]
    pairs = [(m, n) for m, n in zip(model.features.modules(), list(model.features.modules())[1:])
             if isinstance(m, nn.Conv2d)]
    if len(convolutions) != len(pairs):
        raise ValueError(f"{onnx_path}: {len(convolutions)} convolutions, this Counter has {len(pairs)}: another shape")
    with torch.no_grad():
        for node, (conv, norm) in zip(convolutions, pairs):
            conv.weight.copy_(weights[node.input[1]])
            norm.weight.fill_(1.0)
            norm.bias.copy_(weights[node.input[2]])
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        dense = {node.output[0]: node for node in graph.node if node.op_type == "Gemm"}
        counts, whites = OUTPUTS
        hidden = next(node for name, node in dense.items() if name not in OUTPUTS)
        for layer, node in ((model.hidden[0], hidden), (model.count, dense[counts]), (model.white, dense[whites])):
            layer.weight.copy_(weights[node.input[1]])
            layer.bias.copy_(weights[node.input[2]])
    return model, description


class Pictures:
    """Saved training sets (see :mod:`vision.training.dataset`) as one, split by set-up."""

    def __init__(self, paths: list[Path]) -> None:
        data = load_patches(paths)
        self.relit, self.empty, self.empty_index = data["relit"], data["empty"], data["empty_index"]
        self.counts, self.white, self.setup = data["counts"].astype(np.int64), data["white"].astype(np.int64), data["setup"]
        self.held_out = self.setup % VALIDATION_EVERY == 0
        if not self.held_out.any():  # training and recalibration both fit temperatures on these (train: too few to train on)
            raise ValueError(f"{', '.join(map(str, paths))}: no window held out: set-ups numbered in {VALIDATION_EVERY}s "
                             "are, so render some of them (say --setups 0:20) of boards with these hollows")
        self.seed_window, self.seed_xy = data.get("seed_window"), data.get("seed_xy")
        if self.seed_window is not None:  # each window's seeds, as a slice of seed_xy
            order = np.argsort(self.seed_window, kind="stable")
            self.seed_window, self.seed_xy = self.seed_window[order], self.seed_xy[order]
            self.seed_start = np.searchsorted(self.seed_window, np.arange(len(self.relit) + 1))

    @property
    def have_seeds(self) -> bool:
        """Whether every picture's seed centres were saved (sets rendered since 2026-11-26)."""
        return self.seed_window is not None

    def batch(self, index: np.ndarray, flip: tuple[bool, bool] = (False, False)) -> torch.Tensor:
        both = np.concatenate([self.relit[index], self.empty[self.empty_index[index]]], axis=3)
        x = torch.from_numpy(both).permute(0, 3, 1, 2).float().div_(255).sub_(0.5)
        dims = [d for d, yes in ((3, flip[0]), (2, flip[1])) if yes]
        return x.flip(dims) if dims else x

    def density(self, index: np.ndarray, flip: tuple[bool, bool], cells: tuple[int, int]) -> torch.Tensor:
        """How many seed centres lie in each cell of the network's last feature map (``cells``:
        rows, columns; one cell per ``DENSITY_CELL`` window pixels) over the windows ``index``,
        flipped as :meth:`batch` flips them: N x 1 x rows x columns."""
        window = self.relit.shape[1:3]
        target = np.stack([seed_cells(self.seed_xy[self.seed_start[k]:self.seed_start[k + 1]], window, flip, cells,
                                      DENSITY_CELL) for k in index])
        return torch.from_numpy(target)[:, None]


def train(model: Counter, pictures: Pictures, epochs: int, rate: float, seed: int, density: float = 0.0,
          teacher: onnxruntime.InferenceSession | None = None, log: Callable[[str], None] = print) -> None:
    """Cross-entropy on counts and (where a board has them) white chips; left-right flips as
    augmentation (the lamp may stand anywhere, so a mirrored hollow is as likely as the original).
    Never top-bottom: the camera stands on South's side, so on a board seen in depth the rim that
    hides the near edge of a hollow's floor is always at the window's bottom (networks trained
    upright read boards in depth better, docs/counter-training.md, *Trained upright*).

    With ``density`` > 0 the network is also told where the seeds lie: its density head must
    say how many seed centres each cell of its last feature map holds (squared error summed
    over a window's cells, times ``density``), a lesson for every seed rather than one for a
    whole window. Only the counts are exported.

    With a ``teacher`` (an exported network for the same windows) the network also learns to
    say what the teacher says of each window (:func:`distillation`)."""
    if density > 0 and not pictures.have_seeds:
        raise ValueError("--density needs pictures with seed centres: render them again with vision.training.dataset")
    rng = np.random.default_rng(seed)
    train_index = np.nonzero(~pictures.held_out)[0]
    batch = 256
    if len(train_index) < batch:
        raise ValueError(f"only {len(train_index)} training pictures, fewer than one batch of {batch}: render more set-ups")
    steps = epochs * (len(train_index) // batch)
    optimiser = torch.optim.AdamW(model.parameters(), lr=rate, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, rate, total_steps=steps)
    started = time.time()
    for epoch in range(epochs):
        model.train()
        order = rng.permutation(train_index)
        total = 0.0
        for start in range(0, len(order) - batch + 1, batch):
            index = np.sort(order[start:start + batch])
            flips = (bool(rng.random(2)[0] < 0.5), False)  # left-right; two draws, as when top-bottom was drawn too
            x = pictures.batch(index, flips)
            counts, white = torch.from_numpy(pictures.counts[index]), torch.from_numpy(pictures.white[index])
            count_logits, white_logits, seeds = model.read(x)
            loss = F.cross_entropy(count_logits, counts)
            if teacher is not None:
                taught = network_logits(teacher, np.ascontiguousarray(x.numpy()))[0]
                loss = loss + distillation(count_logits, torch.from_numpy(taught))
            if density > 0:
                target = pictures.density(index, flips, tuple(seeds.shape[2:]))
                loss = loss + density * (seeds - target).square().sum(dim=(1, 2, 3)).mean()
            chips = white >= 0
            if chips.any():
                loss = loss + F.cross_entropy(white_logits[chips], white[chips])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
        log(f"  epoch {epoch + 1}/{epochs}: loss {total / (len(order) // batch):.4f} ({time.time() - started:.0f} s)")


def distillation(student: torch.Tensor, teacher: torch.Tensor) -> torch.Tensor:
    """How far the student's counts are from the teacher's, both softened by
    ``TEACHING_TEMPERATURE`` (knowledge distillation, Hinton, Vinyals and Dean, 2015).

    A smaller, cheaper network taught only the true counts learns less than it could: the
    teacher's probabilities also say which wrong counts a window resembles (one seed hidden
    under another, a bean on the rim), a lesson for every count rather than one per window.
    Scaled by the temperature squared, so that it weighs as the true counts' loss does."""
    t = TEACHING_TEMPERATURE
    return F.kl_div(F.log_softmax(student / t, dim=1), F.log_softmax(teacher / t, dim=1), log_target=True,
                    reduction="batchmean") * (t * t)


def count_classes(kind: str) -> int:
    """How many counts (0 to the most the pictures hold) a network for ``kind`` tells apart."""
    return (STORE_TRAINING_MAX if kind == "store" else PIT_TRAINING_MAX) + 1


def reading_mirrors(kind: str) -> tuple[tuple[bool, bool], ...]:
    """The mirror images the counter reads an unsure window of ``kind`` in besides the window as
    cut (:mod:`vision.counter`), which its temperature is fitted to: none for the heap network,
    which reads a heap once, nor for the partner, which reads a window once, as cut."""
    return () if kind in ("heap", "partner") else MIRRORS


@dataclass(frozen=True)
class Teacher:
    """Exported networks that new ones also learn from (:func:`distillation`), one per kind."""

    folder: Path
    networks: dict[str, onnxruntime.InferenceSession]

    @classmethod
    def load(cls, folder: Path) -> Teacher:
        """Both networks in ``folder``, checked before an hour of pictures is loaded: ValueError
        naming the file if one is missing, broken, or counts to another most than the pictures."""
        networks = {}
        for kind in ("pit", "store"):
            onnx_path, json_path = model_paths(folder, kind)
            try:
                networks[kind] = load_network(onnx_path, kind)
                counts = json.loads(json_path.read_text())["counts"]
            except (CounterError, OSError, ValueError, KeyError) as error:
                raise ValueError(f"--teacher: {error}") from None
            if counts != count_classes(kind):
                raise ValueError(f"--teacher: {json_path} tells {counts} counts apart, the pictures {count_classes(kind)}")
        return cls(folder, networks)


def predict(model: Counter, pictures: Pictures, index: np.ndarray,
            mirrors: tuple[tuple[bool, bool], ...] = MIRRORS) -> tuple[np.ndarray, np.ndarray]:
    """Count and white-chip logits of the pictures ``index`` from a network in training."""
    model.eval()

    def forward(x: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
        with torch.no_grad():
            counts, whites = model(x)
        return counts.numpy(), whites.numpy()
    return mean_view_logits(forward, pictures, index, mirrors)


def mean_view_logits(forward: Callable[[torch.Tensor], tuple[np.ndarray, np.ndarray]], pictures: Pictures,
                     index: np.ndarray, mirrors: tuple[tuple[bool, bool], ...] = MIRRORS) -> tuple[np.ndarray, np.ndarray]:
    """Count and white-chip logits of the pictures ``index``, each the mean of the window's and its
    ``mirrors``' (:data:`vision.counter.MIRRORS` for the pit and store networks): what the counter
    says of every window it is unsure of (``vision.counter.CounterModel.read``; a window it is sure
    of is read once), so that the temperature is fitted to the readings that decide. (The pit
    network's partner, which the counter also averages in there, is left out: fitted with it in,
    the pit network's temperature is sharper, and its first look, which alone decides sure
    windows and heaps, then reads heaps of 20+ worse; docs/vision.md, section 6.)"""
    counts, whites = [], []
    for start in range(0, len(index), 512):
        chosen = index[start:start + 512]
        views = [forward(pictures.batch(chosen))]
        views += [forward(pictures.batch(chosen, (columns, rows))) for rows, columns in mirrors]
        counts.append(np.mean([c for c, _ in views], axis=0))
        whites.append(np.mean([w for _, w in views], axis=0))
    return np.concatenate(counts), np.concatenate(whites)


def fit_temperature(logits: np.ndarray, truth: np.ndarray) -> float:
    """The temperature that makes held-out probabilities honest (least negative log likelihood)."""
    def nll(t: float) -> float:
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        return float(-(z[np.arange(len(truth)), truth] - np.log(np.exp(z).sum(axis=1))).mean())
    grid = np.exp(np.linspace(math.log(0.25), math.log(4.0), 81))
    return float(min(grid, key=nll))


def held_out_figures(count_logits: np.ndarray, white_logits: np.ndarray, pictures: Pictures, index: np.ndarray,
                     temperature: float) -> dict:
    """Accuracy by heap size and the 95 % set's hit rate on held-out set-ups (training's mix of counts)."""
    z = count_logits / temperature
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    truth, guess = pictures.counts[index], p.argmax(axis=1)
    order = np.argsort(-p, axis=1)
    needed = (np.cumsum(np.take_along_axis(p, order, axis=1), axis=1) < 0.95).sum(axis=1) + 1
    in_set = (order == truth[:, None]) & (np.arange(p.shape[1])[None, :] < needed[:, None])
    figures: dict = {"pictures": int(len(index)), "truth in 95% set": round(float(in_set.any(axis=1).mean()), 4)}
    for low, high, name in ((0, 0, "0"), (1, 4, "1-4"), (5, 9, "5-9"), (10, 19, "10-19"), (20, 999, "20+")):
        chosen = (truth >= low) & (truth <= high)
        if chosen.any():
            figures[f"exact {name}"] = round(float((guess[chosen] == truth[chosen]).mean()), 4)
            figures[f"within one {name}"] = round(float((np.abs(guess[chosen] - truth[chosen]) <= 1).mean()), 4)
    white = pictures.white[index]
    if (white >= 0).any():
        chips = white >= 0
        figures["white exact"] = round(float((white_logits[chips].argmax(axis=1) == white[chips]).mean()), 4)
    return figures


def export(model: Counter, kind: str, out: Path, description: dict) -> None:
    """Write the network as ONNX, taking a batch of any size (every window of a board at once),
    and its description as JSON."""
    model.eval()
    width, height = PatchShape.of(window_kind(kind)).size
    onnx_path, json_path = model_paths(out, kind)
    out.mkdir(parents=True, exist_ok=True)
    batch = {name: {0: "batch"} for name in (INPUT, *OUTPUTS)}
    torch.onnx.export(model, torch.zeros(1, CHANNELS, height, width), str(onnx_path), input_names=[INPUT],
                      output_names=OUTPUTS, dynamic_axes=batch, opset_version=13, dynamo=False)
    json_path.write_text(json.dumps(description, indent=1) + "\n")


def saved_counter(path: Path, kind: str, widths: tuple[int, ...], missing: str) -> Counter:
    """The network for ``kind`` a run saved in ``path`` (``torch.save`` of its state); a missing
    or unreadable file stops the run with ``missing`` and why, and one of other layers than
    ``widths`` (``--widths``) says so."""
    try:
        state = torch.load(path)
    except OSError as error:
        raise SystemExit(f"{missing} ({error})") from None
    model = Counter(count_classes(kind), WHITE_TRAINING_MAX + 1, widths)
    try:
        model.load_state_dict(state)
    except RuntimeError:  # torch names every layer that does not fit: the widths say it in one line
        raise SystemExit(f"{path}: a {kind} network of other layers than --widths {','.join(map(str, widths))}") from None
    return model


def run_alone(kind: str, data: list[Path], out: Path, epochs: int, seed: int, threads: int, resume: bool = False,
              widths: tuple[int, ...] = WIDTHS, rate: float | None = None, continue_from: Path | None = None) -> None:
    """Train the heap network (on ``data``'s heap.npz) or the partner (on their pit.npz) and save
    it as ``heap_counter.pt`` or ``partner_counter.pt`` beside its export; ``resume`` trains the
    one saved there further (for ``epochs``; none: export it again), at peak ``rate``;
    ``continue_from`` the one exported in that folder instead (at ``CONTINUED_RATE`` unless given
    a ``rate``), as :func:`run` continues the others."""
    torch.set_num_threads(threads)
    saved = out / f"{kind}_counter.pt"
    start, continued = None, None
    if continue_from is not None:
        start, description = exported_counter(continue_from, kind)
        rate, continued = rate or CONTINUED_RATE, {"from": str(continue_from), "trained": description.get("trained")}
    elif resume:
        start = saved_counter(saved, kind, widths, f"--resume: no {kind} network saved; train one first")
        continued = {"from": str(saved), "trained": exported_training(out, kind)}
    model = train_counter(kind, data, out, epochs, seed, start=start, rate=rate, widths=widths, continued=continued)
    torch.save(model.state_dict(), saved)


def exported_training(folder: Path, kind: str) -> dict | None:
    """How the network for ``kind`` exported in ``folder`` was trained (its description's
    ``trained``), so that a network trained further carries its whole history; None when no
    description is there (a saved network copied alone)."""
    _, json_path = model_paths(folder, kind)
    try:
        return json.loads(json_path.read_text()).get("trained")
    except FileNotFoundError:
        return None


def run(data: list[Path], out: Path, epochs: int, store_epochs: int, seed: int, threads: int,
        store_only: bool = False, continue_from: Path | None = None, density: float = 0.0,
        widths: tuple[int, ...] = WIDTHS, teacher: Teacher | None = None) -> None:
    """Train the pit network, then the store network from its layers; ``store_only`` trains the
    store network again from the pit network a run saved in ``out`` (``pit_counter.pt``);
    ``continue_from`` trains both networks exported there further, each on its own. ``widths``:
    the channels of a new network's layers; ``teacher``: exported networks that new ones also
    learn from (:func:`distillation`)."""
    torch.set_num_threads(threads)
    out.mkdir(parents=True, exist_ok=True)
    if continue_from is not None:
        for kind, kind_epochs in (("pit", epochs), ("store", store_epochs)):
            model, description = exported_counter(continue_from, kind)
            train_counter(kind, data, out, kind_epochs, seed, start=model, rate=CONTINUED_RATE, density=density,
                          teacher=teacher, continued={"from": str(continue_from), "trained": description.get("trained")})
        return
    trunk_path = out / "pit_counter.pt"
    if store_only:
        trunk = saved_counter(trunk_path, "pit", widths, "--store-only: no pit network saved; train both first")
    else:
        trunk = train_counter("pit", data, out, epochs, seed, density=density, widths=widths, teacher=teacher)
        torch.save(trunk.state_dict(), trunk_path)
    train_counter("store", data, out, store_epochs, seed, trunk, density=density, widths=widths, teacher=teacher)


def train_counter(kind: str, data: list[Path], out: Path, epochs: int, seed: int, trunk: Counter | None = None,
                  start: Counter | None = None, rate: float | None = None, continued: dict | None = None,
                  density: float = 0.0, widths: tuple[int, ...] = WIDTHS, teacher: Teacher | None = None) -> Counter:
    """Train, calibrate and export the network for ``kind``; a ``trunk`` (the pit network) gives
    the store network its first layers, since stores are few in the pictures; a ``start`` is a
    whole network to train further (at a lower ``rate``; ``continued`` says where it came from).
    A ``teacher``'s network for ``kind`` teaches it too (:func:`distillation`)."""
    torch.manual_seed(seed)  # each network from its own seed: a store-only run makes the same one
    counts = count_classes(kind)
    pictures = Pictures([folder / f"{window_kind(kind)}.npz" for folder in data])
    model = start if start is not None else Counter(counts, WHITE_TRAINING_MAX + 1, widths)
    taught_by = teacher.networks[kind] if teacher is not None else None
    if trunk is not None:
        model.features.load_state_dict(trunk.features.state_dict())
        model.hidden.load_state_dict(trunk.hidden.state_dict())
        model.density.load_state_dict(trunk.density.state_dict())
    print(f"{kind}: {int((~pictures.held_out).sum())} training pictures, {int(pictures.held_out.sum())} held out")
    rate = rate or (3e-3 if trunk is None else 1.5e-3)
    if epochs:
        train(model, pictures, epochs, rate, seed, density, taught_by)
    honesty_figures = honesty(predict(model, pictures, np.nonzero(pictures.held_out)[0], reading_mirrors(kind)),
                              pictures)
    shape = PatchShape.of(window_kind(kind))
    width, height = shape.size
    export(model, kind, out, {
        "format": "pitwatch-seed-counter", "version": 1, "kind": kind,
        "input": {"channels": CHANNELS, "width": width, "height": height, "px_per_mm": shape.px_per_mm},
        "counts": counts, "whites": WHITE_TRAINING_MAX + 1, **honesty_figures,
        "training_prior": [round(float(v), 6) for v in count_prior(window_kind(kind))],
        "trained": {"data": [str(folder) for folder in data], "epochs": epochs, "rate": rate, "seed": seed, "density": density,
                    "widths": list(model.widths), **({"teacher": str(teacher.folder)} if teacher is not None else {}),
                    "torch": torch.__version__, "pictures": int((~pictures.held_out).sum()),
                    **({"continued": continued} if continued else {})},
    })
    return model


def honesty(logits: tuple[np.ndarray, np.ndarray], pictures: Pictures) -> dict:
    """The temperatures that make a network's held-out readings (``logits`` of every held-out
    picture, from :func:`mean_view_logits`) honest, and its held-out figures, as its description
    records them."""
    held = np.nonzero(pictures.held_out)[0]
    count_logits, white_logits = logits
    temperature = fit_temperature(count_logits, pictures.counts[held])
    chips = pictures.white[held] >= 0
    white_temperature = fit_temperature(white_logits[chips], pictures.white[held][chips])
    figures = held_out_figures(count_logits, white_logits, pictures, held, temperature)
    print(f"  temperatures {temperature:.3f} (counts), {white_temperature:.3f} (white chips); held out: {figures}")
    return {"temperature": round(temperature, 4), "white_temperature": round(white_temperature, 4), "held_out": figures}


def recalibrate(data: list[Path], out: Path) -> None:
    """Fit the temperatures of the exported networks in ``out`` again on the held-out pictures of
    ``data``, as Pitwatch runs them, without training them again: for when the counter changes how
    it reads (more mirror images, say), which changes how sure its averaged readings are."""
    for kind in KINDS:
        if not all((folder / f"{window_kind(kind)}.npz").exists() for folder in data):
            continue  # the heap network's pictures are rendered apart (dataset --heaps)
        onnx_path, json_path = model_paths(out, kind)
        net = load_network(onnx_path, kind)
        pictures = Pictures([folder / f"{window_kind(kind)}.npz" for folder in data])
        print(f"{kind}: {int(pictures.held_out.sum())} held out")
        description = json.loads(json_path.read_text())
        logits = mean_view_logits(lambda x: network_logits(net, x.numpy()), pictures, np.nonzero(pictures.held_out)[0],
                                  reading_mirrors(kind))
        description.update(honesty(logits, pictures))
        json_path.write_text(json.dumps(description, indent=1) + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, nargs="+",
                        help="folders with pit.npz and store.npz (vision.training.dataset), each of other set-ups")
    parser.add_argument("-o", "--output", type=Path, required=True, help="folder for the .onnx and .json files")
    parser.add_argument("--epochs", type=int, default=16)
    parser.add_argument("--store-epochs", type=int, default=36)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--store-only", action="store_true",
                        help="train only the store network, from the pit network an earlier run saved in OUTPUT")
    parser.add_argument("--continue-from", type=Path, metavar="FOLDER",
                        help="train the networks exported in FOLDER further on DATA (new set-ups) instead of new ones")
    parser.add_argument("--density", type=float, default=0.0, metavar="WEIGHT",
                        help="also teach where the seeds lie (needs pictures with seed centres), this much of the loss")
    parser.add_argument("--widths", type=_widths, default=WIDTHS, metavar="W,W,W,W,W,W",
                        help="channels of a new network's six layers (default %(default)s)")
    parser.add_argument("--teacher", type=Path, metavar="FOLDER",
                        help="exported networks in FOLDER that the new ones also learn from (distillation)")
    parser.add_argument("--recalibrate", action="store_true",
                        help="train nothing: fit the temperatures of the networks in OUTPUT again on DATA's held-out pictures")
    parser.add_argument("--heaps", action="store_true",
                        help="train only the heap network, on DATA's heap.npz (vision.training.dataset --heaps)")
    parser.add_argument("--partner", action="store_true",
                        help="train only the pit network's partner, on DATA's pit.npz")
    parser.add_argument("--resume", action="store_true",
                        help="with --heaps or --partner: train the network saved in OUTPUT (heap_counter.pt, "
                             "partner_counter.pt) further")
    parser.add_argument("--rate", type=float, help="with --heaps or --partner: the peak learning rate (default 3e-3)")
    args = parser.parse_args(argv)
    if args.heaps and args.partner:
        parser.error("--heaps or --partner: one network at a time")
    alone = "heap" if args.heaps else "partner" if args.partner else None
    if args.resume and alone is None:
        parser.error("--resume goes with --heaps or --partner")
    if args.resume and args.continue_from is not None:
        parser.error(f"--resume or --continue-from: the {alone} network saved in OUTPUT or the one exported in FOLDER, "
                     "not both")
    try:
        if args.recalibrate:
            recalibrate(args.data, args.output)
        elif alone is not None:
            run_alone(alone, args.data, args.output, args.epochs, args.seed, args.threads, args.resume, args.widths,
                      args.rate, args.continue_from)
        else:
            teacher = Teacher.load(args.teacher) if args.teacher is not None else None
            run(args.data, args.output, args.epochs, args.store_epochs, args.seed, args.threads, args.store_only,
                args.continue_from, args.density, args.widths, teacher)
    except ValueError as error:  # pictures or a teacher that cannot train a network: say which, no traceback
        parser.error(str(error))
    except OSError as error:  # a folder without the pictures asked for (heap.npz: rendered with dataset --heaps)
        parser.error(f"{error.filename}: {error.strerror}")


def _widths(text: str) -> tuple[int, ...]:
    """``"16,24,48,96,160,224"`` -> the widths of a new network's layers."""
    try:
        numbers = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of whole numbers W,W,W,W,W,W") from None
    try:
        return checked_widths(numbers)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


if __name__ == "__main__":
    main()
