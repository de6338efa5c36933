"""The seed counter networks: shipped, described, checked on load, honest about their training mix."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from vision import counter
from vision.counter import (HEAP_FROM, HEAP_LEAST, KINDS, MODELS, OUT_OF_FOCUS, OUT_OF_FOCUS_KINDS, CounterError,
                            CounterModel, SeedCounter, mirrored, model_paths, widened, window_kind)
from vision.patches import PatchShape


def windows(kind, count, seed=0):
    width, height = PatchShape.of(window_kind(kind)).size
    return np.random.default_rng(seed).uniform(-0.5, 0.5, (count, 6, height, width)).astype(np.float32)


@pytest.mark.parametrize("kind, counts", [("pit", 49), ("store", 81), ("heap", 49), ("partner", 49)])
def test_shipped_networks_load_and_answer_a_probability_per_count(kind, counts):
    model = CounterModel(kind)
    read = model.read(windows(kind, 3))
    assert len(read) == 3
    for answer in read:
        assert answer.counts.shape == (counts,) and answer.counts.sum() == pytest.approx(1.0)
        assert answer.whites.sum() == pytest.approx(1.0)


def test_a_batch_reads_as_its_windows_one_by_one():
    model = CounterModel("pit")
    batch = windows("pit", 4, seed=1)
    together = model.read(batch)
    for k in range(4):
        alone = model.read(batch[k:k + 1])[0]
        assert np.allclose(alone.counts, together[k].counts, atol=1e-6)


@pytest.mark.parametrize("kind", ["pit", "store"])
@pytest.mark.parametrize("rows, columns", counter.MIRRORS)
def test_an_unsure_window_is_read_in_its_mirror_images_too_and_then_reads_the_same_in_each(kind, rows, columns,
                                                                                         monkeypatch):
    """A window the network is unsure of is read as cut and in its left-right mirror image and
    the two averaged, so the lamp's side cannot change its count; the network alone is not that
    even-handed, and a window it is sure of is read once."""
    model = CounterModel(kind)
    batch = windows(kind, 3, seed=2)
    mirror = mirrored(batch, rows, columns)
    monkeypatch.setattr(counter, "SURE", 1.01)  # every window unsure
    for as_cut, as_mirrored in zip(model.read(batch), model.read(mirror)):
        assert np.allclose(as_cut.counts, as_mirrored.counts, atol=1e-6)
        assert np.allclose(as_cut.whites, as_mirrored.whites, atol=1e-6)
    monkeypatch.setattr(counter, "SURE", 0.0)  # every window sure: read once, as cut
    once = [answer.counts for answer in model.read(batch)]
    assert not np.allclose(once, [answer.counts for answer in model.read(mirror)], atol=1e-3)


def test_the_pit_networks_partner_reads_again_the_windows_it_is_unsure_of(monkeypatch):
    """In the counter, an unsure pit window's reading is the mean of three views' logits: the pit
    network's as cut and mirrored, and its partner's (a network trained apart) as cut; a sure
    window is read once, by the pit network alone."""
    batch = windows("pit", 3, seed=8)
    pit, partner = CounterModel("pit"), CounterModel("partner")
    as_cut, mirror, by_partner = (model.first_look(views) for model, views in
                                  ((pit, batch), (pit, mirrored(batch, *counter.MIRRORS[0])), (partner, batch)))
    monkeypatch.setattr(counter, "HEAP_SHARE", 1.01)  # no pit is a heap
    monkeypatch.setattr(counter, "SURE", 1.01)  # every window unsure
    read = SeedCounter().read_pits(batch, _Heaps(3))
    counts = pit.probabilities((as_cut[0] + mirror[0] + by_partner[0]) / 3)
    whites = pit.white_probabilities((as_cut[1] + mirror[1] + by_partner[1]) / 3)
    without = pit.probabilities((as_cut[0] + mirror[0]) / 2)
    for k, answer in enumerate(read):
        assert np.allclose(answer.counts, counts[k], atol=1e-6) and np.allclose(answer.whites, whites[k], atol=1e-6)
        assert not np.allclose(answer.counts, without[k], atol=1e-3)
    monkeypatch.setattr(counter, "SURE", 0.0)  # every window sure: the pit network's first look alone
    for answer, once in zip(SeedCounter().read_pits(batch, _Heaps(3)), pit.probabilities(as_cut[0])):
        assert np.allclose(answer.counts, once, atol=1e-6)


def test_mirrored_reverses_rows_or_columns():
    batch = np.arange(2 * 1 * 2 * 3, dtype=np.float32).reshape(2, 1, 2, 3)
    assert (mirrored(batch, True, False)[:, :, 0] == batch[:, :, 1]).all()
    assert (mirrored(batch, False, True)[..., 0] == batch[..., 2]).all()
    assert (mirrored(batch, True, True)[:, :, 0, 0] == batch[:, :, 1, 2]).all()
    assert mirrored(batch, True, True).flags.c_contiguous


def test_the_heap_network_never_reads_a_count_it_was_not_shown():
    """Trained on pits of HEAP_LEAST seeds or more only, it says nothing of fewer (its training mix
    has no weight there, and dividing that out must not make them likely)."""
    for answer in CounterModel("heap").read(windows("heap", 3, seed=3)):
        assert (answer.counts[:HEAP_LEAST] == 0).all() and answer.counts[HEAP_LEAST:].sum() == pytest.approx(1.0)


class _Heaps:
    """The heap windows of a batch of pit windows, and which ones the counter asked for."""

    def __init__(self, count):
        self.all, self.asked = windows("heap", count, seed=4), []

    def __call__(self, chosen):
        self.asked.append(list(chosen))
        return self.all[chosen]


def test_pits_read_as_small_heaps_are_read_as_the_pit_network_reads_them(monkeypatch):
    seeds, batch = SeedCounter(), windows("pit", 4, seed=5)
    heaps = _Heaps(4)
    monkeypatch.setattr(counter, "HEAP_SHARE", 1.01)  # no pit is a heap
    for read, alone in zip(seeds.read_pits(batch, heaps), seeds.read("pit", batch)):
        assert np.array_equal(read.counts, alone.counts) and np.array_equal(read.whites, alone.whites)
    assert heaps.asked == []


def test_a_heap_is_read_again_by_the_heap_network_pooled_with_the_pit_networks_first_look(monkeypatch):
    """Counts under HEAP_LEAST keep the pit network's first look; its chance of HEAP_LEAST or more
    is shared out as the geometric mean of the two networks' readings says (the heap window read
    once, not mirrored), and so are the white chips."""
    seeds, batch = SeedCounter(), windows("pit", 3, seed=6)
    heaps = _Heaps(3)
    monkeypatch.setattr(counter, "HEAP_SHARE", 0.0)  # every pit a heap
    read = seeds.read_pits(batch, heaps)
    assert heaps.asked == [[0, 1, 2]]
    pit, heap = CounterModel("pit"), CounterModel("heap")
    count_logits, white_logits = pit.first_look(batch)
    first, first_whites = pit.probabilities(count_logits), pit.white_probabilities(white_logits)
    heap_logits, heap_whites = heap.first_look(heaps.all)
    by_heap, heap_whites = heap.probabilities(heap_logits), heap.white_probabilities(heap_whites)
    for k, answer in enumerate(read):
        assert np.allclose(answer.counts[:HEAP_LEAST], first[k, :HEAP_LEAST])
        pooled = np.sqrt(first[k, HEAP_LEAST:] * by_heap[k, HEAP_LEAST:])
        assert np.allclose(answer.counts[HEAP_LEAST:], first[k, HEAP_LEAST:].sum() * pooled / pooled.sum())
        assert np.allclose(answer.whites, np.sqrt(first_whites[k] * heap_whites[k]) / np.sqrt(first_whites[k] * heap_whites[k]).sum())
        assert answer.counts.sum() == pytest.approx(1.0)


def test_only_the_pits_likely_to_hold_a_heap_are_cut_again(monkeypatch):
    seeds, batch = SeedCounter(), windows("pit", 6, seed=7)
    pit = CounterModel("pit")
    chance = pit.probabilities(pit.first_look(batch)[0])[:, HEAP_FROM:].sum(axis=1)
    monkeypatch.setattr(counter, "HEAP_SHARE", float(np.median(chance)))
    heaps = _Heaps(6)
    seeds.read_pits(batch, heaps)
    assert heaps.asked == [np.flatnonzero(chance >= np.median(chance)).tolist()] and 0 < len(heaps.asked[0]) < 6


@pytest.fixture()
def copied(tmp_path):
    (tmp_path / OUT_OF_FOCUS).mkdir()
    for folder, kinds in ((MODELS, KINDS), (MODELS / OUT_OF_FOCUS, OUT_OF_FOCUS_KINDS)):
        for kind in kinds:
            for path in model_paths(folder, kind):
                shutil.copy(path, tmp_path / folder.relative_to(MODELS) / path.name)
    return tmp_path


def _describe(folder, change):
    path = model_paths(folder, "pit")[1]
    description = json.loads(path.read_text())
    change(description)
    path.write_text(json.dumps(description))


def test_the_training_mix_is_divided_out(copied):
    """Two counters that differ only in the mix of counts they say training showed: their
    answers differ by exactly the ratio of the two mixes (the reading has a flat prior)."""
    prior = np.asarray(json.loads(model_paths(copied, "pit")[1].read_text())["training_prior"])
    before = CounterModel("pit", copied).read(windows("pit", 1))[0].counts
    tilted = prior * np.linspace(1.0, 3.0, len(prior))
    _describe(copied, lambda d: d.update(training_prior=list(tilted / tilted.sum())))
    after = CounterModel("pit", copied).read(windows("pit", 1))[0].counts
    ratio = after / before * (tilted / prior)
    assert np.allclose(ratio / ratio[0], 1.0)


@pytest.mark.parametrize("change, field", [
    (lambda d: d.update(format="other"), "not a seed counter"),
    (lambda d: d.update(version=7), "expected version 1 of the pit counter"),
    (lambda d: d.update(kind="store"), "expected version 1 of the pit counter"),
    (lambda d: d["input"].update(width=50), "input: the network was trained on"),
    (lambda d: d.update(training_prior=[1.0]), "training_prior"),
    (lambda d: d.update(training_prior=[-1.0] + d["training_prior"][1:]), "training_prior: .* none negative"),
    (lambda d: d.update(training_prior=[0.0] * len(d["training_prior"])), "training_prior"),
    (lambda d: d.update(temperature="warm"), "temperature: expected a number"),
    (lambda d: d.pop("white_temperature"), "white_temperature: expected a number"),
])
def test_a_description_that_does_not_fit_is_refused_naming_the_field(copied, change, field):
    _describe(copied, change)
    with pytest.raises(CounterError, match=field):
        CounterModel("pit", copied)


def test_missing_or_broken_files_are_named(copied):
    onnx_path, json_path = model_paths(copied, "pit")
    onnx_path.write_bytes(b"not a network")
    with pytest.raises(CounterError, match="pit_counter.onnx: cannot load the pit counter"):
        CounterModel("pit", copied)
    json_path.unlink()
    with pytest.raises(CounterError, match="pit_counter.json: cannot read"):
        CounterModel("pit", copied)


@pytest.mark.parametrize("kind", ["pit", "partner"])  # the partner reads the pit network's windows
def test_a_network_for_another_window_is_refused_naming_both_shapes(copied, kind):
    onnx_path, store_onnx = model_paths(copied, kind)[0], model_paths(copied, "store")[0]
    shutil.copy(store_onnx, onnx_path)
    with pytest.raises(CounterError, match=rf"{kind}_counter.onnx: expected windows of shape \(batch, 6, 46, 52\), "
                                           r"the network takes \['batch', 6, 104, 48\]"):
        CounterModel(kind, copied)


def test_a_network_exported_for_one_window_at_a_time_is_refused(copied):
    """OpenCV's DNN module ran files exported with a batch of 1; ONNX Runtime would refuse a
    board's windows at once on the first frame, so loading says so. The batch dimension's name
    (field 2 of the dimension, the string "batch") becomes the value 1 (field 1, a varint of the
    same 7 bytes with padding, which protobuf accepts), so no other byte of the file moves."""
    onnx_path = model_paths(copied, "pit")[0]
    named = onnx_path.read_bytes()
    assert named.count(b"\x12\x05batch") == 3  # the input and both outputs
    onnx_path.write_bytes(named.replace(b"\x12\x05batch", b"\x08\x81\x80\x80\x80\x80\x00"))
    with pytest.raises(CounterError, match=r"the network takes \[1, 6, 46, 52\]: export it again"):
        CounterModel("pit", copied)


def test_widening_keeps_the_order_and_flattens():
    p = np.array([0.01, 0.9, 0.09])
    assert widened(p, 1.0) is p
    wide = widened(p, 3.0)
    assert wide.sum() == pytest.approx(1.0) and np.argmax(wide) == 1 and wide[1] < p[1] and wide[0] > p[0]


def test_an_installation_without_the_heap_network_is_named(copied):
    """The heap network is part of the counter: a folder of only the pit and store networks (one
    trained before 2026-11-28) is refused on load, naming the missing file, not on a heap."""
    model_paths(copied, "heap")[1].unlink()
    with pytest.raises(CounterError, match="heap_counter.json: cannot read the heap counter's description"):
        SeedCounter(copied)


def test_an_installation_without_the_partner_is_named(copied):
    """So is one without the pit network's partner (one trained before 2026-11-29)."""
    model_paths(copied, "partner")[0].unlink()
    with pytest.raises(CounterError, match="partner_counter.onnx: cannot load the partner counter"):
        SeedCounter(copied)



