"""Which pits kept their look between two still moments, on rendered frames of a club table.

A webcam's noise and JPEG, a slight blur, coloured uneven light. Between the two frames the
light drifts, the sensor noise and JPEG are new and the board is nudged by half a millimetre;
the seeds nobody touched lie where they lay (the renderer's piles). In much noisier frames, or
after a bigger nudge, an untouched pile may look changed, which is weak evidence; a seed-sized
spot changed ("moved") is strong evidence, and noise and nudges must not make one
(docs/vision.md, section 5).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.reader import BoardReader
from vision.render import Shot, render
from vision.unchanged import CHANGED, KEPT, MOVED, compare_looks, compared_look

TABLE = Shot(gain=0.9, tint=(1.05, 0.97, 0.92), gradient=(0.2, -0.15), nudge=(4.0, -2.0, 0.01), blur=1.0,
             noise=2.5, jpeg=85, seed=11, exposure=1)


def later(shot: Shot) -> Shot:
    """The same table a move later: light a little brighter, the board nudged by half a millimetre, a new exposure."""
    dx, dy, turn = shot.nudge
    return replace(shot, gain=shot.gain * 1.03, nudge=(dx + 0.4, dy - 0.3, turn), exposure=shot.exposure + 1)


def views(scene, calibration, counts, white, shot):
    result = BoardReader(calibration).read(render(scene, counts, white, shot).image)
    assert result.status.message == "ok" and len(result.views) == len(counts), result.status.message
    return result.views


@pytest.mark.parametrize("board, kind", [("pass-it-on", None), ("kalah", "bean"), ("kalah", "glass")])
def test_untouched_piles_keep_their_look_and_a_seed_added_or_taken_changes_it(setup_of, board, kind):
    scene, calibration = setup_of(board, 5, kind)
    labels = scene.profile.layout.labels
    rng = np.random.default_rng(3)
    counts = {label: int(n) for label, n in zip(labels, rng.integers(1, 12, len(labels)))}
    stores = [h.label for h in scene.profile.hollows if h.is_store]
    counts.update({stores[0]: 22, stores[1]: 17})
    white = {label: int(label == stores[1]) for label in labels} if scene.profile.chips else None  # a yellow taken
    piles = {label: 100 + k for k, label in enumerate(labels)}
    before = views(scene, calibration, counts, white, replace(TABLE, piles=piles))

    looks = compare_looks(before, views(scene, calibration, counts, white, later(replace(TABLE, piles=piles))))
    assert {label: look.name for label, look in looks.items()} == {label: KEPT for label in labels}

    taken, sown = stores[0], labels[2]  # a chip taken off the top of a full outbox, a seed sown on a heap
    touched = {**counts, taken: counts[taken] - 1, sown: counts[sown] + 1}
    looks = compare_looks(before, views(scene, calibration, touched, white, later(replace(TABLE, piles=piles))))
    assert {label: look.name for label, look in looks.items()} == {label: MOVED if label in (taken, sown) else KEPT
                                                                   for label in labels}


@pytest.mark.parametrize("board, kind", [("pass-it-on", None), ("kalah", "bean")])
def test_noise_and_a_nudged_board_change_untouched_piles_but_move_no_seed(setup_of, board, kind):
    """Heavy noise and JPEG, and the board pushed 3.5 mm, where the lens bends the windows apart by
    more than the pixel the comparison allows: some untouched piles look changed, none moved."""
    scene, calibration = setup_of(board, 5, kind)
    labels = scene.profile.layout.labels
    rng = np.random.default_rng(4)
    counts = {label: int(n) for label, n in zip(labels, rng.integers(3, 16, len(labels)))}
    white = {label: int(n > 8) for label, n in counts.items()} if scene.profile.chips else None
    piles = {label: 200 + k for k, label in enumerate(labels)}
    noisy = replace(TABLE, piles=piles, noise=8.0, jpeg=45)
    before = views(scene, calibration, counts, white, noisy)
    dx, dy, turn = noisy.nudge
    pushed = replace(later(noisy), nudge=(dx + 3.0, dy + 1.8, turn))
    looks = compare_looks(before, views(scene, calibration, counts, white, pushed))
    names = [look.name for look in looks.values()]
    assert CHANGED in names and MOVED not in names, looks


def test_windows_of_other_sizes_are_not_the_same_look():
    window = np.full((46, 52, 3), 120, np.uint8)
    assert compared_look(window, window.copy()).name == KEPT
    assert compared_look(window, window[:40]).name == CHANGED
