"""The counter's training pictures: cut as the reader cuts, labelled with the renderer's truth,
in the mix of counts the counter is told it was trained on."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.profiles import board_profile
from vision.counter import HEAP_LEAST, SeedCounter
from vision.patches import PatchCutter, PatchShape, network_input
from vision.reader import BoardReader
from vision.render import Shot, render
from vision.training.dataset import (BOARDS, count_prior, load_patches, seed_cells, seen_in_depth, setup_patches,
                                     training_counts)


def test_training_counts_follow_the_declared_mix():
    """The counter divides this mix out of its answers, so it must be the mix training shows."""
    profile = board_profile("2x6+stores")
    rng = np.random.default_rng(1)
    pits, stores = [], []
    for _ in range(3000):
        counts, _ = training_counts(profile, rng)
        pits += [n for label, n in counts.items() if label not in ("S", "N")]
        stores += [counts["S"], counts["N"]]
    for kind, seen in (("pit", pits), ("store", stores)):
        prior = count_prior(kind)
        observed = np.bincount(seen, minlength=len(prior)) / len(seen)
        assert len(observed) == len(prior) and abs(observed - prior).max() < 0.01, kind


def test_pictures_of_a_chip_board_carry_counts_and_white_chips():
    setup = BOARDS.index("2x5+outboxes")
    pictures = setup_patches(setup, frames=3)
    assert set(pictures) == {"pit", "store"}
    for kind, patches in pictures.items():
        width, height = PatchShape.of(kind).size
        assert patches.relit and all(window.shape == (height, width, 3) for window in patches.relit)
        assert max(patches.empty_index) < len(patches.empty) and set(patches.setup) == {setup}
        assert all(0 <= white <= min(n, 3) for n, white in zip(patches.counts, patches.white))
        assert set(patches.seed_kind) == {"chip"}
    assert len(pictures["pit"].counts) <= 3 * 10 and len(pictures["store"].counts) <= 3 * 2


def test_sets_rendered_in_separate_runs_train_as_one(tmp_path):
    """Joined files keep every relit window with its own set-up's empty board; a set-up saved
    twice is refused, naming both files."""
    first, second = (setup_patches(BOARDS.index(board), frames=2)["pit"] for board in ("2x6+stores", "2x6"))
    first.save(tmp_path / "a.npz", PatchShape.of("pit"))
    second.save(tmp_path / "b.npz", PatchShape.of("pit"))
    joined = load_patches([tmp_path / "a.npz", tmp_path / "b.npz"])
    assert len(joined["relit"]) == len(first.relit) + len(second.relit) == len(joined["empty_index"])
    for patches in (first, second):
        rows = np.nonzero(joined["setup"] == patches.setup[0])[0]
        assert [int(i) for i in joined["counts"][rows]] == patches.counts
        for row, index in zip(rows, patches.empty_index):
            assert np.array_equal(joined["empty"][joined["empty_index"][row]], patches.empty[index])
    per_window = np.bincount(joined["seed_window"], minlength=len(joined["relit"]))
    assert np.array_equal(per_window, joined["counts"])  # every seed kept, with its own window
    with pytest.raises(ValueError, match=r"set-up \d+ is in both .*a\.npz and .*a\.npz"):
        load_patches([tmp_path / "a.npz", tmp_path / "a.npz"])


def test_a_training_picture_is_what_the_reader_shows_the_counter(kalah_setup):
    """For the same frame, the windows BoardReader.read hands the counter are exactly the
    training cut (reader.view, then the cutter's relit windows beside the empty board), the
    heap windows of the pits it reads as heaps too."""
    scene, calibration = kalah_setup
    frame = render(scene, {"A": 3, "C": 14, "S": 9}, None, Shot(seed=4, gain=0.8)).image

    class Recorder(SeedCounter):
        def __init__(self):
            super().__init__()
            self.seen = {}

        def read(self, kind, windows, out_of_focus=False):
            self.seen[kind] = windows.copy()
            return super().read(kind, windows, out_of_focus)

        def read_pits(self, windows, heap_windows, out_of_focus=False):
            def recorded(chosen):
                self.seen["heap"] = chosen, heap_windows(chosen).copy()
                return self.seen["heap"][1]
            self.seen["pit"] = windows.copy()
            return super().read_pits(windows, recorded, out_of_focus)

    recorder = Recorder()
    BoardReader(calibration, recorder).read(frame)
    view = BoardReader(calibration).view(frame)
    cutter = PatchCutter(calibration, kinds=("pit", "store", "heap"))
    for kind, labels in cutter.labels.items():
        relit = cutter.relit(view.board, view.log_gain)[kind]
        training = network_input(relit, cutter.empty(kind), len(labels))
        if kind == "heap":
            chosen, seen = recorder.seen[kind]
            assert [labels[k] for k in chosen] == ["C"]
            training = training[chosen]
        else:
            seen = recorder.seen[kind]
        assert np.array_equal(seen, training), kind


def test_the_heap_networks_pictures_are_the_heaps_of_the_same_frames_cut_finer():
    """``dataset --heaps`` photographs the same frames with the same counts, and keeps the playing
    pits of HEAP_LEAST seeds or more, at the board's own scale."""
    setup = BOARDS.index("2x6+stores")
    pits, heaps = setup_patches(setup, frames=3)["pit"], setup_patches(setup, frames=3, kinds=("heap",))["heap"]
    assert heaps.counts == [n for n in pits.counts if n >= HEAP_LEAST] and heaps.counts
    width, height = PatchShape.of("heap").size
    assert all(window.shape == (height, width, 3) for window in heaps.relit + heaps.empty)
    assert heaps.seed_kind == [kind for kind, n in zip(pits.seed_kind, pits.counts) if n >= HEAP_LEAST]
    assert np.bincount(heaps.seed_window, minlength=len(heaps.relit)).tolist() == heaps.counts
    prior = count_prior("heap")
    assert (prior[:HEAP_LEAST] == 0).all() and np.allclose(prior[HEAP_LEAST:], count_prior("pit")[HEAP_LEAST:] / count_prior("pit")[HEAP_LEAST:].sum())


@pytest.mark.parametrize("kind, label", [("pit", "C"), ("store", "S")])
def test_every_seed_is_marked_where_it_lies_in_its_window(kalah_setup, kind, label):
    """The renderer's seed centres, taken into a window (PatchCutter.window_points), fall on the
    seed the window shows: the peak of what differs from the empty board."""
    scene, calibration = kalah_setup
    rendered = render(scene, {label: 1}, None, Shot(seed=5))
    view = BoardReader(calibration).view(rendered.image)
    cutter = PatchCutter(calibration)
    width, height = PatchShape.of(kind).size
    k = cutter.labels[kind].index(label)
    relit = cutter.relit(view.board, view.log_gain)[kind][k * height:(k + 1) * height].astype(np.float32)
    empty = cutter.empty(kind)[k * height:(k + 1) * height].astype(np.float32)
    difference = cv2.GaussianBlur(np.abs(relit - empty).sum(axis=2), (0, 0), 2.0)
    row, column = np.unravel_index(np.argmax(difference), difference.shape)
    [marked] = cutter.window_points(label, np.array(rendered.seeds[label]))
    assert len(rendered.seeds[label]) == 1 and all(not seeds for other, seeds in rendered.seeds.items() if other != label)
    assert np.hypot(column - marked[0], row - marked[1]) < 3.0, (column, row, marked)


def test_seed_cells_count_every_seed_in_its_cell_flipped_as_the_window():
    window, cells = (46, 52), (6, 7)  # a pit window (height, width), the network's last feature map over it

    def occupied(flip):
        grid = seed_cells(np.array([[0.0, 0.0], [51.0, 45.0], [20.0, 12.0], [60.0, -3.0]]), window, flip, cells, 8)
        assert grid.sum() == 4  # a seed beyond the grid counts in its edge cell
        return {tuple(int(v) for v in cell) for cell in np.argwhere(grid)}

    assert occupied((False, False)) == {(0, 0), (5, 6), (2, 3), (0, 6)}
    assert occupied((True, False)) == {(0, 6), (5, 0), (2, 4), (0, 0)}  # column 51 - x
    assert occupied((False, True)) == {(5, 0), (0, 6), (4, 3), (5, 6)}  # row 45 - y


@pytest.fixture
def photographs(monkeypatch):
    """Every frame the training set-ups are rendered as, in order: (scene, shot, rendered)."""
    import vision.training.dataset as dataset

    taken = []

    def photographed(scene, counts, white=None, shot=Shot()):
        rendered = render(scene, counts, white, shot)
        taken.append((scene, shot, rendered))
        return rendered

    monkeypatch.setattr(dataset, "render", photographed)
    return taken


def test_a_set_up_photographed_in_a_smaller_picture_is_the_same_board_in_less_detail(photographs):
    """``--frame 640x480`` trains for a webcam left at its starting size: the same set-up, counts
    and windows, each photographed in 640 x 480 pictures and resampled from fewer camera pixels,
    so the windows show less fine detail."""
    setup = BOARDS.index("2x6")
    large, small = (setup_patches(setup, frames=2, frame=frame)["pit"] for frame in ((1280, 720), (640, 480)))
    sizes = [rendered.image.shape[1::-1] for _, _, rendered in photographs]
    assert set(sizes[:len(sizes) // 2]) == {(1280, 720)} and set(sizes[len(sizes) // 2:]) == {(640, 480)}
    assert small.counts == large.counts and len(small.relit) == len(large.relit) > 0
    assert small.relit[0].shape == large.relit[0].shape

    def detail(patches) -> float:  # mean size of the windows' finest changes (Laplacian)
        return float(np.mean([np.abs(cv2.Laplacian(window.astype(np.float32), cv2.CV_32F)).mean() for window in patches.relit]))

    assert detail(small) < 0.95 * detail(large), (detail(small), detail(large))  # measured 8.06 against 8.85


def test_a_picture_size_that_is_not_one_is_named_before_anything_is_rendered(tmp_path, capsys):
    from vision.training.dataset import main

    for text, named in (("640*480", "'640*480' is not a picture size"), ("0x0", "'0x0': expected a width of 160-7680 px")):
        with pytest.raises(SystemExit):
            main(["--frame", text, "--setups", "0:1", "-o", str(tmp_path / "out")])
        assert f"--frame = {named}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_lamp_lights_a_share_of_the_frames_and_leaves_their_boards_as_they_were(photographs):
    """``--lamp SHARE`` trains for a club table under a lamp: that share of the frames carries a
    reflection of a strength in ``TRAINING_GLARE``, drawn from a stream of its own, so the counts,
    the seeds and every other condition of each frame are what they are without the lamp."""
    import vision.training.dataset as dataset

    setup = BOARDS.index("2x6")
    plain, lit = (setup_patches(setup, frames=3, lamp=share)["pit"] for share in (0.0, 1.0))
    shots = [shot for _, shot, _ in photographs]
    without, with_lamp = shots[1:4], shots[5:8]  # each run renders its empty board first
    assert [shot.glare for shot in without] == [0.0] * 3
    assert all(dataset.TRAINING_GLARE[0] <= shot.glare <= dataset.TRAINING_GLARE[1] for shot in with_lamp)
    assert [replace(shot, glare=0.0) for shot in with_lamp] == without
    assert lit.counts == plain.counts and len(lit.relit) == len(plain.relit)
    assert any(not np.array_equal(a, b) for a, b in zip(lit.relit, plain.relit))
    shares = [dataset.sometimes(Shot(), 0.3, [dataset.TRAINING_STREAM, 0, k, dataset.LAMP_STREAM], "glare",
                                dataset.TRAINING_GLARE).glare > 0 for k in range(2000)]
    assert abs(np.mean(shares) - 0.3) < 0.03


def test_a_lens_out_of_focus_softens_a_share_of_the_frames_and_leaves_the_rest_as_they_were(photographs):
    """``--defocus SHARE`` trains for a webcam focused for another distance: that share of the
    frames is photographed out of focus by a blur in ``TRAINING_DEFOCUS``, drawn from a stream of
    its own, so the counts and every other condition are what they are in focus, a lamp's
    reflection included; the empty board calibration is cut from stays sharp."""
    import vision.training.dataset as dataset

    setup = BOARDS.index("2x6") + 3 * len(BOARDS)  # a 2 x 6 board whose frames are drawn 2.4-3.1 px out of focus
    sharp, soft = (setup_patches(setup, frames=3, lamp=0.5, defocus=share)["pit"] for share in (0.0, 1.0))
    shots = [shot for _, shot, _ in photographs]
    empties, in_focus, out_of_focus = [shots[0], shots[4]], shots[1:4], shots[5:8]
    assert [shot.defocus for shot in empties + in_focus] == [0.0] * 5
    assert all(dataset.TRAINING_DEFOCUS[0] <= shot.defocus <= dataset.TRAINING_DEFOCUS[1] for shot in out_of_focus)
    assert [replace(shot, defocus=0.0) for shot in out_of_focus] == in_focus
    assert soft.counts == sharp.counts and len(soft.relit) == len(sharp.relit) > 0

    def detail(patches) -> float:  # mean size of the windows' finest changes (Laplacian)
        return float(np.mean([np.abs(cv2.Laplacian(window.astype(np.float32), cv2.CV_32F)).mean() for window in patches.relit]))

    assert min(shot.defocus for shot in out_of_focus) > 2
    assert detail(soft) < 0.7 * detail(sharp), (detail(soft), detail(sharp))  # measured 6.9 against 14.2
    shares = [dataset.sometimes(Shot(), 0.3, [dataset.TRAINING_STREAM, 0, k, dataset.DEFOCUS_STREAM], "defocus",
                                dataset.TRAINING_DEFOCUS).defocus > 0 for k in range(2000)]
    assert abs(np.mean(shares) - 0.3) < 0.03


def test_a_share_of_the_set_ups_is_seen_in_depth_with_the_same_frames(photographs):
    """``--relief SHARE`` trains for a real camera, which sees the board in depth: whether a
    set-up is seen so comes from a stream of its own, so its board, camera, frames and counts
    are what they are painted flat, and about that share of the set-ups are."""
    setup = BOARDS.index("2x6")
    flat, deep = (setup_patches(setup, frames=2, relief=share)["pit"] for share in (0.0, 1.0))
    scenes = [scene for scene, _, _ in photographs]
    assert [scene.relief for scene in scenes] == [False] * 3 + [True] * 3  # the empty board, then two frames
    assert scenes[3] == replace(scenes[0], relief=True)
    assert deep.counts == flat.counts and len(deep.relit) == len(flat.relit)
    assert any(not np.array_equal(a, b) for a, b in zip(deep.relit, flat.relit))
    assert abs(np.mean([seen_in_depth(k, 0.7) for k in range(2000)]) - 0.7) < 0.03


@pytest.mark.parametrize("option, value, message", [
    ("--lamp", "30", "--lamp = 30.0: expected a share of the frames, 0-1"),
    ("--relief", "-0.5", "--relief = -0.5: expected a share of the set-ups, 0-1"),
    ("--defocus", "1.5", "--defocus = 1.5: expected a share of the frames, 0-1"),
])
def test_a_share_that_is_not_one_is_named_before_anything_is_rendered(tmp_path, capsys, option, value, message):
    from vision.training.dataset import main

    with pytest.raises(SystemExit):
        main([option, value, "--setups", "0:1", "-o", str(tmp_path / "out")])
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_command_line_renders_what_its_options_ask_for(tmp_path):
    """``dataset.py`` with ``--lamp``, ``--frame``, ``--relief`` or ``--defocus`` renders the same set-up's frames (the same
    counts) photographed otherwise: each option reaches the worker processes that render."""
    from vision.training.dataset import main

    setup = BOARDS.index("2x6+stores")  # a board with stores: both files get windows
    saved = {}
    for name, options in (("plain", []), ("lamp", ["--lamp", "1"]), ("small", ["--frame", "640x480"]),
                          ("deep", ["--relief", "1"]), ("soft", ["--defocus", "1"])):
        main(["--setups", f"{setup}:{setup + 1}", "--frames", "2", "--workers", "1", *options, "-o", str(tmp_path / name)])
        saved[name] = np.load(tmp_path / name / "pit.npz")
    for name in ("lamp", "small", "deep", "soft"):
        assert np.array_equal(saved[name]["counts"], saved["plain"]["counts"]) and len(saved[name]["counts"]) > 0
        assert not np.array_equal(saved[name]["relit"], saved["plain"]["relit"]), name


def test_set_ups_of_a_board_without_stores_save_a_store_file_without_windows(tmp_path):
    """Every rendered folder holds both files, so a run over boards without stores (2 x 6) saves
    no store windows, shaped as the store counter's, and training joins it with other folders."""
    from vision.training.dataset import main

    setup = BOARDS.index("2x6")
    main(["--setups", f"{setup}:{setup + 1}", "--frames", "1", "--workers", "1", "-o", str(tmp_path / "no-stores")])
    stores = np.load(tmp_path / "no-stores" / "store.npz")
    width, height = PatchShape.of("store").size
    assert stores["relit"].shape == (0, height, width, 3) and stores["empty"].shape == (0, height, width, 3)
    assert len(stores["counts"]) == 0 and len(np.load(tmp_path / "no-stores" / "pit.npz")["counts"]) > 0
    setup = BOARDS.index("2x6+stores")
    main(["--setups", f"{setup}:{setup + 1}", "--frames", "1", "--workers", "1", "-o", str(tmp_path / "stores")])
    joined = load_patches([tmp_path / "no-stores" / "store.npz", tmp_path / "stores" / "store.npz"])
    assert len(joined["relit"]) == len(joined["counts"]) == 2 and (joined["setup"] == setup).all()