def test_an_installation_without_the_networks_trained_out_of_focus_is_named(copied):
    """They are loaded with the others, so a missing one shows when Pitwatch starts, not on the
    first blurred frame of a game."""
    SeedCounter(copied)  # the whole installation loads
    model_paths(copied / OUT_OF_FOCUS, "store")[1].unlink()
    with pytest.raises(CounterError, match=f"{OUT_OF_FOCUS}/store_counter.json: cannot read the store counter's description"):
        SeedCounter(copied)


@pytest.mark.parametrize("kind", OUT_OF_FOCUS_KINDS)
def test_the_networks_trained_out_of_focus_are_shipped_and_are_other_networks(kind):
    """The same window and counts as the networks trained in focus, other weights."""
    sharp, soft = CounterModel(kind), CounterModel(kind, MODELS / OUT_OF_FOCUS)
    batch = windows(kind, 3, seed=8)
    assert all(a.counts.shape == b.counts.shape for a, b in zip(sharp.read(batch), soft.read(batch)))
    assert not np.allclose(sharp.first_look(batch)[0], soft.first_look(batch)[0], atol=1e-3)


def test_a_picture_out_of_focus_is_read_by_the_networks_trained_so(monkeypatch):
    """``out_of_focus`` reads a store's windows, and a pit's with its partner, by the networks of
    ``OUT_OF_FOCUS``; without it, by the ones trained in focus."""
    seeds = SeedCounter()
    monkeypatch.setattr(counter, "SURE", 1.01)  # every window read again: by the partner too
    store = windows("store", 2, seed=9)
    for out_of_focus, folder in ((False, MODELS), (True, MODELS / OUT_OF_FOCUS)):
        expected = CounterModel("store", folder).read(store)
        for got, wanted in zip(seeds.read("store", store, out_of_focus=out_of_focus), expected):
            assert np.allclose(got.counts, wanted.counts, atol=1e-6)
        pits = windows("pit", 2, seed=10)
        expected = CounterModel("pit", folder, CounterModel("partner", folder)).read(pits)
        monkeypatch.setattr(counter, "HEAP_SHARE", 1.01)  # no window read as a heap
        for got, wanted in zip(seeds.read_pits(pits, _Heaps(2), out_of_focus=out_of_focus), expected):
            assert np.allclose(got.counts, wanted.counts, atol=1e-6)


def test_onnx_runtime_sends_no_telemetry_and_keeps_no_device_id(tmp_path):
    """ONNX Runtime 1.29+ reports usage from Linux unless told not to before it is imported: it
    kept a device id under the home folder, and warned on every start where it could not."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    load = "from vision.counter import shared_counter; shared_counter(); import os; print(os.environ['ORT_DISABLE_TELEMETRY'])"
    done = subprocess.run([sys.executable, "-c", load], env={**env, "HOME": str(home)}, capture_output=True, text=True,
                          timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "1\n", "")
    assert not any(home.iterdir())
